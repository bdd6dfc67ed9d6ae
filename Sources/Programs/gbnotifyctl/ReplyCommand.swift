import CommandKit
import FoundationEssentials
import GitbayClient
import Glibc
import LocalTime
import PushCore
import StateStore
import SystemCalls
import TerminalView

/// `gbnotifyctl reply ACCOUNT PATH [--message TEXT | --file -]`: a comment on an issue or a
/// merge request, with the account's own token on its own instance.
struct ReplyCommand: Command {
    static let configuration = CommandConfiguration(
        name: "reply",
        abstract: "Reply to an issue or a merge request: a comment, posted with the account's token.",
        positionals: [SharedPositionals.account, discussion],
        discussion: """
            The text is --message's, or standard input's with --file -; with neither, it is written
            in $VISUAL (else $EDITOR, else vi) on a temporary file, as git commit does: lines starting
            with # are dropped, and an empty text cancels. At most 64 KiB: a longer text is refused
            before anything is sent. A comment is posted once, never sent again by gbnotify: when no
            answer comes, the thread is read to tell whether it was posted. A reply that could not
            be posted (offline, the token refused, an archived repository, too many writes, no such
            item) is kept as a draft in the state directory, and the editor offers it again the
            next time this item is replied to. A posted reply marks the item's unread notices read,
            as one from a notification does. Builds take no reply.
            """,
        options: [message, file]
    )
    static let discussion = Positional(
        "OWNER/REPO/(issues|mrs)/N", help: "issue or merge request (OWNER/REPO/issues/N)", completion: .item)
    static let message = Option("--message", .required("TEXT"), help: "The reply's text.")
    static let file = Option("--file", .required("-"), help: "Read the reply's text from standard input (only - is taken).")

    enum Source {
        case message(String)
        case standardInput
        case editor
    }

    let account: String
    let destination: NotificationDestination
    let source: Source

    init(parsing arguments: inout Arguments) throws(UsageError) {
        let message = try arguments.value(of: Self.message)
        let file = try arguments.value(of: Self.file)
        account = try arguments.positional(SharedPositionals.account)
        destination = try Self.discussion(parsing: try arguments.positional(Self.discussion), for: .reply)
        switch (message, file) {
        case (let text?, nil): source = .message(text)
        case (nil, "-"): source = .standardInput
        case (nil, let other?):
            throw UsageError(
                Localized.text(
                    "--file takes only - (standard input), not '{file}'", note: "A usage error of gbnotifyctl reply. {file}: what was given.",
                    ["file": other.displaySafe(truncatedTo: 200)]))
        case (nil, nil): source = .editor
        case (_?, _?): throw UsageError(Localized.text("give --message or --file -, not both", note: "A usage error of gbnotifyctl reply. The options stay English."))
        }
    }

    /// What is asked of an issue or a merge request, which a build refuses.
    enum Answer {
        case reply, reaction
    }

    /// An issue or a merge request; a build, which has no thread, is refused in words.
    static func discussion(parsing path: String, for answer: Answer) throws(UsageError) -> NotificationDestination {
        guard let destination = NotificationDestination(path: path) else {
            throw UsageError(
                Localized.text(
                    "'{path}' names no issue or merge request; use OWNER/REPO/issues/N or OWNER/REPO/mrs/N",
                    note: "A usage error of gbnotifyctl reply and react. {path}: what was given. OWNER/REPO/issues/N and OWNER/REPO/mrs/N stay as they are.",
                    ["path": path.displaySafe(truncatedTo: 200)]))
        }
        guard destination.kind != .build else {
            let values: KeyValuePairs = ["path": destination.path]
            throw UsageError(
                answer == .reply
                    ? Localized.text(
                        "{path} is a build, which takes no reply on gitbay; only issues and merge requests do",
                        note: "A usage error of gbnotifyctl reply. {path}: OWNER/REPO/builds/N.", values)
                    : Localized.text(
                        "{path} is a build, which takes no reaction on gitbay; only issues and merge requests do",
                        note: "A usage error of gbnotifyctl react. {path}: OWNER/REPO/builds/N.", values))
        }
        return destination
    }

    func run() async throws -> Int32 {
        let source = Setup.accountItems()
        let account = try await source.account(self.account)
        let state = try Setup.stateDirectory()
        let (drafts, warning) = try state.loadDrafts()
        if let warning { Console.error(Localized.text("gbnotifyctl: warning: {warning}", note: "A warning of gbnotifyctl. {warning}: what, in English.", ["warning": "\(warning)"])) }
        let kept = drafts.draft(of: account, for: destination.path)

        let text: String
        var editorFile: String?
        switch self.source {
        case .message(let message):
            text = message
        case .standardInput:
            text = try Self.readStandardInput()
        case .editor:
            if let kept {
                let words = Localized.text(
                    "your draft of {when} is in the editor (kept because {reason})",
                    note: "gbnotifyctl reply, before the editor. {when}: when the draft was kept; {reason}: why (a message of its own, or in English from an older gbnotify).",
                    ["when": Self.when(kept.savedAt), "reason": kept.spokenReason])
                Console.error("gbnotifyctl: \(words)")
            }
            let editor = ReplyEditor(environment: ProcessInfo.processInfo.environment)
            switch await editor.compose(CommentText.editorTemplate(for: destination, account: account.displayName, draft: kept?.text ?? "")) {
            case .cancelled:
                Console.error("gbnotifyctl: \(CommentTextError.empty.spoken)")
                return ExitStatus.failure
            case .failed(let words):
                Console.error("gbnotifyctl: \(words)")
                return ExitStatus.failure
            case .text(let written, let file):
                text = written
                editorFile = file
            }
        }
        let comment: CommentText
        do {
            comment = try CommentText(text)
        } catch {
            Console.error("gbnotifyctl: \(editorFile.map { CommentText.notSent(error.spoken, keptIn: $0) } ?? error.spoken)")
            return ExitStatus.failure
        }

        let client = try await source.client(for: account)
        let outcome = await ReplySending(account: account, destination: destination, state: state)
            .send(comment, with: client, kept: kept, offered: editorFile != nil, editorFile: editorFile)
        var lines = outcome.lines[...]
        if outcome.isPosted, let said = lines.popFirst() { print(said) }
        for line in lines { Console.error("gbnotifyctl: \(line)") }
        guard outcome.isPosted else { return ExitStatus.failure }
        // Answered, so read, as a reply from the popup or the view is: the notification goes at
        // the daemon's next poll. The reply stands whatever becomes of this.
        do {
            _ = try await source.markRead(destination.path, of: account)
        } catch {
            Console.error("gbnotifyctl: " + Localized.text(
                "the reply is posted, but {item} could not be marked read: {problem}",
                note: "gbnotifyctl reply's warning after posting. {item}: as krz/gitbay#12; {problem}: why, in English.",
                ["item": destination.shortName, "problem": "\(error)"]))
        }
        return ExitStatus.success
    }

    /// Standard input, up to one byte over the limit so that a longer text is refused, not cut.
    private static func readStandardInput() throws -> String {
        do {
            return String(decoding: try FileDescriptor.standardInput.read(upTo: CommentText.maximumBytes + 1), as: UTF8.self)
        } catch {
            throw ReplyEditor.Failure(
                description: Localized.text(
                    "cannot read the reply from standard input: {problem}", note: "gbnotifyctl reply's error. {problem}: why, in English.",
                    ["problem": "\(error)"]))
        }
    }

    private static func when(_ instant: Int64) -> String {
        "\(SystemZone.offsets.date(of: instant)) \(TimeOfDay.of(instant, zone: SystemZone.offsets))"
    }
}

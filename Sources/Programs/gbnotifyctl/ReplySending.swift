import GitbayClient
import Glibc
import LocalTime
import PushCore
import StateStore
import TerminalView

/// What `gbnotifyctl reply` and the view's reply key share once the text is written: posted
/// once with the account's token; kept as the item's draft when it was not posted, or may have
/// been; the editor's file removed once the text is safe, and named while it is not. Each
/// outcome is said here, once.
struct ReplySending {
    let account: Account
    let destination: NotificationDestination
    let state: StateDirectory

    /// Posts `comment`. `kept` is the item's draft when one is kept, `offered` whether the editor
    /// started from it: then what was posted is what became of it, and the draft goes; beside a
    /// text from elsewhere it stays.
    func send(
        _ comment: CommentText, with client: GitbayClient, kept: DraftRecord.Draft?, offered: Bool, editorFile: String?
    ) async -> ReplyOutcome {
        let report = await client.postComment(comment, on: destination, as: account.username) { Double(SystemZone.now()) }
        let name = destination.shortName
        switch report {
        case .posted, .postedUnanswered:
            var lines = [
                Localized.text(
                    "Replied to {item} as {account}.", note: "gbnotifyctl reply's line. {item}: owner/repo#12; {account}: user@host.",
                    ["item": name, "account": account.displayName])
            ]
            if case .postedUnanswered(let reason) = report {
                lines.append(
                    Localized.text(
                        "no answer came ({reason}), but the thread has the reply",
                        note: "After a reply whose answer was lost. {reason}: why, in English.", ["reason": "\(reason)"]))
            }
            if kept != nil, offered {
                do {
                    try state.updateDrafts { $0.drop(of: account, for: destination.path) }
                } catch {
                    lines.append(
                        Localized.text(
                            "the kept draft could not be dropped ({problem})", note: "After a reply was posted. {problem}: why, in English.",
                            ["problem": "\(error)"]))
                }
            } else if kept != nil {
                lines.append(
                    Localized.text(
                        "a draft for {item} is still kept; {command} offers it",
                        note: "After a reply was posted beside a kept draft. {item}: owner/repo#12; {command}: where the draft is offered again.",
                        ["item": name, "command": offeredAgain]))
            }
            editorFile.map { _ = unlink($0) }
            return ReplyOutcome(isPosted: true, lines: lines)
        case .notPosted(let reason):
            return keep(comment.text, because: .notPosted(reason), saying: Self.notPosted(to: name, reason.spoken), editorFile: editorFile)
        case .unknown(let reason, let checkFailed):
            return keep(
                comment.text, because: .unknown(reason: reason, checkFailed: checkFailed),
                saying: Localized.text(
                    "no answer came from {instance} ({reason}), and the thread could not be read to tell whether the reply was posted ({problem}). Look before sending it again: {command}",
                    note: "A reply whose answer was lost. {instance}: the gitbay instance; {reason} and {problem}: why, in English; {command}: the command that shows the thread (stays English).",
                    [
                        "instance": account.instance.displayName, "reason": "\(reason)", "problem": "\(checkFailed)",
                        "command": "gbnotifyctl show \(account.reference) \(destination.path)",
                    ]),
                editorFile: editorFile)
        }
    }

    /// Where a kept draft is offered again: the editor of `reply`, or of the view's reply key.
    private var offeredAgain: String {
        Localized.text(
            "{command} (or {keys} in {view})",
            note: "Where a kept draft is offered again. {command}: gbnotifyctl reply with its arguments; {keys}: the view's reply key; {view}: the view's command.",
            ["command": "'gbnotifyctl reply \(account.reference) \(destination.path)'", "keys": ViewKeys.reply.keys, "view": "'gbnotifyctl show'"])
    }

    /// The first line of a reply not posted.
    static func notPosted(to item: String, _ reason: String) -> String {
        Localized.text(
            "not posted to {item}: {reason}",
            note: "A reply not posted. {item}: owner/repo#12; {reason}: why (a message of its own in lower case, or an error in English).",
            ["item": item, "reason": reason])
    }

    /// Where the text of a reply not posted is.
    static func textIsStill(in file: String) -> String {
        Localized.text("the text is still in {file}", note: "Where the text of a reply not posted is. {file}: a file's path.", ["file": file])
    }

    /// Keeps `text` as the item's draft; says so, or where the text is when it cannot be kept.
    private func keep(_ text: String, because failure: AnswerFailure, saying first: String, editorFile: String?) -> ReplyOutcome {
        let draft = DraftRecord.Draft(account: account, path: destination.path, text: text, savedAt: SystemZone.now(), failure: failure)
        let whereTheTextIs = editorFile.map(Self.textIsStill)
            ?? Localized.text("the text was not kept", note: "A reply not posted whose text could not be kept anywhere.")
        do {
            guard try state.updateDrafts({ $0.keep(draft) }).result else {
                let full = Localized.text(
                    "the drafts are full ({count}); {where}",
                    note: "A reply not posted that cannot be kept. {count}: how many drafts are kept at most; {where}: where the text is.",
                    ["count": String(DraftRecord.maximumDrafts), "where": whereTheTextIs])
                return ReplyOutcome(isPosted: false, lines: [first, full])
            }
        } catch {
            let failed = Localized.text(
                "the draft could not be kept ({problem}); {where}",
                note: "A reply not posted that cannot be kept. {problem}: why, in English; {where}: where the text is.",
                ["problem": "\(error)", "where": whereTheTextIs])
            return ReplyOutcome(isPosted: false, lines: [first, failed])
        }
        editorFile.map { _ = unlink($0) }
        let kept = Localized.text(
            "the reply is kept as a draft; {command} offers it again",
            note: "A reply not posted, kept. {command}: where the draft is offered again.", ["command": offeredAgain])
        return ReplyOutcome(isPosted: false, lines: [first, kept])
    }
}

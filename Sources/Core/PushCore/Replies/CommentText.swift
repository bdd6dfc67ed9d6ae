/// The text of a reply, checked before it is sent: gitbay reads at most 64 KiB of a comment's
/// standard input and drops the rest without a word, so a longer text is refused here, whole,
/// rather than posted cut short; an empty or all-blank one it refuses itself.
public struct CommentText: Sendable, Equatable {
    /// What gitbay reads of `--file -` (gitbay-api.md, "Comments and reactions").
    public static let maximumBytes = 64 * 1024

    public let text: String

    public init(_ text: String) throws(CommentTextError) {
        guard !text.trimmingWhitespace.isEmpty else { throw .empty }
        guard text.utf8.count <= Self.maximumBytes else { throw .tooLong(bytes: text.utf8.count) }
        self.text = text
    }

    /// What the user wrote in the editor, as `git commit` reads a message: lines starting with
    /// `#` dropped, trailing blanks cut from each line, blank lines at either end dropped. Nil
    /// when nothing is left: the reply is cancelled.
    public static func fromEditor(_ edited: String) -> String? {
        let lines = edited.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("#") }
            .map { line in String(line.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed()) }
        let kept = lines.drop { $0.isEmpty }.reversed().drop { $0.isEmpty }.reversed()
        return kept.isEmpty ? nil : kept.joined(separator: "\n")
    }

    /// Why a text from the editor was not sent, and the file that still holds it.
    public static func notSent(_ problem: String, keptIn file: String) -> String {
        Localized.text(
            "{problem} (the text is kept in {file})", note: "A reply that was not sent. {problem}: why (a message of its own); {file}: a file's path.",
            ["problem": problem, "file": file])
    }

    /// The file the editor opens: an empty first line for the text, then what to do, as `#`
    /// lines that `fromEditor` drops. `draft` starts it off (a kept text offered again). The
    /// `#` stays outside the translated words, so no translation can make a line part of the text.
    public static func editorTemplate(for destination: NotificationDestination, account: String, draft: String = "") -> String {
        let heading = Localized.text(
            "Your reply to {item} as {account}.", note: "A comment line of the reply's editor file. {item}: owner/repo#12; {account}: user@host.",
            ["item": destination.shortName, "account": account])
        let rule = Localized.text(
            "Lines starting with '#' are dropped; an empty text cancels the reply.", note: "A comment line of the reply's editor file.")
        let limit = Localized.text(
            "At most {size} KiB (gitbay reads no more).", note: "A comment line of the reply's editor file. {size}: a number.",
            ["size": String(maximumBytes / 1024)])
        return """
            \(draft)

            # \(heading)
            # \(rule)
            # \(limit)

            """
    }
}

/// Why a text was refused before it was sent: `spoken` for a person, `description` (the same
/// words in English) for the log.
public enum CommentTextError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    case empty
    case tooLong(bytes: Int)

    public var description: String {
        Localized.inEnglish { spoken }
    }

    /// Starts in lower case: it follows a program's name or stands inside a sentence.
    public var spoken: String {
        switch self {
        case .empty:
            Localized.text("the reply is empty; nothing was sent", note: "Why a reply was not sent; it may follow \"gbnotifyctl: \", so it starts in lower case.")
        case .tooLong:
            Localized.text(
                "the reply is longer than gitbay's limit of {bytes} bytes (64 KiB) for a comment; nothing was sent. Shorten it, or split it into several replies",
                note: "Why a reply was not sent; it may follow \"gbnotifyctl: \", so it starts in lower case. {bytes}: 65536.",
                ["bytes": String(CommentText.maximumBytes)])
        }
    }
}

/// An answer on an item, asked from its notification: "👍" (or its Undo), or a reply typed into
/// the popup's text field. The daemon sends it on the notice's own account and instance.
public struct ItemAnswer: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// `issue|mr react ... REACTION [--remove]`.
        case react(reaction: String, remove: Bool)
        /// `issue|mr comment ... --file -`, with the text as standard input.
        case comment(String)
    }

    public let destination: NotificationDestination
    /// The inbox rows marked read once it is done, as "Mark read" does (none for an Undo).
    public let rows: [Int64]
    public let kind: Kind

    public init(destination: NotificationDestination, rows: [Int64], kind: Kind) {
        self.destination = destination
        self.rows = rows
        self.kind = kind
    }
}

/// What became of an answer, said on screen in a short notification (`ScreenBook.Subject.said`).
/// Each names the item by its path, `OWNER/REPO/(issues|mrs)/N`.
public enum AnswerSaid: Sendable, Equatable, Codable {
    /// "Reacted 👍 to krz/gitbay#12", with Undo while it is said.
    case reacted(path: String, reaction: String)
    /// "Replied to krz/gitbay#12".
    case replied(path: String)
    /// The reaction was not set, and why.
    case reactionFailed(path: String, reaction: String, reason: AnswerFailure)
    /// The reply was not posted (or may not have been), and why; its text is kept as a draft.
    case replyKept(path: String, reason: AnswerFailure)
    /// The reply was refused before it was sent (empty, or longer than gitbay takes): why.
    case replyNotSent(path: String, reason: AnswerFailure)

    public var path: String {
        switch self {
        case .reacted(let path, _), .replied(let path), .reactionFailed(let path, _, _), .replyKept(let path, _),
             .replyNotSent(let path, _):
            path
        }
    }

    /// Whether it says something went wrong: such a notification stays until dismissed.
    public var isFailure: Bool {
        switch self {
        case .reacted, .replied: false
        case .reactionFailed, .replyKept, .replyNotSent: true
        }
    }
}

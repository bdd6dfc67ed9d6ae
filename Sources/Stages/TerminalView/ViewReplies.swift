import PushCore

/// What the user's editor gave back for a reply.
public enum ComposedReply: Sendable, Equatable {
    /// The text written, and the file it is in until it is posted or kept.
    case text(String, file: String)
    /// Nothing left once the `#` lines are dropped.
    case cancelled
    /// The editor could not run, or failed; in words, with where the text is.
    case failed(String)
}

/// What became of a reply: posted or not, and the lines that say so, the first saying it all.
public struct ReplyOutcome: Sendable, Equatable {
    public let isPosted: Bool
    public let lines: [String]

    public init(isPosted: Bool, lines: [String]) {
        self.isPosted = isPosted
        self.lines = lines
    }
}

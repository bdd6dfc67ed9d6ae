import PushCore

/// The terminal's size in character cells.
public struct TerminalSize: Sendable, Equatable {
    public var rows: Int
    public var columns: Int

    public init(rows: Int, columns: Int) {
        self.rows = rows
        self.columns = columns
    }
}

/// What the view asks of the world (`ViewSource`); each answer comes back as a `ViewEvent`.
public enum ViewEffect: Sendable, Equatable {
    /// Resolve the account named `account`, then read the item from its instance.
    case loadItem(screen: Int, account: String, destination: NotificationDestination)
    /// Resolve the accounts `account` names (every one when nil), then read each inbox.
    case loadInbox(screen: Int, account: String?)
    case markRead(account: Account, path: String)
    case open(PushTarget)
    /// Set the reaction on the item (or, with `remove`, take it back).
    case react(screen: Int, account: Account, destination: NotificationDestination, reaction: String, remove: Bool)
    /// Read the reply kept for the item when it could not be posted.
    case loadDraft(screen: Int, account: Account, destination: NotificationDestination)
    /// Hand the terminal to the user's editor on `template`, and take it back when it is done.
    case compose(screen: Int, template: String)
    /// Post the reply, once; kept as the item's draft when it is not posted. `offered`: the
    /// editor started from the kept draft.
    case reply(
        screen: Int, account: Account, destination: NotificationDestination, comment: CommentText, file: String, offered: Bool)
}

/// What happens to the view: a key, a resize, or the answer to an effect.
public enum ViewEvent: Sendable, Equatable {
    case key(Key)
    case resized(TerminalSize)
    /// `account` is the one the item was asked of, when the name resolved to one.
    case itemLoaded(screen: Int, account: Account?, Result<ItemDetails, ReadProblem>)
    case inboxLoaded(screen: Int, Result<[AccountInbox], ReadProblem>)
    case markedRead(account: Account, path: String, Result<Int, ReadProblem>)
    case opened(Result<String, ReadProblem>)
    /// `failure` nil when it was done.
    case reacted(screen: Int, reaction: String, remove: Bool, failure: ReadProblem?)
    case draftLoaded(screen: Int, Result<DraftRecord.Draft?, ReadProblem>)
    case composed(screen: Int, ComposedReply)
    case replied(screen: Int, ReplyOutcome)
}

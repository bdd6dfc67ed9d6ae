import PushCore

/// Where the view's data comes from and where its actions go: the accounts in the keyring and
/// their own instances. The view calls nothing else, so data flows one way, from these answers
/// to the screen.
public protocol ViewSource: Sendable {
    /// Every account, sorted by its reference.
    func accounts() async throws(ReadProblem) -> [Account]
    /// The one account `reference` names: USER@HOST or an instance URL.
    func account(_ reference: String) async throws(ReadProblem) -> Account
    /// The item, from the account's own instance with its token.
    func item(_ destination: NotificationDestination, of account: Account) async throws(ReadProblem) -> ItemDetails
    /// The account's unread inbox, newest first.
    func inbox(of account: Account) async throws(ReadProblem) -> InboxListing
    /// Marks the account's unread rows whose path is `path` read; how many there were.
    func markRead(_ path: String, of account: Account) async throws(ReadProblem) -> Int
    /// Opens the item (or, without one, the inbox) in the browser the way a click does;
    /// returns the URL opened.
    func open(_ target: PushTarget) async throws(ReadProblem) -> String
    /// Sets `reaction` on the item with the account's token, or with `remove` takes it back;
    /// what the server says it did.
    func react(_ reaction: String, remove: Bool, on destination: NotificationDestination, of account: Account) async throws(ReadProblem) -> ReactionResult
    /// The reply kept for the item when it could not be posted, if there is one.
    func draft(on destination: NotificationDestination, of account: Account) async throws(ReadProblem) -> DraftRecord.Draft?
    /// The user writes a reply in their editor, starting from `template`; the terminal is the
    /// editor's until it returns.
    func compose(_ template: String) async -> ComposedReply
    /// Posts `comment` once with the account's token; kept as the item's draft when it is not
    /// posted, and `file` (the editor's) removed once the text is safe.
    func reply(
        _ comment: CommentText, file: String, offered: Bool, on destination: NotificationDestination, of account: Account
    ) async -> ReplyOutcome
}

extension ViewSource {
    /// The one account `reference` names, or every account when it is nil.
    public func accounts(named reference: String?) async throws(ReadProblem) -> [Account] {
        if let reference { return [try await account(reference)] }
        return try await accounts()
    }
}

/// An account's unread rows, newest first, as many as the view reads.
public struct InboxListing: Sendable, Equatable {
    public let rows: [InboxItem]
    /// More unread rows exist than were read.
    public let hasMore: Bool
    /// The paths of the items the account has a reply kept for, not posted (its drafts): their
    /// rows say so.
    public let drafted: Set<String>

    public init(rows: [InboxItem], hasMore: Bool, drafted: Set<String> = []) {
        self.rows = rows
        self.hasMore = hasMore
        self.drafted = drafted
    }
}

/// One account's part of the inbox view: its rows, or why they could not be read.
public struct AccountInbox: Sendable, Equatable {
    public let account: Account
    public let listing: Result<InboxListing, ReadProblem>

    public init(account: Account, listing: Result<InboxListing, ReadProblem>) {
        self.account = account
        self.listing = listing
    }
}

/// What the daemon learnt about one account, handed from its poller to the desktop as plain
/// values: a poll's new notices and unread count, or rows this daemon marked read.
public struct AccountUpdate: Sendable, Equatable {
    public let account: Account
    /// New notices to show, in order: individual rows oldest first, or one summary.
    public let notices: [InboxCycle.Notice]
    /// The account's unread count now (a `.needsDashboard` count is already resolved). The
    /// badge is the sum over accounts, so updates of different accounts can arrive in any order.
    public let unread: UnreadCount
    /// Rows known to be read now (elsewhere, or here): their notifications go.
    public let read: ReadRows
    /// The unread rows the poll read, newest first, new or not (`InboxCycle.unreadRows`); empty
    /// when no list was read. Unlike `notices`, they include what a summary only counts.
    public let unreadRows: [InboxItem]

    public init(
        account: Account, notices: [InboxCycle.Notice] = [], unread: UnreadCount, read: ReadRows = .none,
        unreadRows: [InboxItem] = []
    ) {
        self.account = account
        self.notices = notices
        self.unread = unread
        self.read = read
        self.unreadRows = unreadRows
    }
}

/// The notices of one repository on one account, shown as one notification.
///
/// The freedesktop specification has no grouping, so gbnotify groups by replacing: while a
/// repository's notification is on screen, a new notice of that repository replaces it in
/// place (`replaces_id`) with a body that lists the group's newest notices, and a poll that finds
/// some of them read elsewhere shrinks it the same way (none left: it is withdrawn). A group the
/// user dismissed is gone; the next notice starts a new one rather than bringing old ones back.
/// (gitbay's own push payload names the repository as its `thread-id` for the same reason.)
public struct NoticeGroup: Sendable, Equatable {
    public struct Key: Hashable, Sendable {
        public let account: Account
        /// "OWNER/REPO", as the inbox rows name it.
        public let repo: String

        public init(account: Account, repo: String) {
            self.account = account
            self.repo = repo
        }
    }

    /// The most rows a group keeps: past it the oldest fall out of the group (they stay unread
    /// on the server, and in the badge), so a busy repository cannot grow it without bound.
    public static let maximumItems = 50

    public let key: Key
    /// Never empty, newest first, each inbox id once.
    public private(set) var items: [InboxItem]

    private init(key: Key, items: [InboxItem]) {
        self.key = key
        self.items = items
    }

    /// The rows of each repository in `rows`, one group per repository, ordered by their newest
    /// row: shown in this order, the group with the newest row ends on top.
    public static func grouping(_ rows: [InboxItem], of account: Account) -> [NoticeGroup] {
        var byRepository: [String: [InboxItem]] = [:]
        for row in rows {
            byRepository[row.repo, default: []].append(row)
        }
        return byRepository
            .map { repo, rows in NoticeGroup(key: Key(account: account, repo: repo), items: []).adding(rows) }
            .sorted { $0.newest.id < $1.newest.id }
    }

    public var newest: InboxItem { items[0] }

    public var inboxIDs: [Int64] { items.map(\.id) }

    /// The group with `rows` of its repository added; a row it holds already is replaced.
    public func adding(_ rows: [InboxItem]) -> NoticeGroup {
        var byID: [Int64: InboxItem] = [:]
        for row in items + rows where row.repo == key.repo {
            byID[row.id] = row
        }
        let newestFirst = byID.values.sorted { $0.id > $1.id }
        return NoticeGroup(key: key, items: Array(newestFirst.prefix(Self.maximumItems)))
    }

    /// The group without the rows of `ids`; nil when none is left.
    public func removing(_ ids: Set<Int64>) -> NoticeGroup? {
        let left = items.filter { !ids.contains($0.id) }
        return left.isEmpty ? nil : NoticeGroup(key: key, items: left)
    }

    /// What a click opens: the item when the group holds one, else the account's inbox, which
    /// lists every row of the group (opening only the newest would leave the others unseen).
    public var target: PushTarget {
        PushTarget(
            account: key.account, destination: items.count == 1 ? NotificationDestination(path: newest.path) : nil)
    }
}

/// The notices of one repository on one account, shown as one notification.
///
/// The freedesktop specification has no grouping, so gbnotify groups by replacing: while a
/// repository's notification is open, a new notice of that repository replaces it in place
/// (`replaces_id`) with a body that lists what is new (`fresh`) and counts the rest. Notices
/// shown before are never listed again: on a server that sends no `NotificationClosed` when a
/// bubble expires (notification-daemon), "replacing" brings the bubble back, and it must not
/// bring old notices back with it. (gitbay's own push payload names the repository as its
/// `thread-id` for the same reason.)
public struct NoticeGroup: Sendable, Equatable, Codable {
    public struct Key: Hashable, Sendable, Codable {
        public let account: Account
        /// "OWNER/REPO", parsed from the rows' paths (never the rows' `repo` text, which a click
        /// does not go by); nil for rows whose path is not an item's, which share one group.
        public let repository: String?

        public init(account: Account, repository: String?) {
            self.account = account
            self.repository = repository
        }
    }

    /// The most rows a group keeps: past it the oldest fall out of the group (they stay unread
    /// on the server, and in the badge), so a busy repository cannot grow it without bound.
    public static let maximumItems = 50

    public let key: Key
    /// Never empty, newest first, each inbox id once.
    public private(set) var items: [InboxItem]
    /// The ids that came with the latest notices added: what the notification lists.
    public private(set) var fresh: [Int64]

    private init(key: Key, items: [InboxItem], fresh: [Int64]) {
        self.key = key
        self.items = items
        self.fresh = fresh
    }

    /// The repository a row belongs to, by its path.
    public static func repository(of row: InboxItem) -> String? {
        NotificationDestination(path: row.path)?.repository
    }

    /// The rows of each repository in `rows`, one group per repository, ordered by their newest
    /// row: shown in this order, the group with the newest row ends on top.
    public static func grouping(_ rows: [InboxItem], of account: Account) -> [NoticeGroup] {
        var byRepository: [String?: [InboxItem]] = [:]
        for row in rows {
            byRepository[repository(of: row), default: []].append(row)
        }
        return byRepository
            .map { repository, rows in
                NoticeGroup(key: Key(account: account, repository: repository), items: [], fresh: []).adding(rows)
            }
            .sorted { $0.newest.id < $1.newest.id }
    }

    public var newest: InboxItem { items[0] }

    public var inboxIDs: [Int64] { items.map(\.id) }

    /// The rows `fresh` names, newest first.
    public var freshItems: [InboxItem] {
        let named = Set(fresh)
        return items.filter { named.contains($0.id) }
    }

    /// The group with `rows` of its repository added, and those rows now the fresh ones; a row
    /// it holds already is replaced.
    public func adding(_ rows: [InboxItem]) -> NoticeGroup {
        var byID: [Int64: InboxItem] = [:]
        for row in items + rows where Self.repository(of: row) == key.repository {
            byID[row.id] = row
        }
        let newestFirst = Array(byID.values.sorted { $0.id > $1.id }.prefix(Self.maximumItems))
        let kept = Set(newestFirst.map(\.id))
        let added = rows.map(\.id).filter(kept.contains)
        return NoticeGroup(key: key, items: newestFirst, fresh: Array(Set(added)).sorted(by: >))
    }

    /// The group without the rows of `read`; nil when none is left. What it lists stays as it
    /// was shown, less what was read.
    public func removing(_ read: ReadRows) -> NoticeGroup? {
        let left = items.filter { !read.contains($0.id) }
        guard !left.isEmpty else { return nil }
        return NoticeGroup(key: key, items: left, fresh: fresh.filter { !read.contains($0) })
    }

    /// The item a reply or a reaction from the notification goes to: the one notice's, when it
    /// is of an issue or a merge request. Nil for a build, for several notices (which item?) and
    /// for a path that is no item's.
    public var answerable: NotificationDestination? {
        guard items.count == 1, let destination = NotificationDestination(path: newest.path), destination.kind != .build else { return nil }
        return destination
    }

    /// What a click opens: the item when the group holds one, else the account's inbox, which
    /// lists every row of the group (opening only the newest would leave the others unseen).
    public var target: PushTarget {
        PushTarget(
            account: key.account, destination: items.count == 1 ? NotificationDestination(path: newest.path) : nil)
    }
}

/// Read back from `notifications.json` with the invariants the grouping keeps (`DecodingBounds`):
/// at least one row and at most `maximumItems`, each with a positive id, once, of the group's
/// repository; `fresh` names only rows it holds. Anything else is not a group gbnotifyd wrote.
extension NoticeGroup {
    private enum CodingKeys: String, CodingKey {
        case key, items, fresh
    }

    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        let key = try fields.decode(Key.self, forKey: .key)
        let items = try fields.decode([InboxItem].self, forKey: .items)
        let fresh = try fields.decodeIDs(Int64.self, forKey: .fresh)
        let ids = Set(items.map(\.id))
        guard (1...Self.maximumItems).contains(items.count), ids.count == items.count, ids.allSatisfy({ $0 > 0 }),
              items.allSatisfy({ Self.repository(of: $0) == key.repository }), fresh.allSatisfy(ids.contains)
        else {
            throw DecodingError.dataCorruptedError(forKey: .items, in: fields, debugDescription: "not the rows of one group")
        }
        self.init(key: key, items: items.sorted { $0.id > $1.id }, fresh: fresh)
    }
}


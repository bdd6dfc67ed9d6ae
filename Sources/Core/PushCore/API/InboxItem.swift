/// One row of `notifications list`.
public struct InboxItem: Sendable, Equatable, Codable {
    /// Only grows: the high-water mark of what has been shown is an id.
    public let id: Int64
    /// "OWNER/REPO".
    public let repo: String
    /// Nil for a kind this client does not know (or none), so a newer server's new kinds do not
    /// break the list.
    public let kind: ItemKind?
    public let actor: String
    /// What happened, without the actor: "opened issue #12".
    public let summary: String
    /// The web path as sent; `NotificationDestination(path:)` decides whether it is routable.
    public let path: String
    public let createdAt: String
    /// Absent while unread.
    public let readAt: String?

    public init(
        id: Int64, repo: String, kind: ItemKind?, actor: String, summary: String, path: String,
        createdAt: String, readAt: String?
    ) {
        self.id = id
        self.repo = repo
        self.kind = kind
        self.actor = actor
        self.summary = summary
        self.path = path
        self.createdAt = createdAt
        self.readAt = readAt
    }

    private enum CodingKeys: String, CodingKey {
        case id, repo, kind, actor, summary, path
        case createdAt = "created_at"
        case readAt = "read_at"
    }

    public init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        id = try row.decode(Int64.self, forKey: .id)
        repo = try row.decode(String.self, forKey: .repo)
        kind = try row.decodeIfPresent(String.self, forKey: .kind).flatMap(ItemKind.init(rawValue:))
        actor = try row.decode(String.self, forKey: .actor)
        summary = try row.decode(String.self, forKey: .summary)
        path = try row.decode(String.self, forKey: .path)
        createdAt = try row.decode(String.self, forKey: .createdAt)
        readAt = try row.decodeIfPresent(String.self, forKey: .readAt)
    }

    /// As the server wrote it, for the daemon's record of what is on screen.
    public func encode(to encoder: any Encoder) throws {
        var row = encoder.container(keyedBy: CodingKeys.self)
        try row.encode(id, forKey: .id)
        try row.encode(repo, forKey: .repo)
        try row.encodeIfPresent(kind?.rawValue, forKey: .kind)
        try row.encode(actor, forKey: .actor)
        try row.encode(summary, forKey: .summary)
        try row.encode(path, forKey: .path)
        try row.encode(createdAt, forKey: .createdAt)
        try row.encodeIfPresent(readAt, forKey: .readAt)
    }
}

/// The `data` of `notifications list`, newest first, in either of its shapes: a bare array (a
/// call without `--limit` or `--cursor`) or `{"items": [...], "next": "..."}` with `next` absent
/// on the last page.
///
/// A malformed row fails the whole page rather than being skipped: the daemon's high-water mark
/// is an id, and silently skipping a row could move it past a notice that was never shown.
public struct InboxPage: Sendable, Equatable, Decodable {
    public let items: [InboxItem]
    /// The opaque cursor of the next page; nil on the last page and for a bare list.
    public let next: String?

    public init(items: [InboxItem], next: String?) {
        self.items = items
        self.next = next
    }

    private enum CodingKeys: String, CodingKey {
        case items, next
    }

    public init(from decoder: any Decoder) throws {
        if let page = try? decoder.container(keyedBy: CodingKeys.self) {
            items = try page.decode([InboxItem].self, forKey: .items)
            next = try page.decodeIfPresent(String.self, forKey: .next)
        } else {
            items = try decoder.singleValueContainer().decode([InboxItem].self)
            next = nil
        }
    }
}

/// Several unread notices of one account in one notification, which opens the inbox.
public struct NoticeSummary: Sendable, Equatable, Codable {
    public enum Wording: String, Sendable, Codable {
        /// What was waiting: a first sight or a start ("27 unread on ...").
        case unread
        /// More new notices in one poll than are shown one by one ("7 new on ...").
        case new
        /// Notices folded away to keep within `max-notifications` ("5 more unread on ...").
        case more
        /// What would have popped up during a snooze, when it ends ("5 new on ... while snoozed").
        case whileSnoozed
        /// What would have popped up during quiet hours, when they end ("5 new on ... during
        /// quiet hours").
        case duringQuietHours
    }

    /// The most row ids kept; a summary of more still counts them all.
    public static let maximumRowIDs = 200

    public private(set) var count: Int
    /// The count is a floor ("50+").
    public private(set) var isAtLeast: Bool
    public private(set) var wording: Wording
    /// The rows known to be in it, so that reading them elsewhere shrinks it; `count` may be
    /// larger.
    public private(set) var rowIDs: [Int64]

    public init(count: Int, isAtLeast: Bool, wording: Wording, rowIDs: [Int64]) {
        self.count = OutsideCount.clamped(count)
        self.isAtLeast = isAtLeast
        self.wording = wording
        self.rowIDs = Array(rowIDs.prefix(Self.maximumRowIDs))
    }

    /// A group folded away.
    public init(folding group: NoticeGroup) {
        self.init(count: group.items.count, isAtLeast: false, wording: .more, rowIDs: group.inboxIDs)
    }

    /// Both summaries' notices in one. "Unread" stays true of any mix; "new" only of new ones.
    public func merging(_ other: NoticeSummary) -> NoticeSummary {
        let wording: Wording = wording == other.wording ? wording : (wording == .unread || other.wording == .unread ? .unread : .more)
        return NoticeSummary(
            count: OutsideCount.sum(count, other.count), isAtLeast: isAtLeast || other.isAtLeast, wording: wording,
            rowIDs: rowIDs + other.rowIDs.filter { !rowIDs.contains($0) })
    }

    /// The ids "Mark read" marks: exactly those the summary counts, never more. Nil when it
    /// counts rows it does not know (past `maximumRowIDs`, or a count from the server), so no
    /// Mark read is offered rather than one that marks only some.
    public var markReadIDs: [Int64]? {
        !isAtLeast && !rowIDs.isEmpty && rowIDs.count == count ? rowIDs : nil
    }

    /// Without the rows of `read`; nil when nothing is left.
    public func removing(_ read: ReadRows) -> NoticeSummary? {
        let left = rowIDs.filter { !read.contains($0) }
        let remaining = count - (rowIDs.count - left.count)
        guard remaining > 0 else { return nil }
        return NoticeSummary(count: remaining, isAtLeast: isAtLeast, wording: wording, rowIDs: left)
    }
}

/// Read back from `notifications.json`: the count clamped as a server's is, the row ids
/// positive and at most `maximumRowIDs` of them (`DecodingBounds`).
extension NoticeSummary {
    private enum CodingKeys: String, CodingKey {
        case count, isAtLeast, wording, rowIDs
    }

    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            count: try fields.decodeCount(forKey: .count), isAtLeast: try fields.decode(Bool.self, forKey: .isAtLeast),
            wording: try fields.decode(Wording.self, forKey: .wording), rowIDs: try fields.decodeIDs(Int64.self, forKey: .rowIDs))
    }
}

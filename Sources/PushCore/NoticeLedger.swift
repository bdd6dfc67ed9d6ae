/// One account's recent notices, so that a notice that arrives both as a push payload and as a
/// new inbox row of a poll is shown once, whichever comes first.
///
/// A payload carries no inbox id, so the two are matched by what they say: the web path and
/// the text, which gitbay writes as actor + " " + summary in both (`Key`). The matching is one
/// to one, oldest first:
///
/// - A payload whose key is already in the ledger (a poll showed that row, or an earlier
///   payload is still unpaired on screen, as when a relay and `Deliver` bring the same one)
///   is already shown.
/// - A new row pairs with the oldest payload of its key that no row has paired yet: it is not
///   shown again, and from then on that notice's "Mark read" and withdrawal use the row's id.
///   A row that a look-up already paired is not shown again either.
/// - Any other row is shown, as the poll decided.
///
/// So two different notices with the same text cannot hide each other for good: the payload of
/// the second is taken for the first, but the poll that finds the second row shows it. The
/// ledger keeps the latest `capacity` notices; an older one is forgotten (its payload, if one
/// came that late, is shown again).
public struct NoticeLedger: Sendable {
    /// What a payload and an inbox row of one notice both say.
    public struct Key: Hashable, Sendable {
        public let path: String
        /// actor + " " + summary.
        public let text: String

        public init(path: String, text: String) {
            self.path = path
            self.text = text
        }

        public init(_ row: InboxItem) {
            self.init(path: row.path, text: "\(row.actor) \(row.summary)")
        }
    }

    public enum Arrival: Equatable, Sendable {
        /// Show it; `reference` names it in the ledger from now on.
        case new(reference: UInt64)
        case alreadyShown
    }

    /// Well above what one account shows between two polls, or a full first page (50).
    public static let defaultCapacity = 200

    private struct Entry: Sendable {
        let key: Key
        /// Set when a payload put it on screen.
        var reference: UInt64?
        /// Set when a poll (or a look-up) saw its row.
        var row: InboxItem?
    }

    private let capacity: Int
    /// Oldest first.
    private var entries: [Entry] = []
    private var lastReference: UInt64 = 0

    public init(capacity: Int = Self.defaultCapacity) {
        self.capacity = max(capacity, 1)
    }

    /// A payload arrived.
    public mutating func arrive(_ key: Key) -> Arrival {
        guard !entries.contains(where: { $0.key == key }) else { return .alreadyShown }
        lastReference += 1
        append(Entry(key: key, reference: lastReference))
        return .new(reference: lastReference)
    }

    /// The payload `reference` could not be shown after all: forget it, so its row is shown
    /// when a poll finds it.
    public mutating func withdraw(_ reference: UInt64) {
        entries.removeAll { $0.reference == reference }
    }

    /// The row the payload `reference` turned out to be; nil until one is paired with it.
    public func row(of reference: UInt64) -> InboxItem? {
        entries.first { $0.reference == reference }?.row
    }

    /// The notices of one poll without those already shown by a payload, recording its new rows.
    ///
    /// - Parameters:
    ///   - cycle: what `InboxDiff.evaluate` made of `page` with `highWater`.
    ///   - page, highWater: what it was given; the new rows are the unread ones above the mark.
    /// - Returns: `cycle.notices` without the items already shown, and with a summary of new
    ///   rows counting only the rows not shown yet (none left: no summary). A first sight's
    ///   summary of what is unread stays as it is.
    public mutating func takePoll(_ cycle: InboxCycle, page: InboxPage, highWater: Int64?) -> [InboxCycle.Notice] {
        var newRows: [Int64: InboxItem] = [:]
        for row in page.items where row.id > (highWater ?? 0) && row.readAt == nil {
            newRows[row.id] = newRows[row.id] ?? row
        }
        var alreadyShown = Set<Int64>()
        for row in newRows.values.sorted(by: { $0.id < $1.id }) {
            if entries.contains(where: { $0.row?.id == row.id }) {
                alreadyShown.insert(row.id)
            } else if let index = entries.firstIndex(where: { $0.key == Key(row) && $0.reference != nil && $0.row == nil }) {
                entries[index].row = row
                alreadyShown.insert(row.id)
            } else {
                append(Entry(key: Key(row), row: row))
            }
        }
        guard !alreadyShown.isEmpty else { return cycle.notices }
        return cycle.notices.compactMap { notice in
            switch notice {
            case .item(let item):
                return alreadyShown.contains(item.id) ? nil : notice
            case .summary(_, _, _, isFirstSight: true):
                return notice
            case .summary(let count, let isAtLeast, let newestID, isFirstSight: false):
                let left = count - alreadyShown.count
                return left > 0 ? .summary(count: left, isAtLeast: isAtLeast, newestID: newestID, isFirstSight: false) : nil
            }
        }
    }

    /// Pairs the payload `reference` with its row in `rows` (a fresh unread list) when no poll
    /// has: the newest unread row of its key that no other notice holds. Nil when there is none.
    public mutating func lookUp(_ reference: UInt64, in rows: [InboxItem]) -> InboxItem? {
        guard let index = entries.firstIndex(where: { $0.reference == reference }) else { return nil }
        if let row = entries[index].row { return row }
        let key = entries[index].key
        let held = Set(entries.compactMap { $0.row?.id })
        let found = rows
            .filter { $0.id > 0 && $0.readAt == nil && Key($0) == key && !held.contains($0.id) }
            .max { $0.id < $1.id }
        entries[index].row = found
        return found
    }

    private mutating func append(_ entry: Entry) {
        entries.append(entry)
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
    }
}

/// The launcher badge's number: the unread count of every account, added up. Each account's
/// latest count replaces its previous one, so updates of different accounts can come in any
/// order. Counts are clamped to `OutsideCount`'s range and the total saturates, whatever the
/// accounts report.
public struct UnreadTally: Sendable, Equatable {
    private var counts: [Account: Int] = [:]

    public init() {}

    /// The accounts with a count.
    public var accounts: [Account] { Array(counts.keys) }

    public var total: Int {
        counts.values.reduce(0) { sum, count in
            let (added, overflow) = sum.addingReportingOverflow(count)
            return overflow ? .max : added
        }
    }

    /// Sets `account`'s count; true when the total changed.
    @discardableResult
    public mutating func set(_ count: Int, for account: Account) -> Bool {
        let before = total
        counts[account] = OutsideCount.clamped(count)
        return total != before
    }

    /// The account left: its count leaves the total. True when the total changed.
    @discardableResult
    public mutating func remove(_ account: Account) -> Bool {
        (counts.removeValue(forKey: account) ?? 0) != 0
    }
}

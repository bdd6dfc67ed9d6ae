/// The launcher badge's number: the unread count of every account, added up. Each account's
/// latest count replaces its previous one, so updates of different accounts can come in any
/// order.
public struct UnreadTally: Sendable, Equatable {
    private var counts: [Account: Int] = [:]

    public init() {}

    public var total: Int { counts.values.reduce(0, +) }

    /// Sets `account`'s count (negative counts as 0); true when the total changed.
    @discardableResult
    public mutating func set(_ count: Int, for account: Account) -> Bool {
        let before = total
        counts[account] = max(count, 0)
        return total != before
    }

    /// `read` notices of `account` were read here: lower its count at once (not below 0),
    /// before the next poll confirms it. True when the total changed.
    @discardableResult
    public mutating func lower(by read: Int, for account: Account) -> Bool {
        guard let count = counts[account], count > 0, read > 0 else { return false }
        counts[account] = max(count - read, 0)
        return true
    }

    /// The account left: its count leaves the total. True when the total changed.
    @discardableResult
    public mutating func remove(_ account: Account) -> Bool {
        (counts.removeValue(forKey: account) ?? 0) != 0
    }
}

/// Notices that could not be shown because no notification server was on the bus, kept until
/// one appears. Bounded: past `limit` rows per account only a count is kept, and the account's
/// notices then come out as one summary anyway.
public struct WaitingNotices: Sendable {
    /// What to show for one account once a server is there.
    public enum Release: Sendable, Equatable {
        /// Few enough to show one by one: newest first, as they were waiting the longest.
        case items([InboxItem])
        case summary(count: Int, isAtLeast: Bool, isUnread: Bool)
    }

    public static let defaultLimit = 50

    private struct Backlog: Sendable, Equatable {
        var items: [InboxItem] = []
        /// Rows counted but not kept: from summaries, or past the limit.
        var uncounted = 0
        var isAtLeast = false
        /// Every notice was a first-sight or start summary: what is unread, not what is new.
        var isUnread = true
    }

    private let limit: Int
    private let maxIndividual: Int
    private var backlogs: [Account: Backlog] = [:]

    public init(limit: Int = defaultLimit, maxIndividual: Int = 3) {
        self.limit = limit
        self.maxIndividual = maxIndividual
    }

    public var isEmpty: Bool { backlogs.isEmpty }

    public mutating func add(_ notices: [InboxCycle.Notice], for account: Account) {
        guard !notices.isEmpty else { return }
        var backlog = backlogs[account] ?? Backlog()
        for notice in notices {
            switch notice {
            case .item(let item):
                backlog.isUnread = false
                if backlog.items.count < limit {
                    backlog.items.append(item)
                } else {
                    backlog.uncounted += 1
                }
            case .summary(let count, let isAtLeast, _, let isFirstSight):
                backlog.uncounted += count
                backlog.isAtLeast = backlog.isAtLeast || isAtLeast
                backlog.isUnread = backlog.isUnread && isFirstSight
            }
        }
        backlogs[account] = backlog
    }

    /// Rows read elsewhere while they waited are not shown at all.
    public mutating func remove(_ ids: [Int64], for account: Account) {
        guard !ids.isEmpty, var backlog = backlogs[account] else { return }
        let gone = Set(ids)
        backlog.items.removeAll { gone.contains($0.id) }
        backlogs[account] = backlog.items.isEmpty && backlog.uncounted == 0 ? nil : backlog
    }

    public mutating func forget(_ account: Account) {
        backlogs[account] = nil
    }

    /// Everything waiting, per account (in the order of their ids), and an empty queue.
    public mutating func release() -> [(account: Account, release: Release)] {
        defer { backlogs = [:] }
        return backlogs.sorted { $0.key.id < $1.key.id }.map { account, backlog in
            let count = backlog.items.count + backlog.uncounted
            if backlog.uncounted == 0 && count <= maxIndividual {
                return (account, .items(backlog.items.reversed()))
            }
            return (account, .summary(count: count, isAtLeast: backlog.isAtLeast, isUnread: backlog.isUnread))
        }
    }
}

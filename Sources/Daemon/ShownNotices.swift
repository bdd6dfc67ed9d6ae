import PushCore
import Synchronization

/// One account's `NoticeLedger`, shared by its poll loop and the payloads delivered to it, and
/// whether a payload's badge has set the account's unread count since the last poll.
final class ShownNotices: Sendable {
    private struct State {
        var ledger = NoticeLedger()
        var badgeFromPayload = false
    }

    private let state = Mutex(State())

    func arrive(_ key: NoticeLedger.Key) -> NoticeLedger.Arrival {
        state.withLock { $0.ledger.arrive(key) }
    }

    func withdraw(_ reference: UInt64) {
        state.withLock { $0.ledger.withdraw(reference) }
    }

    func row(of reference: UInt64) -> InboxItem? {
        state.withLock { $0.ledger.row(of: reference) }
    }

    func takePoll(_ cycle: InboxCycle, page: InboxPage, highWater: Int64?) -> [InboxCycle.Notice] {
        state.withLock { $0.ledger.takePoll(cycle, page: page, highWater: highWater) }
    }

    func lookUp(_ reference: UInt64, in rows: [InboxItem]) -> InboxItem? {
        state.withLock { $0.ledger.lookUp(reference, in: rows) }
    }

    /// A payload's badge went to the presenter: the next poll hands it the count it finds even
    /// when that did not change, as the payload's may have been older.
    func badgeArrived() {
        state.withLock { $0.badgeFromPayload = true }
    }

    /// Whether a payload's badge came since the last call.
    func takeBadgeArrival() -> Bool {
        state.withLock { state in
            defer { state.badgeFromPayload = false }
            return state.badgeFromPayload
        }
    }
}

import Daemon
import PushCore

/// A presenter that remembers everything it is told, and shows individual notices "on screen"
/// until they are withdrawn, as a notification server would; delivered notices too, by the row
/// a poll paired with them.
final class RecordingPresenter: Presenter {
    enum Event: Sendable, Equatable {
        case update(AccountUpdate)
        case tokenRejected(Account)
        case forgotten(Account)
    }

    let events = Observed<[Event]>([])
    /// Every delivered notice, in order; kept apart from `events` as they carry closures.
    let delivered = Observed<[DeliveredNotice]>([])
    /// False: delivered notices find no notification server, and are not recorded.
    private let showsDelivered: Bool

    init(showsDelivered: Bool = true) {
        self.showsDelivered = showsDelivered
    }

    func present(_ update: AccountUpdate) async {
        events.update { $0.append(.update(update)) }
    }

    func present(_ notice: DeliveredNotice) async -> Bool {
        guard showsDelivered else { return false }
        delivered.update { $0.append(notice) }
        return true
    }

    func onScreen(for account: Account) async -> Set<Int64> {
        var shown = Set<Int64>()
        for update in updates(for: account) {
            for case .item(let item) in update.notices { shown.insert(item.id) }
            shown.subtract(update.withdrawn)
        }
        for notice in delivered.value where notice.account == account {
            if let row = notice.row { shown.insert(row.id) }
        }
        return shown
    }

    func tokenRejected(for account: Account) async {
        events.update { $0.append(.tokenRejected(account)) }
    }

    func forget(_ account: Account) async {
        events.update { $0.append(.forgotten(account)) }
    }

    func updates(for account: Account) -> [AccountUpdate] {
        Self.updates(in: events.value, for: account)
    }

    /// Every notice given for `account`, in order.
    func notices(for account: Account) -> [InboxCycle.Notice] {
        updates(for: account).flatMap(\.notices)
    }

    static func updates(in events: [Event], for account: Account) -> [AccountUpdate] {
        events.compactMap { event in
            guard case .update(let update) = event, update.account == account else { return nil }
            return update
        }
    }

    /// Waits until `account` has had `count` notices in all.
    @discardableResult
    func waitForNotices(_ count: Int, for account: Account) async throws -> [InboxCycle.Notice] {
        try await events.wait(for: "\(count) notices for \(account.id)") { events in
            Self.updates(in: events, for: account).flatMap(\.notices).count >= count
        }
        return notices(for: account)
    }

    /// Waits until `account` has had `count` updates in all, notices or not.
    @discardableResult
    func waitForUpdates(_ count: Int, for account: Account) async throws -> [AccountUpdate] {
        try await events.wait(for: "\(count) updates for \(account.id)") { events in
            Self.updates(in: events, for: account).count >= count
        }
        return updates(for: account)
    }
}

import Daemon
import Desktop
import PushCore

/// The desktop stage as the pollers see it: remembers everything it is handed, in order.
final class RecordingDesktop: Sendable {
    let news: Observed<[DesktopNews]>

    /// - Parameter demand: told of every wait on the news (`Harness.virtualTime`).
    init(demand: TimeDemand? = nil) {
        news = Observed([], demand: demand)
    }

    var sink: DesktopSink {
        { [news] item in news.update { $0.append(item) } }
    }

    func updates(for account: Account) -> [AccountUpdate] {
        Self.updates(in: news.value, for: account)
    }

    /// Every notice given for `account`, in order.
    func notices(for account: Account) -> [InboxCycle.Notice] {
        updates(for: account).flatMap(\.notices)
    }

    var rejectedTokens: [Account] {
        news.value.compactMap { if case .tokenRejected(let account) = $0 { account } else { nil } }
    }

    static func updates(in news: [DesktopNews], for account: Account) -> [AccountUpdate] {
        news.compactMap { item in
            guard case .update(let update) = item, update.account == account else { return nil }
            return update
        }
    }

    /// Waits until `account` has had `count` notices in all.
    @discardableResult
    func waitForNotices(_ count: Int, for account: Account) async throws -> [InboxCycle.Notice] {
        try await news.wait(for: "\(count) notices for \(account.id)") { news in
            Self.updates(in: news, for: account).flatMap(\.notices).count >= count
        }
        return notices(for: account)
    }

    /// Waits until `account` has had `count` updates in all, notices or not.
    @discardableResult
    func waitForUpdates(_ count: Int, for account: Account) async throws -> [AccountUpdate] {
        try await news.wait(for: "\(count) updates for \(account.id)") { news in
            Self.updates(in: news, for: account).count >= count
        }
        return updates(for: account)
    }
}

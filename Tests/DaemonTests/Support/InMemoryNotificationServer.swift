import Notifications
import Synchronization

/// A notification server in this process, behaving as dunst does where the desktop stage can
/// tell: ids from 1 up, a replacement keeps the id it names (of a notification closed since,
/// too: shown anew under it), a withdrawal answers NotificationClosed with reason 3, and a click
/// leaves the notification up. The test
/// clicks and dismisses as a user would. `NotificationServerContractTests` runs one scenario of
/// calls and clicks on this and on the real dunst and compares what each said.
final class InMemoryNotificationServer: NotificationServer {
    /// One `Notify` call as the server took it.
    struct Shown: Sendable, Equatable {
        let id: UInt32
        let replacing: UInt32?
        let notification: Notification
    }

    private struct State {
        var open: [UInt32: Notification] = [:]
        var nextID: UInt32 = 1
    }

    static let owner = ":1.in-memory"

    let events: AsyncStream<NotificationEvent>
    private let feed: AsyncStream<NotificationEvent>.Continuation
    private let state = Mutex(State())
    /// Every notification shown, in order; tests wait on it.
    let shown = Observed<[Shown]>([])
    /// Every notification withdrawn by a call, in order.
    let closed = Observed<[UInt32]>([])

    init() {
        (events, feed) = AsyncStream.makeStream(of: NotificationEvent.self)
        feed.yield(.serverChanged(owner: Self.owner))
    }

    deinit {
        feed.finish()
    }

    // MARK: - The daemon's side

    func serverCapabilities() async -> [String]? {
        ["actions", "body", "body-hyperlinks", "body-markup", "icon-static", "persistence"]
    }

    func serverInformation() async -> ServerInformation? {
        ServerInformation(name: "in-memory", vendor: "gbnotify tests", version: "1")
    }

    func serverOwner() async -> String? { Self.owner }

    func show(_ notification: Notification, replacing: UInt32?) async throws(NotificationError) -> UInt32 {
        let id = state.withLock { state in
            let id = replacing ?? state.nextID
            state.nextID = max(state.nextID, id + 1)
            state.open[id] = notification
            return id
        }
        shown.update { $0.append(Shown(id: id, replacing: replacing, notification: notification)) }
        return id
    }

    func close(_ id: UInt32) async throws(NotificationError) {
        guard state.withLock({ $0.open.removeValue(forKey: id) }) != nil else { return }
        closed.update { $0.append(id) }
        feed.yield(.closed(id: id, reason: 3))
    }

    // MARK: - The user's side

    /// The notifications on screen now, by id.
    var onScreen: [UInt32: Notification] { state.withLock { $0.open } }

    /// A click on the button of `key` (`default`: the body), which leaves the notification up.
    func click(_ id: UInt32, _ key: String = "default") {
        feed.yield(.action(id: id, key: key))
    }

    /// The user closes it: NotificationClosed with reason 2.
    func dismiss(_ id: UInt32) {
        guard state.withLock({ $0.open.removeValue(forKey: id) }) != nil else { return }
        feed.yield(.closed(id: id, reason: 2))
    }
}

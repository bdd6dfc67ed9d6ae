import Notifications
import Synchronization

/// A notification server in this process, behaving as dunst does where the desktop stage can
/// tell: ids from 1 up, a replacement keeps the id it names (of a notification closed since,
/// too: shown anew under it), a withdrawal answers NotificationClosed with reason 3, a click
/// leaves the notification up, and what it says about a notification goes to the connection
/// that last showed it alone. Each desktop stage talks to it through a connection of its own
/// (`connect()`), which a kill -9 of its daemon takes away. The test clicks and dismisses as a
/// user would. `NotificationServerContractTests` runs one scenario of calls and clicks on this
/// and on the real dunst and compares what each said.
final class InMemoryNotificationServer: Sendable {
    /// One `Notify` call as the server took it.
    struct Shown: Sendable, Equatable {
        let id: UInt32
        let replacing: UInt32?
        let notification: Notification
    }

    /// A connection to the server: what a desktop stage is given as its `NotificationServer`.
    final class Connection: NotificationServer {
        let events: AsyncStream<NotificationEvent>
        fileprivate let feed: AsyncStream<NotificationEvent>.Continuation
        private let server: InMemoryNotificationServer
        private let isConnected = Mutex(true)

        fileprivate init(to server: InMemoryNotificationServer) {
            self.server = server
            (events, feed) = AsyncStream.makeStream(of: NotificationEvent.self)
            feed.yield(.serverChanged(owner: InMemoryNotificationServer.owner))
        }

        /// The connection goes, as a killed process's does: its calls fail from now on.
        func disconnect() {
            isConnected.withLock { $0 = false }
            feed.finish()
        }

        func serverCapabilities() async -> [String]? {
            ["actions", "body", "body-hyperlinks", "body-markup", "icon-static", "persistence"]
        }

        func serverInformation() async -> ServerInformation? {
            ServerInformation(name: "in-memory", vendor: "gbnotify tests", version: "1")
        }

        func serverOwner() async -> String? { InMemoryNotificationServer.owner }

        func show(_ notification: Notification, replacing: UInt32?) async throws(NotificationError) -> UInt32 {
            try checkConnected()
            return server.show(notification, replacing: replacing, from: self)
        }

        func close(_ id: UInt32) async throws(NotificationError) {
            try checkConnected()
            server.close(id)
        }

        private func checkConnected() throws(NotificationError) {
            guard isConnected.withLock({ $0 }) else {
                throw NotificationError(name: "org.freedesktop.DBus.Error.Disconnected", message: "the connection is closed")
            }
        }
    }

    private struct State {
        var open: [UInt32: Notification] = [:]
        /// The connection that last showed each notification, which hears what becomes of it.
        var senders: [UInt32: Connection] = [:]
        var nextID: UInt32 = 1
    }

    static let owner = ":1.in-memory"

    private let state = Mutex(State())
    /// Every notification shown, in order; tests wait on it.
    let shown = Observed<[Shown]>([])
    /// Every notification withdrawn by a call, in order.
    let closed = Observed<[UInt32]>([])

    /// A new connection, for one desktop stage.
    func connect() -> Connection {
        Connection(to: self)
    }

    private func show(_ notification: Notification, replacing: UInt32?, from sender: Connection) -> UInt32 {
        let id = state.withLock { state in
            let id = replacing ?? state.nextID
            state.nextID = max(state.nextID, id + 1)
            state.open[id] = notification
            state.senders[id] = sender
            return id
        }
        shown.update { $0.append(Shown(id: id, replacing: replacing, notification: notification)) }
        return id
    }

    private func close(_ id: UInt32) {
        guard let sender = state.withLock({ $0.open.removeValue(forKey: id) == nil ? nil : $0.senders[id] }) else { return }
        closed.update { $0.append(id) }
        sender.feed.yield(.closed(id: id, reason: 3))
    }

    // MARK: - The user's side

    /// The notifications on screen now, by id.
    var onScreen: [UInt32: Notification] { state.withLock { $0.open } }

    /// A click on the button of `key` (`default`: the body), which leaves the notification up.
    func click(_ id: UInt32, _ key: String = "default") {
        state.withLock { $0.senders[id] }?.feed.yield(.action(id: id, key: key))
    }

    /// The user closes it: NotificationClosed with reason 2.
    func dismiss(_ id: UInt32) {
        guard let sender = state.withLock({ $0.open.removeValue(forKey: id) == nil ? nil : $0.senders[id] }) else { return }
        sender.feed.yield(.closed(id: id, reason: 2))
    }
}

import DBus
import Glibc
import Synchronization
import TestSupport

/// Microseconds of CLOCK_MONOTONIC, the clock Python's `time.monotonic()` reads, so times taken
/// here and in bench.py can be subtracted from one another.
func monotonicMicroseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return now.tv_sec * 1_000_000 + now.tv_nsec / 1_000
}

/// `org.freedesktop.Notifications` that answers every call at once and draws nothing: what is
/// left of "payload in → `Notify` on the bus" against it is gbnotifyd's own share, not a
/// notification server's. It notes when each `Notify` reaches its handler and keeps the notes
/// in memory, so that writing them out costs nothing while a daemon waits for a reply.
final class InstantServer: Sendable {
    /// One `Notify` call: the moment it was handed to its handler, and its body.
    struct Receipt: Encodable, Sendable {
        let t: Int
        let body: String
    }

    private struct State {
        var receipts: [Receipt] = []
        var nextID: UInt32 = 1
        var open: Set<UInt32> = []
    }

    /// dunst's own interface, reduced to the one method `dunstctl close-all` and gbnotify-bench
    /// call between two measurements.
    private static let dunstIntrospection = """
        <interface name="org.dunstproject.cmd0">
          <method name="NotificationCloseAll"/>
        </interface>
        """

    private let connection: DBusConnection
    private let state = Mutex(State())

    private init(connection: DBusConnection) {
        self.connection = connection
    }

    /// Serves the name on the session bus; throws when another server owns it.
    static func start() async throws -> InstantServer {
        let server = InstantServer(connection: try await DBusConnection.connect())
        try await server.connection.export(
            path: NotificationsInterface.path, interface: NotificationsInterface.name, introspection: NotificationsInterface.introspection,
            methods: [
                DBusMethod("GetCapabilities", output: "as") { _ in
                    [.stringArray(["actions", "body", "body-markup"])]
                },
                DBusMethod("Notify", input: "susssasa{sv}i", output: "u") { [server] call in
                    let received = monotonicMicroseconds()
                    return [.uint32(server.notify(call.arguments, received: received))]
                },
                DBusMethod("CloseNotification", input: "u") { [server] call in
                    server.close([call.arguments[0].uint32Value ?? 0], reason: 3)
                    return []
                },
                DBusMethod("GetServerInformation", output: "ssss") { _ in
                    [.string("gbnotify-bench"), .string("gitbay"), .string("0"), .string("1.2")]
                },
            ])
        // Closing what is open tells the daemon so, as dunst does: its own bookkeeping then
        // stays the size it has in the runs against dunst.
        try await server.connection.export(
            path: NotificationsInterface.path, interface: "org.dunstproject.cmd0", introspection: dunstIntrospection,
            methods: [
                DBusMethod("NotificationCloseAll") { [server] _ in
                    server.close(server.state.withLock { Array($0.open) }, reason: 2)
                    return []
                }
            ])
        guard try await server.connection.requestName(NotificationsInterface.name) else {
            await server.connection.close()
            throw DBusError(
                name: DBusError.Name.failed,
                message: "another notification server owns \(NotificationsInterface.name); stop it first")
        }
        return server
    }

    /// Every `Notify` received so far, in order.
    var receipts: [Receipt] {
        state.withLock { $0.receipts }
    }

    func stop() async {
        await connection.close()
    }

    private func notify(_ arguments: [DBusValue], received: Int) -> UInt32 {
        let replaces = arguments[1].uint32Value ?? 0
        return state.withLock { state in
            state.receipts.append(Receipt(t: received, body: arguments[4].stringValue ?? ""))
            if replaces != 0, state.open.contains(replaces) { return replaces }
            defer { state.nextID += 1 }
            state.open.insert(state.nextID)
            return state.nextID
        }
    }

    /// - Parameter reason: the freedesktop spec's: 2 dismissed by the user, 3 closed by a call.
    private func close(_ ids: [UInt32], reason: UInt32) {
        for id in ids where state.withLock({ $0.open.remove(id) != nil }) {
            try? connection.emitSignal(
                path: NotificationsInterface.path, interface: NotificationsInterface.name, member: "NotificationClosed",
                arguments: [.uint32(id), .uint32(reason)])
        }
    }
}

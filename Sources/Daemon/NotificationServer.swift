import DBus
import PushCore

/// `org.freedesktop.Notifications`, whoever owns it, spoken over the daemon's connection.
struct NotificationServer: Sendable {
    static let busName = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"
    static let interface = "org.freedesktop.Notifications"

    /// A server that does not answer `Notify` within this is treated as refusing it.
    static let callTimeout = Duration.seconds(5)

    /// What the server tells about our notifications.
    enum Event: Sendable, Equatable {
        case actionInvoked(id: UInt32, key: String)
        /// Comes just before the `actionInvoked` it belongs to.
        case activationToken(id: UInt32, token: String)
        case closed(id: UInt32)
    }

    let connection: DBusConnection

    func capabilities() async throws -> NotificationCapabilities {
        let reply = try await call("GetCapabilities", [])
        return NotificationCapabilities(advertised: reply.first?.stringArrayValue ?? [])
    }

    /// Shows `content` in place of the notification `replacing` (0: none, or one the server no
    /// longer has); returns the server's id for it.
    func notify(_ content: NotificationContent, replacing: UInt32 = 0) async throws -> UInt32 {
        var hints: [String: DBusValue] = [
            "desktop-entry": .string(NotificationContent.desktopEntry),
            "urgency": .byte(content.urgency.rawValue),
        ]
        if let category = content.category { hints["category"] = .string(category) }
        let reply = try await call("Notify", [
            .string(NotificationContent.appName), .uint32(replacing), .string(""), .string(content.summary),
            .string(content.body), .stringArray(content.actions), .vardict(hints), .int32(-1),
        ])
        guard let id = reply.first?.uint32Value else {
            throw DBusError(name: DBusError.Name.failed, message: "Notify answered without a notification id")
        }
        return id
    }

    /// Withdraws a notification; one the server already closed is no error to it.
    func close(_ id: UInt32) async throws {
        _ = try await call("CloseNotification", [.uint32(id)])
    }

    /// The server's signals, from any owner (servers broadcast them; GNOME sends them to the
    /// caller of `Notify` alone, which reaches this subscription as well). Read each with
    /// `event(_:)`; the ids still need checking against our own.
    func signals() async throws -> AsyncStream<DBusSignal> {
        try await connection.signals(matching: DBusMatchRule(path: Self.path, interface: Self.interface))
    }

    /// A signal of the wrong shape is nil, and dropped.
    static func event(_ signal: DBusSignal) -> Event? {
        let arguments = signal.arguments
        guard arguments.count == 2, let id = arguments[0].uint32Value else { return nil }
        switch signal.member {
        case "ActionInvoked": return arguments[1].stringValue.map { .actionInvoked(id: id, key: $0) }
        case "ActivationToken": return arguments[1].stringValue.map { .activationToken(id: id, token: $0) }
        case "NotificationClosed": return .closed(id: id)
        default: return nil
        }
    }

    private func call(_ member: String, _ arguments: [DBusValue]) async throws -> [DBusValue] {
        try await connection.call(
            destination: Self.busName, path: Self.path, interface: Self.interface, member: member, arguments: arguments,
            timeout: Self.callTimeout)
    }
}

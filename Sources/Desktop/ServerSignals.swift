import DBus
import Notifications

/// What the notification server says about one of our notifications.
enum ServerEvent: Sendable, Equatable {
    case action(id: UInt32, key: String, activationToken: String?)
    /// Comes just before the `action` it belongs to.
    case activationToken(id: UInt32, token: String)
    case closed(id: UInt32, reason: UInt32)

    var id: UInt32 {
        switch self {
        case .action(let id, _, _), .activationToken(let id, _), .closed(let id, _): id
        }
    }

    init(_ event: NotificationClient.Event) {
        switch event {
        case .action(let id, let key, let token): self = .action(id: id, key: key, activationToken: token)
        case .closed(let id, let reason): self = .closed(id: id, reason: reason)
        }
    }
}

/// The notification server's signals as broadcast on the bus, heard over the daemon's own
/// connection: how clicks on notifications an earlier daemon left on screen arrive. (libnotify
/// hears of the ones this process showed.) GNOME Shell broadcasts them from its own name while
/// a helper of its owns `org.freedesktop.Notifications`; Plasma from the name's owner.
struct ServerSignals: Sendable {
    static let busName = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"
    static let interface = "org.freedesktop.Notifications"
    /// GNOME Shell's own name, whose broadcasts count as the server's.
    static let gnomeShellName = "org.gnome.Shell"

    static let matchRule = DBusMatchRule(path: path, interface: interface)

    let connection: DBusConnection

    /// A signal of the server's interface as an event; nil for one of the wrong shape.
    static func event(_ signal: DBusSignal) -> ServerEvent? {
        let arguments = signal.arguments
        guard arguments.count == 2, let id = arguments[0].uint32Value else { return nil }
        switch signal.member {
        case "ActionInvoked": return arguments[1].stringValue.map { .action(id: id, key: $0, activationToken: nil) }
        case "ActivationToken": return arguments[1].stringValue.map { .activationToken(id: id, token: $0) }
        case "NotificationClosed": return arguments[1].uint32Value.map { .closed(id: id, reason: $0) }
        default: return nil
        }
    }

    /// Whether the server sent `signal`: the owner of its name, or GNOME Shell. Anyone else
    /// could otherwise click our notifications for the user.
    func isFromServer(_ signal: DBusSignal, serverOwner: String?) async -> Bool {
        if signal.sender == serverOwner { return true }
        return signal.sender == (try? await connection.nameOwner(Self.gnomeShellName)) ?? nil
    }
}

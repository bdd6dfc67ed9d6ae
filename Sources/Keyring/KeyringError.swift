import CSecret

/// Why the keyring could not be used. Never carries a token: libsecret's messages name
/// services, objects and attributes, not secrets.
public enum KeyringError: Error, Equatable, CustomStringConvertible {
    /// Nothing owns `org.freedesktop.secrets` on the session bus.
    case serviceUnavailable
    /// The collection is locked, and the unlock prompt was dismissed or could not be shown.
    case locked
    /// No session bus could be reached.
    case noSessionBus
    /// Anything else, with GLib's message.
    case failed(String)

    public var description: String {
        switch self {
        case .serviceUnavailable:
            "no Secret Service is running on the session bus (nothing owns org.freedesktop.secrets); "
                + "install and start one: gnome-keyring (apt install gnome-keyring, started by the desktop "
                + "session) or KeePassXC with its Secret Service integration enabled. A D-Bus session bus "
                + "must be running too."
        case .locked:
            "the keyring is locked and was not unlocked (the unlock prompt was dismissed or could not be "
                + "shown); unlock it, for example in Passwords and Keys (seahorse) or KeePassXC, and try again"
        case .noSessionBus:
            "cannot reach a D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset or its bus is gone); "
                + "the keyring is only reachable from inside a desktop session (or dbus-run-session)"
        case .failed(let message):
            "the keyring failed: \(message)"
        }
    }

    init(_ error: GLibError) {
        if error.is(g_dbus_error_quark(), G_DBUS_ERROR_SERVICE_UNKNOWN.rawValue) {
            // libsecret talks to one bus name only, so the unknown service is org.freedesktop.secrets.
            self = .serviceUnavailable
        } else if error.is(secret_error_get_quark(), SECRET_ERROR_IS_LOCKED.rawValue) {
            self = .locked
        } else {
            self = .failed(error.message)
        }
    }
}

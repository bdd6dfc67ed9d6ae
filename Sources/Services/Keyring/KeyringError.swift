internal import CSecret

/// Why the keyring could not be used. Never carries a token: libsecret's messages name
/// services, objects and attributes, not secrets.
public enum KeyringError: Error, Equatable, CustomStringConvertible {
    /// Nothing owns `org.freedesktop.secrets` on the session bus.
    case serviceUnavailable
    /// No session bus could be reached.
    case noSessionBus
    /// The keyring is locked: its unlock prompt was dismissed, or none could be shown.
    case locked
    /// The Secret Service refused this program access to the items (KeePassXC's access
    /// dialog answered "Deny"); the keyring itself is unlocked.
    case accessRefused
    /// The Secret Service did not answer within the time the caller allowed (or D-Bus's).
    case timedOut
    /// Anything else, with libsecret's (or the bus's) message.
    case failed(String)

    public var description: String {
        switch self {
        case .serviceUnavailable:
            "no Secret Service is running on the session bus (nothing owns org.freedesktop.secrets); "
                + "install and start one: gnome-keyring (apt install gnome-keyring, started by the desktop "
                + "session), KeePassXC with its Secret Service integration enabled, or KWallet with its "
                + "Secret Service API enabled. A D-Bus session bus must be running too."
        case .noSessionBus:
            "cannot reach a D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset or its bus is gone); "
                + "the keyring is only reachable from inside a desktop session (or dbus-run-session)"
        case .locked:
            "the keyring is locked: its unlock prompt was dismissed or could not be shown; unlock it "
                + "(in its own dialog, Passwords and Keys (seahorse), KeePassXC or KWallet) and try again"
        case .accessRefused:
            "the keyring refused this program access to its gitbay items (its access dialog was answered "
                + "with Deny); allow it, for example in KeePassXC's Secret Service settings, and try again"
        case .timedOut:
            "the keyring did not answer in time; if it shows a dialog, answer it, and try again"
        case .failed(let message):
            "the keyring failed: \(message)"
        }
    }
}

extension KeyringError {
    /// A libsecret or GDBus error as the keyring reports it. `cancelled` says what a
    /// cancellation meant: the caller's deadline passing, or the calling task cancelled.
    init(_ error: GLibError, cancelled: KeyringError) {
        if error.is(g_io_error_quark(), G_IO_ERROR_CANCELLED.rawValue) {
            self = cancelled
        } else if error.isOneOf(g_dbus_error_quark(), [G_DBUS_ERROR_SERVICE_UNKNOWN, G_DBUS_ERROR_NAME_HAS_NO_OWNER]) {
            // libsecret talks to one bus name only, so the unknown service is org.freedesktop.secrets.
            self = .serviceUnavailable
        } else if error.is(secret_error_get_quark(), SECRET_ERROR_IS_LOCKED.rawValue) {
            self = .locked
        } else if error.isOneOf(g_dbus_error_quark(), [G_DBUS_ERROR_NO_REPLY, G_DBUS_ERROR_TIMEOUT, G_DBUS_ERROR_TIMED_OUT])
            || error.is(g_io_error_quark(), G_IO_ERROR_TIMED_OUT.rawValue)
        {
            self = .timedOut
        } else if error.is(g_dbus_error_quark(), G_DBUS_ERROR_ACCESS_DENIED.rawValue) {
            self = .accessRefused
        } else if error.is(g_io_error_quark(), G_IO_ERROR_CLOSED.rawValue) {
            self = .noSessionBus
        } else {
            self = .failed(error.message)
        }
    }
}

import DBus

/// Why the keyring could not be used. Never carries a token: the Secret Service's messages
/// name services, objects and attributes, not secrets, and every secret travels encrypted.
public enum KeyringError: Error, Equatable, CustomStringConvertible {
    /// Nothing owns `org.freedesktop.secrets` on the session bus.
    case serviceUnavailable
    /// The collection is locked, and the unlock prompt was dismissed or could not be shown.
    case locked
    /// No session bus could be reached.
    case noSessionBus
    /// Anything else, with the service's (or the bus's) message.
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

    /// Whatever a Secret Service call threw, as the keyring reports it.
    init(_ error: any Error) {
        switch error {
        case let error as KeyringError:
            self = error
        case let error as DBusError:
            switch error.name {
            // Every call goes to one bus name, so the unknown service is org.freedesktop.secrets.
            case DBusError.Name.serviceUnknown, DBusError.Name.nameHasNoOwner: self = .serviceUnavailable
            case SecretService.ErrorName.isLocked: self = .locked
            case DBusError.Name.disconnected: self = .noSessionBus
            default: self = .failed("\(error)")
            }
        case is CancellationError:
            self = .failed("the keyring call was cancelled")
        default:
            self = .failed("\(error)")
        }
    }
}

extension KeyringError {
    /// A libcrypto call of the session's key exchange or cipher failed; `what` says which.
    static func openSSLFailed(_ what: String) -> KeyringError {
        .failed("OpenSSL could not \(what) for the Secret Service session")
    }
}

import DBus
import Notifications

/// GNOME Shell's broadcast of the notification server's signals, heard over the daemon's own
/// connection: how clicks on notifications an earlier daemon left on screen arrive there (the
/// server's own copy goes to the sender of the notification's Notify, which is gone). GNOME
/// Shell broadcasts them from its own name while a helper of its owns
/// `org.freedesktop.Notifications`.
struct ServerSignals: Sendable {
    /// GNOME Shell's own name, whose broadcasts count as the server's.
    static let gnomeShellName = "org.gnome.Shell"

    static let matchRule = DBusMatchRule(path: NotificationClient.path, interface: NotificationClient.interface)

    let connection: DBusConnection

    /// Whether GNOME Shell sent `signal`: anyone else could otherwise click our notifications
    /// for the user.
    func isFromGnomeShell(_ signal: DBusSignal) async -> Bool {
        signal.sender == (try? await connection.nameOwner(Self.gnomeShellName)) ?? nil
    }
}

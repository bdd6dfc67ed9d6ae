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
    /// The name of GNOME Shell's helper, which owns `org.freedesktop.Notifications` while GNOME
    /// Shell is the notification server.
    static let gnomeShellHelperName = "org.gnome.Shell.Notifications"

    static let matchRule = DBusMatchRule(path: NotificationClient.path, interface: NotificationClient.interface)

    let connection: DBusConnection

    /// Whether GNOME Shell sent `signal` while it is the notification server (`serverOwner`
    /// is its helper): anyone else could otherwise click our notifications for the user, and a
    /// peer that owns `org.gnome.Shell` beside dunst or Plasma is not the server.
    func isFromGnomeShell(_ signal: DBusSignal, serverOwner: String?) async -> Bool {
        guard let serverOwner, (try? await connection.nameOwner(Self.gnomeShellHelperName)) == serverOwner else { return false }
        return signal.sender == (try? await connection.nameOwner(Self.gnomeShellName)) ?? nil
    }
}

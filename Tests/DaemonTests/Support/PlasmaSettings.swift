import DBus
import Foundation
import TestSupport
import Testing

extension PlasmaShell {
    /// How long Plasma shows a popup before it expires to its history.
    enum PopupTimeout: Sendable {
        /// Plasma's own 5 s.
        case standard
        /// A minute: Plasma's setting "Hide after", as a user may choose it.
        case long
    }

    /// Plasma's popup timeout (`plasmanotifyrc`), written as its settings page writes it and
    /// announced as KConfig announces a change (`org.kde.kconfig.notify.ConfigChanged`, which
    /// plasmashell's config watcher hears; Debian 12's kwriteconfig5 cannot send it yet);
    /// returns once plasmashell has heard it (see `settle()`).
    func setPopupTimeout(_ timeout: PopupTimeout) async throws {
        var environment = session.environment
        environment["XDG_CONFIG_HOME"] = "\(session.directory)/home/.config"
        let write = ["kwriteconfig5", "--file", "plasmanotifyrc", "--group", "Notifications", "--key", "PopupTimeout"]
        let written = try await Program.run(write + (timeout == .long ? ["60000"] : ["--delete", ""]), environment: environment)
        try #require(written.status == 0, "kwriteconfig5: \(written.stderr)")
        try await session.withConnection { connection in
            let announced = try await connection.signals(
                matching: DBusMatchRule(path: "/plasmanotifyrc", interface: "org.kde.kconfig.notify", member: "ConfigChanged"))
            let sent = try await Program.run(
                ["gdbus", "emit", "--session", "--object-path", "/plasmanotifyrc", "--signal",
                 "org.kde.kconfig.notify.ConfigChanged", "{'Notifications': [b'PopupTimeout']}"],
                environment: environment)
            try #require(sent.status == 0, "gdbus emit: \(sent.stderr)")
            // Heard here, it was queued for plasmashell too: settle() then comes after it.
            try await withDeadline(.seconds(30), "the ConfigChanged signal") {
                for await _ in announced { return }
            }
        }
        try await settle()
    }

    /// Returns once plasmashell has handled every message sent to it before this call, the
    /// signals of other senders that reached this process first included: the bus queues a
    /// signal to all its receivers at once, and plasmashell answers its messages in order.
    func settle() async throws {
        _ = try await session.withConnection { connection in
            try await connection.call(
                destination: NotificationsInterface.name, path: NotificationsInterface.path,
                interface: NotificationsInterface.name, member: "GetCapabilities")
        }
    }
}

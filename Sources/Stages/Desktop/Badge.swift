import DBus
import Logging
import PushCore

/// The unread badge on the launcher icon of the shipped desktop entry, as docks read it
/// (`com.canonical.Unity.LauncherEntry.Update`): the sum of every account's unread count.
///
/// Cleared at start until the first polls answer and on a clean stop: Plasma keeps the last
/// count it was sent after the sender has left the bus.
struct Badge: Sendable {
    /// A dock that shows badges owns this name; it asks for nothing, so the count is sent again
    /// whenever one appears.
    static let dockName = "com.canonical.Unity"
    /// Any path works; snap confinement allows only this shape.
    static let path = "/com/canonical/unity/launcherentry/1"
    static let interface = "com.canonical.Unity.LauncherEntry"
    static let appURI = "application://\(NotificationContent.desktopEntry).desktop"

    private let connection: DBusConnection
    private var tally = UnreadTally()

    init(connection: DBusConnection) {
        self.connection = connection
    }

    mutating func set(_ count: Int, for account: Account, logger: Logger) {
        if tally.set(count, for: account) { send(logger: logger) }
    }

    /// Accounts no longer polled leave the sum.
    mutating func keep(only accounts: [Account], logger: Logger) {
        var changed = false
        for account in tally.accounts where !accounts.contains(account) {
            changed = tally.remove(account) || changed
        }
        if changed { send(logger: logger) }
    }

    func resend(logger: Logger) {
        send(logger: logger)
    }

    /// No count, and the badge hidden.
    mutating func clear(logger: Logger) {
        tally = UnreadTally()
        send(logger: logger)
    }

    private func send(logger: Logger) {
        let count = tally.total
        do {
            try connection.emitSignal(
                path: Self.path, interface: Self.interface, member: "Update",
                arguments: [.string(Self.appURI), .vardict(["count": .int64(Int64(count)), "count-visible": .bool(count > 0)])])
        } catch {
            logger.warning("cannot update the launcher badge: \(error)")
        }
    }
}

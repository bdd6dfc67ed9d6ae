import DBus
import PushCore

/// The unread badge on the launcher icon of the shipped desktop entry, as docks read it:
/// `com.canonical.Unity.LauncherEntry.Update`. Docks drop it when we leave the bus.
struct LauncherBadge: Sendable {
    /// A dock that shows badges owns this name; it asks for nothing, so the count is sent again
    /// whenever one appears.
    static let dockName = "com.canonical.Unity"
    /// Any path works; snap confinement allows only this shape.
    static let path = "/com/canonical/unity/launcherentry/1"
    static let interface = "com.canonical.Unity.LauncherEntry"
    static let appURI = "application://\(NotificationContent.desktopEntry).desktop"

    let connection: DBusConnection

    /// Shows `count`; zero hides the badge.
    func show(_ count: Int) throws {
        try connection.emitSignal(
            path: Self.path, interface: Self.interface, member: "Update",
            arguments: [.string(Self.appURI), .vardict(["count": .int64(Int64(count)), "count-visible": .bool(count > 0)])])
    }
}

import DBus
import Foundation
import PushCore
import TestSupport
import Testing

/// The launcher badge for gbnotify's desktop entry: every `com.canonical.Unity.LauncherEntry`
/// `Update` gbnotifyd sends, as (count, count-visible), and what Plasma's task manager made of
/// them.
final class BadgeWatch: Sendable {
    let updates = Observed<[(count: Int64, visible: Bool)]>([])
    private let plasma: PlasmaShell
    private let connection: DBusConnection
    private let listening: Task<Void, Never>

    init(on session: DesktopSession) async throws {
        plasma = PlasmaShell(session)
        connection = try await session.connect()
        let stream = try await connection.signals(
            matching: DBusMatchRule(interface: "com.canonical.Unity.LauncherEntry", member: "Update"))
        let updates = updates
        listening = Task {
            for await update in stream where update.arguments.first?.stringValue == "application://gbnotify.desktop" {
                let properties = update.arguments.last?.vardictValue ?? [:]
                guard let count = properties["count"]?.int64Value, let visible = properties["count-visible"]?.boolValue
                else { continue }
                updates.update { $0.append((count, visible)) }
            }
        }
    }

    /// Waits until the last update sent says `count` (shown when above 0), then returns what
    /// Plasma's task manager holds once it has handled it.
    @discardableResult
    func plasma(showing count: Int64) async throws -> PlasmaShell.Badge {
        try await updates.wait(for: "a badge of \(count)") { $0.last.map { $0.count == count && $0.visible == (count > 0) } == true }
        try await plasma.settle()
        return try await plasma.badge(for: NotificationContent.desktopEntry)
    }

    func close() async {
        listening.cancel()
        await connection.close()
    }
}


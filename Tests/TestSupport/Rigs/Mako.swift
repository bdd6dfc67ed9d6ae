import DBus
import Foundation

/// mako (1.7, or 1.10 from Debian 13) in a `DesktopSession`, read through its own bus interface
/// (`fr.emersion.Mako`'s `ListNotifications`, what makoctl 1.7 printed as JSON; 1.10's prints
/// text) and acted on with the desktop's own `makoctl`, as its users do: mako draws no buttons,
/// and an action is `makoctl invoke` (or `makoctl menu`). A notification stays after
/// an action; it goes when it is dismissed, closed by its sender or expires.
///
/// mako's list changes only when it answers a call (Notify, CloseNotification, makoctl's) or
/// closes one itself (NotificationClosed): `waitForNotifications` wakes on exactly those, seen by
/// a bus monitor, never on a timer. Every call goes to `org.freedesktop.Notifications`, so on a
/// session where mako is started on demand, the first one starts it.
public struct Mako: Sendable {
    public let session: DesktopSession

    public init(_ session: DesktopSession) {
        precondition(session.server == .mako, "a \(session.server) session has no mako")
        self.session = session
    }

    /// One notification as mako lists it.
    public struct Notification: Sendable, Equatable {
        public let id: UInt32
        public let appName: String
        public let appIcon: String
        public let category: String
        public let title: String
        /// The body as Notify sent it (mako renders its markup when it draws).
        public let body: String
        /// Action key to label; mako lists them as a dictionary, in no order.
        public let actions: [String: String]
    }

    /// Every notification mako holds now.
    public func notifications() async throws -> [Notification] {
        let reply = try await session.withConnection { connection in
            try await connection.call(
                destination: NotificationsInterface.name, path: "/fr/emersion/Mako", interface: "fr.emersion.Mako",
                member: "ListNotifications")
        }
        return try Self.decode(reply)
    }

    /// The notifications once `condition` holds: checked now, then each time mako has answered
    /// a call other than makoctl's list, or sent a signal.
    @discardableResult
    public func waitForNotifications(
        timeout: Duration = .seconds(30), where condition: @escaping @Sendable ([Notification]) -> Bool
    ) async throws -> [Notification] {
        let traffic = try await BusTraffic.watch(session, matching: [
            "type='method_call',interface='org.freedesktop.Notifications'", "type='method_call',interface='fr.emersion.Mako'",
            "type='method_return'", "type='error'", "type='signal',interface='org.freedesktop.Notifications'",
        ])
        defer { Task { await traffic.stop() } }
        return try await traffic.wait(timeout: timeout, "mako's notifications as the test wants them", wakingOn: Self.changesTheList) { _ in
            let found = try await notifications()
            return condition(found) ? found : nil
        }
    }

    /// The calls after whose answer mako's list may differ (of org.freedesktop.Notifications and
    /// mako's own fr.emersion.Mako).
    static let changingCalls: Set = [
        "Notify", "CloseNotification", "DismissAllNotifications", "DismissGroupNotifications", "DismissLastNotification",
        "DismissNotification", "DismissNotifications", "InvokeAction", "RestoreNotification",
    ]

    static func changesTheList(_ message: BusTraffic.Message) -> Bool {
        switch message.kind {
        case .signal: true
        case .methodReturn, .error: changingCalls.contains(message.answering?.member ?? "")
        case .methodCall: false
        }
    }

    /// `makoctl invoke -n ID ACTION`: mako sends ActionInvoked(id, action) and keeps the
    /// notification.
    public func invoke(_ action: String = "default", on id: UInt32) async throws {
        try await makoctl("invoke", "-n", String(id), action)
    }

    /// `makoctl dismiss -n ID`: NotificationClosed(id, 2), as a user's click would.
    public func dismiss(_ id: UInt32) async throws {
        try await makoctl("dismiss", "-n", String(id))
    }

    /// `makoctl dismiss --all`.
    public func dismissAll() async throws {
        try await makoctl("dismiss", "--all")
    }

    @discardableResult
    private func makoctl(_ arguments: String...) async throws -> String {
        try await session.runChecked(session.inDesktop(["makoctl"] + arguments))
    }

    /// `ListNotifications`' answer, `aa{sv}`: one dictionary per notification.
    static func decode(_ reply: [DBusValue]) throws -> [Notification] {
        guard let list = reply.first?.arrayValue else {
            throw DesktopSession.Failure(description: "mako's ListNotifications answered \(reply)")
        }
        return try list.map { entry in
            guard let fields = entry.vardictValue else {
                throw DesktopSession.Failure(description: "mako listed \(entry)")
            }
            func field<Value>(_ key: String, _ read: (DBusValue) -> Value?) throws -> Value {
                guard let value = fields[key].flatMap(read) else {
                    throw DesktopSession.Failure(description: "mako listed no \(key) in \(fields)")
                }
                return value
            }
            let actions = try field("actions") { $0.dictionaryValue }
            return Notification(
                id: try field("id") { $0.uint32Value }, appName: try field("app-name") { $0.stringValue },
                appIcon: try field("app-icon") { $0.stringValue }, category: try field("category") { $0.stringValue },
                title: try field("summary") { $0.stringValue }, body: try field("body") { $0.stringValue },
                actions: Dictionary(uniqueKeysWithValues: try actions.map { pair in
                    guard let key = pair.key.stringValue, let label = pair.value.stringValue else {
                        throw DesktopSession.Failure(description: "mako listed an action \(pair)")
                    }
                    return (key, label)
                }))
        }
    }
}

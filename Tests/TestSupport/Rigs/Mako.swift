import Foundation

/// mako 1.7 in a `DesktopSession`, read and acted on with `makoctl`, as its users do: mako draws
/// no buttons, and an action is `makoctl invoke` (or `makoctl menu`). A notification stays after
/// an action; it goes when it is dismissed, closed by its sender or expires.
///
/// mako's list changes only when it answers a call (Notify, CloseNotification, makoctl's) or
/// closes one itself (NotificationClosed): `waitForNotifications` wakes on exactly those, seen by
/// a bus monitor, never on a timer. Every makoctl call goes to `org.freedesktop.Notifications`,
/// so on a session where mako is started on demand, the first one starts it.
public struct Mako: Sendable {
    public let session: DesktopSession

    public init(_ session: DesktopSession) {
        precondition(session.server == .mako, "a \(session.server) session has no mako")
        self.session = session
    }

    /// One notification as `makoctl list` shows it.
    public struct Notification: Sendable, Equatable {
        public let id: UInt32
        public let appName: String
        public let appIcon: String
        public let category: String
        public let title: String
        /// The body as Notify sent it (mako renders its markup when it draws).
        public let body: String
        /// Action key to label; makoctl lists them as a dictionary, in no order.
        public let actions: [String: String]
    }

    /// Every notification mako holds now.
    public func notifications() async throws -> [Notification] {
        try Self.decode(try await makoctl("list"))
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
        "DismissNotification", "InvokeAction", "RestoreNotification",
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
        try await session.runChecked(["makoctl"] + arguments)
    }

    /// makoctl's JSON is busctl's: `{"type": "aa{sv}", "data": [[{"id": {"type": "u", "data": 1}, ...}]]}`.
    static func decode(_ json: String) throws -> [Notification] {
        guard let root = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
              let outer = root["data"] as? [Any], let list = outer.first as? [[String: Any]]
        else { throw DesktopSession.Failure(description: "makoctl list printed \(json)") }
        return try list.map { entry in
            func field<Value>(_ key: String, as: Value.Type) throws -> Value {
                guard let value = (entry[key] as? [String: Any])?["data"] as? Value else {
                    throw DesktopSession.Failure(description: "makoctl list has no \(key) in \(entry)")
                }
                return value
            }
            return Notification(
                id: UInt32(try field("id", as: Int.self)), appName: try field("app-name", as: String.self),
                appIcon: try field("app-icon", as: String.self), category: try field("category", as: String.self),
                title: try field("summary", as: String.self), body: try field("body", as: String.self),
                actions: try field("actions", as: [String: String].self))
        }
    }
}

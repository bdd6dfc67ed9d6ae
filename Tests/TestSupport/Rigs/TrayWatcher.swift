import DBus

/// The StatusNotifierWatcher of a session started with a tray (`DesktopSession.start(tray:)`):
/// kded5's on Plasma, the AppIndicator extension's inside GNOME Shell, the Status Tray plugin's
/// inside xfce4-panel. What it holds is what every host of the session is told to show.
public struct TrayWatcher: Sendable {
    public static let name = "org.kde.StatusNotifierWatcher"
    public static let path = "/StatusNotifierWatcher"

    public let session: DesktopSession

    public init(_ session: DesktopSession) {
        self.session = session
    }

    /// The watcher's unique name, nil while there is none.
    public func owner() async throws -> String? {
        try await session.withConnection { try await $0.nameOwner(Self.name) }
    }

    /// `RegisteredStatusNotifierItems`: each item as the watcher names it: `SERVICE/PATH` (kded5,
    /// Xfce's panel) or `SERVICE@/PATH` (the AppIndicator extension).
    public func registeredItems() async throws -> [String] {
        try await session.withConnection { connection in
            guard let owner = try await connection.nameOwner(Self.name) else { return [] }
            let reply = try await connection.call(
                destination: owner, path: Self.path, interface: "org.freedesktop.DBus.Properties", member: "Get",
                arguments: [.string(Self.name), .string("RegisteredStatusNotifierItems")])
            return reply.first?.variantValue?.stringArrayValue ?? []
        }
    }

    /// Waits until an item of `service` (a unique name) is registered, at most `timeout`; woken
    /// by the watcher's `StatusNotifierItemRegistered` and by a new watcher.
    public func waitForItem(of service: String, timeout: Duration = .seconds(120)) async throws {
        try await waitUntil("an item of \(service) registered", timeout: timeout) { items in
            items.contains { Self.names($0, service) }
        }
    }

    /// Waits until no item of `service` is registered (its connection closed).
    public func waitUntilGone(_ service: String, timeout: Duration = .seconds(120)) async throws {
        try await waitUntil("no item of \(service) registered", timeout: timeout) { items in
            !items.contains { Self.names($0, service) }
        }
    }

    /// Whether `item`, as the watcher names it, is an item of `service`.
    public static func names(_ item: String, _ service: String) -> Bool {
        item == service || item.hasPrefix(service + "/") || item.hasPrefix(service + "@/")
    }

    private func waitUntil(
        _ what: String, timeout: Duration, _ done: @escaping @Sendable ([String]) -> Bool
    ) async throws {
        let connection = try await session.connect()
        defer { Task { await connection.close() } }
        let changes = try await connection.signals(matching: DBusMatchRule(interface: Self.name))
        let owners = try await connection.watchNameOwner(Self.name)
        try await withDeadline(timeout, what) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in changes {
                        if done(try await registeredItems()) { return }
                    }
                    throw TimedOut(description: "the bus connection closed while waiting for \(what)")
                }
                group.addTask {
                    for await owner in owners where owner != nil {
                        if done(try await registeredItems()) { return }
                    }
                    throw TimedOut(description: "the bus connection closed while waiting for \(what)")
                }
                if done(try await registeredItems()) { group.cancelAll(); return }
                _ = try await group.next()
                group.cancelAll()
            }
        }
    }
}

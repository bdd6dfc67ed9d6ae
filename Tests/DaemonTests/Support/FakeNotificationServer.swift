import DBus
import Synchronization
import TestSupport

/// `org.freedesktop.Notifications` served by the test process itself, on a bus where no real
/// server runs (a `--no-notifications` session): it advertises the capabilities a test chooses,
/// records every `Notify` and stays up while daemons under test come and go, so it sees all that
/// any of them showed. It can refuse the first few `Notify` calls, as KDE refuses a repeat within
/// a second.
final class FakeNotificationServer: Sendable {
    static let refusal = "org.freedesktop.Notifications.Error.ExcessNotificationGeneration"

    /// One `Notify` call.
    struct Notification: Sendable, Equatable {
        let id: UInt32
        /// The caller's unique name: one per daemon process.
        let sender: String
        let summary: String
        let body: String
        let actions: [String]
        /// The `urgency` hint's byte.
        let urgency: UInt8?
        /// The `sound-name` hint.
        let sound: String?
        /// The `suppress-sound` hint.
        let suppressesSound: Bool
        /// The `resident` hint.
        let resident: Bool
        /// `expire_timeout`: -1 for the server's choice, 0 for never.
        let expiresAfter: Int32
    }

    /// The notifications shown, numbered from 1.
    let shown = Observed<[Notification]>([])
    /// The summary of every `Notify` call, refused or not, in order.
    let notifyCalls = Observed<[String]>([])
    private let connection: DBusConnection
    private let refusals: Int
    private let unanswered: Set<String>
    private let nextID = Mutex<UInt32>(1)
    /// The calls left unanswered, answered with an error at `stop()`.
    private let silent = Mutex<[CheckedContinuation<Void, Never>]>([])


    /// Owns the name on the session bus; throws when another server has it.
    /// - Parameters:
    ///   - refusals: how many `Notify` calls to refuse before showing any.
    ///   - unanswered: the summaries whose `Notify` gets no answer, as Cinnamon 5.6 leaves some
    ///     replacements.
    static func start(capabilities: [String], refusals: Int = 0, unanswered: Set<String> = []) async throws -> FakeNotificationServer {
        let server = FakeNotificationServer(connection: try await DBusConnection.connect(), refusals: refusals, unanswered: unanswered)
        try await server.connection.export(
            path: NotificationsInterface.path, interface: NotificationsInterface.name,
            introspection: NotificationsInterface.introspection,
            methods: [
                DBusMethod("GetCapabilities", output: "as") { _ in [.stringArray(capabilities)] },
                DBusMethod("Notify", input: "susssasa{sv}i", output: "u") { [server] call in
                    if server.unanswered.contains(call.arguments[3].stringValue ?? "") {
                        server.notifyCalls.update { $0.append(call.arguments[3].stringValue ?? "") }
                        await withCheckedContinuation { waiting in server.silent.withLock { $0.append(waiting) } }
                        throw DBusError(name: DBusError.Name.failed, message: "the server stopped")
                    }
                    return [.uint32(try server.notify(call))]
                },
                DBusMethod("CloseNotification", input: "u") { _ in [] },
                DBusMethod("GetServerInformation", output: "ssss") { _ in
                    [.string("fake"), .string("gbnotify tests"), .string("1"), .string("1.2")]
                },
            ])
        guard try await server.connection.requestName(NotificationsInterface.name) else {
            await server.connection.close()
            throw DBusError(name: DBusError.Name.failed, message: "another notification server owns the name")
        }
        return server
    }

    private init(connection: DBusConnection, refusals: Int, unanswered: Set<String>) {
        self.connection = connection
        self.refusals = refusals
        self.unanswered = unanswered
    }

    func stop() async {
        await connection.close()
        for call in silent.withLock({ $0 }) { call.resume() }
    }

    /// Clicks `action` on a notification, the way a server reports it: `ActionInvoked` to the
    /// daemon that showed it.
    func invoke(_ action: String, on notification: Notification) throws {
        try connection.emitSignal(
            path: NotificationsInterface.path, interface: NotificationsInterface.name, member: "ActionInvoked",
            arguments: [.uint32(notification.id), .string(action)], destination: notification.sender)
    }

    private func notify(_ call: DBusMethodCall) throws -> UInt32 {
        let arguments = call.arguments
        var callNumber = 0
        notifyCalls.update {
            $0.append(arguments[3].stringValue ?? "")
            callNumber = $0.count
        }
        guard callNumber > refusals else {
            throw DBusError(name: Self.refusal, message: "Created too many similar notifications in quick succession")
        }
        let id = nextID.withLock { next in
            defer { next += 1 }
            return next
        }
        let hints = arguments[6].vardictValue ?? [:]
        let notification = Notification(
            id: id, sender: call.sender, summary: arguments[3].stringValue ?? "", body: arguments[4].stringValue ?? "",
            actions: arguments[5].stringArrayValue ?? [], urgency: hints["urgency"]?.byteValue,
            sound: hints["sound-name"]?.stringValue, suppressesSound: hints["suppress-sound"]?.boolValue == true,
            resident: hints["resident"]?.boolValue == true, expiresAfter: arguments[7].int32Value ?? -1)
        shown.update { $0.append(notification) }
        return id
    }
}

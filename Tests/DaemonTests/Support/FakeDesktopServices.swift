import DBus
import Glibc
import Spawn
import SystemCalls

/// Stand-ins for desktop services that cannot run for real in the test session, exported
/// through the project's own D-Bus wrapper under their real names on a connection of their own.
/// `stop()` leaves the bus, so the name is free for the next test at once.
final class FakeDesktopService: Sendable {
    let connection: DBusConnection
    private let name: String

    private init(connection: DBusConnection, name: String) {
        self.connection = connection
        self.name = name
    }

    /// Connects to `bus`, exports `methods` at `path`, and takes `name`.
    static func start(
        name: String, path: String, interface: String, methods: [DBusMethod], on bus: DBusConnection.Bus
    ) async throws -> FakeDesktopService {
        let connection = try await DBusConnection.connect(to: bus)
        do {
            let introspection = "<interface name=\"\(interface)\"></interface>"
            try await connection.export(path: path, interface: interface, introspection: introspection, methods: methods)
            guard try await connection.requestName(name) else {
                throw DBusError(name: DBusError.Name.failed, message: "\(name) is taken on the test bus")
            }
        } catch {
            await connection.close()
            throw error
        }
        return FakeDesktopService(connection: connection, name: name)
    }

    func stop() async {
        try? await connection.releaseName(name)
        await connection.close()
    }
}

/// xdg-desktop-portal's OpenURI, recording each call; it answers as a portal does (a request
/// handle) or, `refusing`, with an error.
struct FakeOpenURIPortal {
    struct Call: Sendable, Equatable {
        let parentWindow: String
        let uri: String
        let activationToken: String?
    }

    static let busName = "org.freedesktop.portal.Desktop"
    /// The program the fake runs in: this test process.
    static let executable = RunningProgram.executable() ?? ""

    let service: FakeDesktopService
    let calls = Observed<[Call]>([])

    init(refusing: Bool, on bus: DBusConnection.Bus) async throws {
        let calls = self.calls
        service = try await .start(
            name: Self.busName, path: "/org/freedesktop/portal/desktop", interface: "org.freedesktop.portal.OpenURI",
            methods: [
                DBusMethod("OpenURI", input: "ssa{sv}", output: "o") { call in
                    let options = call.arguments[2].vardictValue ?? [:]
                    calls.update {
                        $0.append(Call(
                            parentWindow: call.arguments[0].stringValue ?? "", uri: call.arguments[1].stringValue ?? "",
                            activationToken: options["activation_token"]?.stringValue))
                    }
                    guard !refusing else {
                        throw DBusError(name: "org.freedesktop.portal.Error.Failed", message: "no handler for the URI")
                    }
                    return [.objectPath("/org/freedesktop/portal/desktop/request/1_1/t")]
                },
            ],
            on: bus)
    }
}

import DBus
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// A notification server of its own: a private session bus with dunst on its own Xvfb display,
/// started by a nested `scripts/desktop-session`. dunstctl clicks "the notification at the
/// top", so only a server nobody else shows anything on makes that click mean ours.
///
/// dunst's config is its stock one in the parts that matter here (`markup = full`, so it
/// advertises `body-markup`), except that its context menu runs `pick-mark-read` (its dmenu),
/// which chooses "Mark read", so `dunstctl context` clicks that action. `opener` is the stub to
/// pass as the browser.
final class NotificationSession: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let busAddress: String
    let display: String
    let directory: URL
    private let session: Program
    let opener: OpenerStub
    /// The dunst processes started by `startServer()`, stopped with the session.
    private let servers = Mutex<[Program]>([])


    private static let script = "\(Standin.packageRoot)/scripts/desktop-session"

    static func start() async throws -> NotificationSession {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gbnotify-desktop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("xdg/dunst"), withIntermediateDirectories: true)
        let path = directory.path
        try write("""
            [global]
                markup = full
                dmenu = \(path)/pick-mark-read
            """, to: "\(path)/xdg/dunst/dunstrc")
        try write("#!/bin/sh\nexec grep -m1 'mark-read\\]$'\n", to: "\(path)/pick-mark-read", executable: true)
        let opener = try OpenerStub(at: "\(path)/opener")
        guard mkfifo("\(path)/ready", 0o600) == 0 else { throw Failure(description: "mkfifo ready failed") }
        // Opened read-write, so the open does not block and a session that never starts means
        // a timeout, not a hang.
        let ready = open("\(path)/ready", O_RDWR | O_CLOEXEC)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_DIRS"] = "\(path)/xdg"
        let session = try Program(
            [script, "--no-keyring", "--", "sh", "-c",
             #"printf '%s\n%s\n' "$DBUS_SESSION_BUS_ADDRESS" "$DISPLAY" > "$0"; exec sleep 600"#, "\(path)/ready"],
            environment: environment)
        defer { close(ready) }
        let lines = try await OpenerStub.readRecord(from: ready, lines: 2, timeout: 60)
        guard lines.count == 2 else {
            session.signal(SIGTERM)
            let outcome = await session.finish()
            throw Failure(description: "the private notification session did not start: \(outcome.stderr)")
        }
        return NotificationSession(
            busAddress: lines[0], display: lines[1], directory: directory, session: session, opener: opener)
    }

    private init(busAddress: String, display: String, directory: URL, session: Program, opener: OpenerStub) {
        self.busAddress = busAddress
        self.display = display
        self.directory = directory
        self.session = session
        self.opener = opener
    }

    func stop() async {
        for server in servers.withLock({ $0 }) {
            server.signal(SIGTERM)
            _ = await server.finish()
        }
        session.signal(SIGTERM)
        _ = await session.finish()
        opener.close()
        try? FileManager.default.removeItem(at: directory)
    }

    func connect() async throws -> DBusConnection {
        try await DBusConnection.connect(to: .address(busAddress))
    }

    static let serverName = "org.freedesktop.Notifications"

    /// Kills the notification server, as a crash would, and returns once it has left the bus.
    func killServer() async throws {
        try await withConnection { connection in
            for await owner in try await connection.watchNameOwner(Self.serverName) {
                guard let owner else { return }
                let pid = try await connection.call(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                    member: "GetConnectionUnixProcessID", arguments: [.string(owner)]
                ).first?.uint32Value
                guard let pid else { throw Failure(description: "no process id for the notification server \(owner)") }
                kill(pid_t(pid), SIGKILL)
            }
        }
    }

    func hasServer() async throws -> Bool {
        try await withConnection { try await $0.nameHasOwner(Self.serverName) }
    }

    /// Starts dunst again on this session's display, and returns once it owns its name.
    func startServer() async throws {
        var environment = self.environment
        environment["XDG_CONFIG_DIRS"] = directory.appendingPathComponent("xdg").path
        let server = try Program(["dunst"], environment: environment)
        servers.withLock { $0.append(server) }
        try await withConnection { connection in
            let owners = try await connection.watchNameOwner(Self.serverName)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await owner in owners where owner != nil { return }
                }
                group.addTask {
                    // Sleeping is cancellable, unlike waiting for dunst to exit.
                    try await Task.sleep(for: .seconds(30))
                    throw Failure(description: "dunst did not take \(Self.serverName) within 30 s")
                }
                try await group.next()
                group.cancelAll()
            }
        }
    }

    private func withConnection<Result: Sendable>(_ body: (DBusConnection) async throws -> Result) async throws -> Result {
        let connection = try await connect()
        do {
            let result = try await body(connection)
            await connection.close()
            return result
        } catch {
            await connection.close()
            throw error
        }
    }

    /// The environment of a program on this session's bus and display.
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        environment["DISPLAY"] = display
        return environment
    }

    @discardableResult
    func dunstctl(_ arguments: String...) async throws -> String {
        let outcome = try await Program.run(["dunstctl"] + arguments, environment: environment)
        guard outcome.status == 0 else {
            throw Failure(description: "dunstctl \(arguments.joined(separator: " ")) failed: \(outcome.stderr)")
        }
        return outcome.stdout
    }

    /// One closed notification from `dunstctl history`.
    struct HistoryEntry: Sendable, Equatable {
        let summary: String
        let body: String
        let appName: String
        let category: String
    }

    /// Closes what is displayed, then reads dunst's history, newest first.
    func closeAllAndReadHistory() async throws -> [HistoryEntry] {
        try await dunstctl("close-all")
        let json = try JSONSerialization.jsonObject(with: Data(try await dunstctl("history").utf8)) as? [String: Any]
        let lists = json?["data"] as? [[[String: Any]]] ?? []
        return lists.flatMap { $0 }.map { entry in
            func field(_ name: String) -> String { (entry[name] as? [String: Any])?["data"] as? String ?? "" }
            return HistoryEntry(summary: field("summary"), body: field("body"), appName: field("appname"), category: field("category"))
        }
    }

    private static func write(_ text: String, to path: String, executable: Bool = false) throws {
        try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: path))
        if executable { chmod(path, 0o755) }
    }
}

/// One `NotificationSession` around a whole suite (which should be `.serialized`), found in
/// `current` by its tests.
struct SharedNotificationSession: SuiteTrait, TestScoping {
    @TaskLocal static var current: NotificationSession?

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let session = try await NotificationSession.start()
        do {
            try await Self.$current.withValue(session) { try await function() }
        } catch {
            await session.stop()
            throw error
        }
        await session.stop()
    }
}

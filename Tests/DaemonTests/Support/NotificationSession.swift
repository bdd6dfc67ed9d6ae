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
/// which chooses "Mark read", so `dunstctl context` clicks that action. The opener stub records
/// its argv and activation token into a FIFO that `nextLaunch()` reads.
final class NotificationSession: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What the opener stub was started with.
    struct Launch: Sendable, Equatable {
        let arguments: [String]
        let activationToken: String
    }

    let busAddress: String
    let display: String
    let directory: URL
    private let session: Program
    private let launches: Int32
    /// The dunst processes started by `startServer()`, stopped with the session.
    private let servers = Mutex<[Program]>([])

    /// The stub to pass as the browser.
    var opener: String { directory.appendingPathComponent("opener").path }

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
        // One write(2) per launch, well under PIPE_BUF, so two launches never interleave.
        try write("""
            #!/bin/sh
            record="token=${XDG_ACTIVATION_TOKEN-}"
            for argument in "$@"; do record="$record
            arg=$argument"; done
            printf '%s\\n\\n' "$record" > "\(path)/launches"
            """, to: "\(path)/opener", executable: true)
        for fifo in ["ready", "launches"] {
            guard mkfifo("\(path)/\(fifo)", 0o600) == 0 else { throw Failure(description: "mkfifo \(fifo) failed") }
        }
        // Opened read-write, so neither open blocks and a stub that never runs means a timeout,
        // not a hang.
        let ready = open("\(path)/ready", O_RDWR | O_CLOEXEC)
        let launches = open("\(path)/launches", O_RDWR | O_CLOEXEC)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_DIRS"] = "\(path)/xdg"
        let session = try Program(
            [script, "--no-keyring", "--", "sh", "-c",
             #"printf '%s\n%s\n' "$DBUS_SESSION_BUS_ADDRESS" "$DISPLAY" > "$0"; exec sleep 600"#, "\(path)/ready"],
            environment: environment)
        defer { close(ready) }
        let lines = try await readRecord(from: ready, lines: 2, timeout: 60)
        guard lines.count == 2 else {
            session.signal(SIGTERM)
            let outcome = await session.finish()
            throw Failure(description: "the private notification session did not start: \(outcome.stderr)")
        }
        return NotificationSession(
            busAddress: lines[0], display: lines[1], directory: directory, session: session, launches: launches)
    }

    private init(busAddress: String, display: String, directory: URL, session: Program, launches: Int32) {
        self.busAddress = busAddress
        self.display = display
        self.directory = directory
        self.session = session
        self.launches = launches
    }

    func stop() async {
        for server in servers.withLock({ $0 }) {
            server.signal(SIGTERM)
            _ = await server.finish()
        }
        session.signal(SIGTERM)
        _ = await session.finish()
        close(launches)
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

    /// Waits for the opener stub's next launch.
    func nextLaunch(timeout: Int32 = 15) async throws -> Launch {
        let lines = try await Self.readRecord(from: launches, lines: nil, timeout: timeout)
        guard let first = lines.first, first.hasPrefix("token=") else {
            throw Failure(description: "the opener stub was not started within \(timeout) s")
        }
        return Launch(
            arguments: lines.dropFirst().map { String($0.dropFirst("arg=".count)) },
            activationToken: String(first.dropFirst("token=".count)))
    }

    /// Whether a launch arrives within `timeout` seconds, for "opens nothing" checks.
    func launchArrives(within timeout: Int32) async throws -> Bool {
        (try? await nextLaunch(timeout: timeout)) != nil
    }

    /// Reads one record from a FIFO: `lines` lines, or (nil) lines up to an empty one. Empty
    /// when nothing came within `timeout` seconds.
    private static func readRecord(from descriptor: Int32, lines count: Int?, timeout: Int32) async throws -> [String] {
        await withCheckedContinuation { continuation in
            DispatchQueue(label: "org.gitbay.tests.fifo").async {  // not global(): see offCooperativePool
                var text = ""
                let deadline = time(nil) + Int(timeout)
                func done() -> Bool {
                    if let count { return text.split(separator: "\n").count >= count && text.hasSuffix("\n") }
                    return text.hasSuffix("\n\n")
                }
                while !done() {
                    var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    let left = deadline - time(nil)
                    guard left > 0, poll(&poller, 1, Int32(left * 1000)) == 1 else { return continuation.resume(returning: []) }
                    var byte: UInt8 = 0
                    guard read(descriptor, &byte, 1) == 1 else { return continuation.resume(returning: []) }
                    text.unicodeScalars.append(Unicode.Scalar(byte))
                }
                continuation.resume(returning: text.split(separator: "\n").map(String.init))
            }
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

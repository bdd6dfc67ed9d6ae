import DBus
import Foundation
import Glibc

/// A private desktop session with a real notification server, for one suite: its own session
/// bus, HOME and XDG directories, a Secret Service, and GNOME Shell, Plasma, dunst,
/// notification-daemon or xfce4-notifyd, started by `scripts/desktop-session --server NAME` as
/// a child of the test process (see `README.md` beside this file).
///
/// Nothing outlives the test process: `scripts/desktop-session --lifeline` holds a lifeline pipe
/// from this process and stops everything once it closes (`stop()`, `deinit`, or the kernel when
/// this process dies in any way; see `LifelineProcess`). The shells' own views and clicks are in
/// `GnomeShell`, `PlasmaShell` and `OnScreen`.
public final class DesktopSession: Sendable {
    public enum Server: String, Sendable, CaseIterable {
        case dunst
        case gnomeShell = "gnome-shell"
        case plasma
        case notificationDaemon = "notification-daemon"
        case xfce4Notifyd = "xfce4-notifyd"

        /// Whether it draws on the session's own Xvfb display (GNOME Shell draws headless).
        public var usesX11: Bool { self != .gnomeShell }
        /// A whole shell, seconds of CPU to start, rather than a notification server alone.
        var isHeavy: Bool { self == .gnomeShell || self == .plasma }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let server: Server
    /// The session bus's address.
    public let busAddress: String
    /// The Xvfb display (`:N`), or nil for GNOME Shell.
    public let display: String?
    /// The session's directory: its HOME and XDG directories, and `logs/` with every service's log.
    public let directory: String
    /// The session's XDG_RUNTIME_DIR.
    public let runtimeDirectory: String
    /// XDG_CURRENT_DESKTOP as the server set it (GNOME, KDE, XFCE...), or nil.
    public let currentDesktop: String?
    /// What `start(dataDirectory:)` put first in the server's XDG_DATA_DIRS, for a program on
    /// this desktop to find the same files (`environment` leaves XDG_DATA_DIRS as it is).
    public let dataDirectory: String?

    private let process: LifelineProcess

    private static let script = "\(Standin.packageRoot)/scripts/desktop-session"
    static let serversDirectory = "\(Standin.packageRoot)/scripts/desktop-servers"

    /// Starts a session and returns once its server serves (GNOME Shell: about 1 to 3 s here;
    /// Plasma about 2 s).
    /// - Parameters:
    ///   - keyring: the Secret Service on the session bus, for a gbnotifyd that reads its
    ///     accounts there.
    ///   - dataDirectory: put first in XDG_DATA_DIRS: desktop entries in its `applications/`
    ///     (gbnotify.desktop, for Plasma's badge and the `desktop-entry` hint).
    ///   - environment: what desktop-session and so the server start with (PATH matters to
    ///     GNOME's `desktop-entry` lookup).
    public static func start(
        _ server: Server, keyring: PrivateSession.Keyring = .gnome, dataDirectory: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment, readyTimeout: Duration = .seconds(400)
    ) async throws -> DesktopSession {
        var argv = [script, "--lifeline", "--server", server.rawValue, "--keyring=\(keyring.rawValue)"]
        if let dataDirectory { argv += ["--data-dir", dataDirectory] }
        // The command prints what the test needs, then waits for the session to end with the lifeline.
        argv += ["--", "sh", "-c", #"printf '%s\n' "$DBUS_SESSION_BUS_ADDRESS" "${DISPLAY:-}" "$PRIVATE_DESKTOP_SESSION" "$XDG_RUNTIME_DIR" "${XDG_CURRENT_DESKTOP:-}"; exec sleep infinity"#]
        let command = argv
        let start: @Sendable () async throws -> DesktopSession = {
            try await offCooperativePool {
                try DesktopSession(
                    server: server, argv: command, dataDirectory: dataDirectory, environment: environment,
                    readyTimeout: readyTimeout)
            }
        }
        return server.isHeavy ? try await heavyStarting.oneAtATime(start) : try await start()
    }

    /// The shells start one after another: GNOME Shell and Plasma each take a core for a second
    /// or more while starting (and idle after), and all the suites begin at once. The light
    /// servers start at once, beside them: queued behind the shells, a suite that waits in real
    /// time (IdleTests' 30 s) would start its wait last and end the whole run.
    private static let heavyStarting = OneAtATime()

    private init(
        server: Server, argv: [String], dataDirectory: String?, environment: [String: String], readyTimeout: Duration
    ) throws {
        do {
            process = try LifelineProcess(argv, environment: environment, readyLines: 5, readyTimeout: readyTimeout)
        } catch {
            throw Failure(description: "the \(server.rawValue) session did not start: \(error)")
        }
        self.server = server
        self.dataDirectory = dataDirectory
        let lines = process.readyLines
        busAddress = lines[0]
        display = lines[1].isEmpty ? nil : lines[1]
        directory = lines[2]
        runtimeDirectory = lines[3]
        currentDesktop = lines[4].isEmpty ? nil : lines[4]
    }

    /// Stops every process of the session (the server, its helpers, the bus, Xvfb, and any
    /// process started with `environment`) and removes its directory. GNOME Shell may
    /// segfault on the way out: noise, the session is gone all the same.
    public func stop() async {
        await process.stop()
    }

    /// The environment of a program on this desktop (a gbnotifyd under test): this process's,
    /// with the session's bus, display and XDG_CURRENT_DESKTOP. It also carries the session's
    /// PRIVATE_DESKTOP_SESSION, so whatever is still running when the session stops is stopped
    /// with it. DBUS_SYSTEM_BUS_ADDRESS is left as it is: see `SystemBusStandin`.
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        environment["DISPLAY"] = display
        environment["WAYLAND_DISPLAY"] = nil
        environment["XDG_CURRENT_DESKTOP"] = currentDesktop
        environment["PRIVATE_DESKTOP_SESSION"] = directory
        return environment
    }

    /// A new connection to the session bus; the caller closes it.
    public func connect() async throws -> DBusConnection {
        try await DBusConnection.connect(to: .address(busAddress))
    }

    /// Runs a program on this desktop to its end.
    public func run(_ argv: [String], stdin: String = "") async throws -> Program.Outcome {
        try await Program.run(argv, environment: environment, stdin: stdin)
    }

    /// Runs a program on this desktop and throws with its output unless it exits 0.
    @discardableResult
    func runChecked(_ argv: [String]) async throws -> String {
        let outcome = try await run(argv)
        guard outcome.status == 0 else {
            throw Failure(description: "\(argv.joined(separator: " ")) exited with \(outcome.status): \(outcome.stderr)\(outcome.stdout)")
        }
        return outcome.stdout
    }

    /// A service's log (`logs/NAME.log`: gnome-shell, plasmashell, kwin_x11, dbus-daemon...), for
    /// a failure's message.
    public func log(_ name: String) -> String {
        (try? String(contentsOfFile: "\(directory)/logs/\(name).log", encoding: .utf8)) ?? "(no log \(name))"
    }

    /// Kills the owner of a bus name with SIGKILL, as a crash would, and returns its pid once
    /// the name has no owner. `org.freedesktop.Notifications` is the server (on GNOME, its gjs
    /// helper); `org.gnome.Shell` is gnome-shell itself.
    @discardableResult
    public func kill(owner name: String, timeout: Duration = .seconds(15)) async throws -> pid_t {
        try await withConnection { connection in
            let owners = try await connection.watchNameOwner(name)
            return try await withDeadline(timeout, "\(name) to lose its owner") {
                var killed: pid_t?
                for await owner in owners {
                    if let killed, owner == nil { return killed }
                    guard let owner, killed == nil else { continue }
                    let reply = try await connection.call(
                        destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                        interface: "org.freedesktop.DBus", member: "GetConnectionUnixProcessID",
                        arguments: [.string(owner)])
                    guard let pid = reply.first?.uint32Value.map(pid_t.init) else {
                        throw Failure(description: "no process id for \(name) (\(owner))")
                    }
                    killed = pid
                    Glibc.kill(pid, SIGKILL)
                }
                throw Failure(description: "the connection closed while waiting for \(name) to go")
            }
        }
    }

    /// `body` with a new connection to the session bus, closed after it.
    public func withConnection<Result: Sendable>(_ body: (DBusConnection) async throws -> Result) async throws -> Result {
        try await connect().closing(after: body)
    }

    // MARK: - Screen

    /// A PNG of the screen, or of `area` of it: GNOME Shell's Screenshot interface, or
    /// ImageMagick's `import` on the Xvfb display.
    public func screenshot(to path: String, area: ScreenArea? = nil) async throws {
        guard server.usesX11 else {
            try await GnomeShell(self).screenshot(to: path, area: area)
            return
        }
        var argv = ["import", "-window", "root"]
        if let area { argv += ["-crop", "\(area.width)x\(area.height)+\(area.x)+\(area.y)", "+repage"] }
        try await runChecked(argv + [path])
    }

    /// The pointer moves to `point` (where it stays: Plasma expires no popup under the pointer).
    public func pointerMove(to point: ScreenPoint) async throws {
        guard server.usesX11 else {
            try await GnomeShell(self).pointerMove(to: point)
            return
        }
        try await runChecked(["xdotool", "mousemove", String(point.x), String(point.y)])
    }

    /// A real pointer click (motion, press, release of the primary button) at `point`: XTest
    /// through xdotool on the Xvfb display, Clutter's virtual pointer in GNOME Shell.
    public func pointerClick(at point: ScreenPoint) async throws {
        guard server.usesX11 else {
            try await GnomeShell(self).pointerClick(at: point)
            return
        }
        // No --sync: it waits for the pointer to move, forever when it is already there. The X
        // server handles one client's events in order, motion before the button.
        try await runChecked(["xdotool", "mousemove", String(point.x), String(point.y), "click", "1"])
    }
}

/// Runs one body at a time, the others waiting in turn.
private actor OneAtATime {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func oneAtATime<Result: Sendable>(_ body: @Sendable () async throws -> Result) async throws -> Result {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        }
        busy = true
        defer {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }
}

/// A rectangle on the screen, in pixels from its top left corner.
public struct ScreenArea: Sendable, Codable, Equatable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var center: ScreenPoint { ScreenPoint(x: x + width / 2, y: y + height / 2) }

    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

public struct ScreenPoint: Sendable, Codable, Equatable {
    public var x: Int
    public var y: Int

    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }
}

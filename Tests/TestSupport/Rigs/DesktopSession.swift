import DBus
import Foundation
import Glibc
import Synchronization

/// A private desktop session with a real notification server, for one suite: its own session
/// bus, HOME and XDG directories, a Secret Service, and GNOME Shell, Plasma, dunst,
/// notification-daemon, xfce4-notifyd, mako or swaync (on sway), mate-notification-daemon,
/// lxqt-notificationd or Cinnamon, started by `scripts/desktop-session --server NAME` as a child
/// of the test process (see `README.md` beside this file).
///
/// Nothing outlives the test process: `scripts/desktop-session --lifeline` holds a lifeline pipe
/// from this process and stops everything once it closes (`stop()`, `deinit`, or the kernel when
/// this process dies in any way; see `LifelineProcess`). The servers' own views and clicks are in
/// `GnomeShell`, `PlasmaShell`, `Cinnamon`, `Mako` and `OnScreen`.
public final class DesktopSession: Sendable {
    public enum Server: String, Sendable, CaseIterable {
        case dunst
        case gnomeShell = "gnome-shell"
        case plasma
        case notificationDaemon = "notification-daemon"
        case xfce4Notifyd = "xfce4-notifyd"
        /// mako 1.7 on a headless sway 1.7 of the session's own (Wayland, no X display).
        case mako
        case mate = "mate-notification-daemon"
        case lxqt = "lxqt-notificationd"
        /// Cinnamon 5.6, window manager and shell, its notification daemon built in.
        case cinnamon
        /// swaync (SwayNotificationCenter) 0.7.3, or 0.11 from Debian 13 with its inline-reply
        /// field, on a headless sway of the session's own, as mako; its popups read over AT-SPI.
        case swaync

        /// Whether it draws on a headless sway of the session's own (no X display, no input
        /// devices).
        public var usesSway: Bool { self == .mako || self == .swaync }
        /// Whether it draws on the session's own Xvfb display (GNOME Shell draws headless, mako
        /// and swaync on sway's headless output).
        public var usesX11: Bool { self != .gnomeShell && !usesSway }
        /// Whether `OnScreen` reads its popups from the accessibility tree.
        public var hasAccessiblePopups: Bool {
            [.plasma, .notificationDaemon, .xfce4Notifyd, .mate, .lxqt, .swaync].contains(self)
        }
        /// The D-Bus `.service` file it ships, through which the bus can start it on demand
        /// (`Activation`); nil for a server that has none.
        public var serviceFile: String? {
            switch self {
            case .mako: "fr.emersion.mako.service"
            case .mate: "org.freedesktop.mate.Notifications.service"
            default: nil
            }
        }
        /// A whole shell, seconds of CPU to start, rather than a notification server alone.
        var isHeavy: Bool { self == .gnomeShell || self == .plasma || self == .cinnamon }
    }

    /// Which Debian's desktop: this machine's (Debian 12), or Debian 13's from the root
    /// `scripts/debian13-root` builds, run through bubblewrap (`scripts/desktop-session
    /// --debian13`) on the same bus and display as the host's programs (GNOME Shell 48, Plasma
    /// 6.3, dunst 1.12, ...).
    public enum Release: String, Sendable, CaseIterable {
        case debian12
        case debian13
    }

    /// How the server comes to the session's bus (`scripts/desktop-session --activation`).
    public enum Activation: String, Sendable {
        /// Started with the session; nothing else can be activated for
        /// `org.freedesktop.Notifications`, so once it is gone nobody serves.
        case none
        /// Started with the session, and its `.service` file on the bus too, as on a real
        /// desktop: once it exits (MATE's idle exit, a kill), the next call starts it again.
        case activatable
        /// Only its `.service` file: nothing serves until the first call to
        /// `org.freedesktop.Notifications` starts it (mako on a sway without `exec mako`; MATE
        /// always).
        case onDemand = "on-demand"
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let server: Server
    public let release: Release
    public let activation: Activation
    /// The session bus's address.
    public let busAddress: String
    /// The Xvfb display (`:N`), or nil for GNOME Shell, mako and swaync.
    public let display: String?
    /// sway's socket (an absolute path), for mako and swaync; nil elsewhere.
    public let waylandDisplay: String?
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
    ///   - activation: whether the session starts the server or leaves it to the bus, on the
    ///     first call (mako and MATE only: `Server.serviceFile`).
    ///   - keyring: the Secret Service on the session bus, for a gbnotifyd that reads its
    ///     accounts there.
    ///   - dataDirectory: put first in XDG_DATA_DIRS: desktop entries in its `applications/`
    ///     (gbnotify.desktop, for Plasma's badge and the `desktop-entry` hint).
    ///   - environment: what desktop-session and so the server start with (PATH matters to
    ///     GNOME's `desktop-entry` lookup).
    ///   - tray: the desktop's tray host too (`desktop-session --tray`): GNOME Shell's
    ///     AppIndicator extension, Xfce's panel beside xfce4-notifyd; Plasma has its own anyway.
    public static func start(
        _ server: Server, release: Release = .debian12, activation: Activation = .none, keyring: PrivateSession.Keyring = .gnome,
        dataDirectory: String? = nil, tray: Bool = false, environment: [String: String] = ProcessInfo.processInfo.environment,
        readyTimeout: Duration = .seconds(400)
    ) async throws -> DesktopSession {
        precondition(activation == .none || server.serviceFile != nil, "\(server) cannot be started by the bus")
        var argv = [
            script, "--lifeline", "--server", server.rawValue, "--activation", activation.rawValue, "--keyring=\(keyring.rawValue)",
        ]
        if tray { argv.append("--tray") }
        if release == .debian13 { argv.append("--debian13") }
        if let dataDirectory { argv += ["--data-dir", dataDirectory] }
        // The command prints what the test needs, then waits for the session to end with the lifeline.
        argv += ["--", "sh", "-c", #"printf '%s\n' "$DBUS_SESSION_BUS_ADDRESS" "${DISPLAY:-}" "${WAYLAND_DISPLAY:-}" "$PRIVATE_DESKTOP_SESSION" "$XDG_RUNTIME_DIR" "${XDG_CURRENT_DESKTOP:-}"; exec sleep infinity"#]
        let command = argv
        let start: @Sendable () async throws -> DesktopSession = {
            try await offCooperativePool {
                try DesktopSession(
                    server: server, release: release, activation: activation, argv: command, dataDirectory: dataDirectory,
                    environment: environment, readyTimeout: readyTimeout)
            }
        }
        return server.isHeavy ? try await heavyStarting.oneAtATime(start) : try await start()
    }

    /// `body` on a session of its own, stopped after it however it ends: for a test whose
    /// server must start fresh (on demand), or that kills it.
    public static func withSession<Result: Sendable>(
        _ server: Server, release: Release = .debian12, activation: Activation = .none, keyring: PrivateSession.Keyring = .none,
        _ body: (DesktopSession) async throws -> Result
    ) async throws -> Result {
        let session = try await start(server, release: release, activation: activation, keyring: keyring)
        do {
            let result = try await body(session)
            await session.stop()
            return result
        } catch {
            await session.stop()
            throw error
        }
    }

    /// The shells start one after another: GNOME Shell and Plasma each take a core for a second
    /// or more while starting (and idle after), and all the suites begin at once. The light
    /// servers start at once, beside them: queued behind the shells, a suite that waits in real
    /// time (IdleTests' 30 s) would start its wait last and end the whole run.
    private static let heavyStarting = OneAtATime()

    private init(
        server: Server, release: Release, activation: Activation, argv: [String], dataDirectory: String?, environment: [String: String],
        readyTimeout: Duration
    ) throws {
        do {
            process = try LifelineProcess(argv, environment: environment, readyLines: 6, readyTimeout: readyTimeout)
        } catch {
            throw Failure(description: "the \(server.rawValue) session (\(release.rawValue)) did not start: \(error)")
        }
        self.server = server
        self.release = release
        self.activation = activation
        self.dataDirectory = dataDirectory
        let lines = process.readyLines
        busAddress = lines[0]
        display = lines[1].isEmpty ? nil : lines[1]
        waylandDisplay = lines[2].isEmpty ? nil : lines[2]
        directory = lines[3]
        runtimeDirectory = lines[4]
        currentDesktop = lines[5].isEmpty ? nil : lines[5]
    }

    /// Stops every process of the session (the server, its helpers, the bus, Xvfb, and any
    /// process started with `environment`) and removes its directory. GNOME Shell may
    /// segfault on the way out: noise, the session is gone all the same.
    public func stop() async {
        await process.stop()
    }

    /// The environment of a program on this desktop (a gbnotifyd under test): this process's,
    /// with the session's bus, display (X or Wayland) and XDG_CURRENT_DESKTOP. It also carries the session's
    /// PRIVATE_DESKTOP_SESSION, so whatever is still running when the session stops is stopped
    /// with it. DBUS_SYSTEM_BUS_ADDRESS is left as it is: see `SystemBusStandin`.
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        environment["DISPLAY"] = display
        environment["WAYLAND_DISPLAY"] = waylandDisplay
        environment["XDG_CURRENT_DESKTOP"] = currentDesktop
        environment["PRIVATE_DESKTOP_SESSION"] = directory
        return environment
    }

    /// A new connection to the session bus; the caller closes it.
    public func connect() async throws -> DBusConnection {
        try await DBusConnection.connect(to: .address(busAddress))
    }

    /// `argv` as run by the desktop's own release: from the Debian 13 root for a `.debian13`
    /// session (`scripts/desktop-session`'s `in-desktop`), as it is otherwise.
    public func inDesktop(_ argv: [String]) -> [String] {
        ["\(directory)/in-desktop"] + argv
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
    /// the killed connection no longer owns the name (it has none, or one that was queued for
    /// it took it over). `org.freedesktop.Notifications` is the server (on GNOME, its gjs
    /// helper); `org.gnome.Shell` is gnome-shell itself.
    @discardableResult
    public func kill(owner name: String, timeout: Duration = .seconds(60)) async throws -> pid_t {
        try await withConnection { connection in
            let owners = try await connection.watchNameOwner(name)
            let killed = Mutex<(name: String, pid: pid_t)?>(nil)
            do {
                return try await withDeadline(timeout, "\(name) to lose its owner") {
                    for await owner in owners {
                        if let victim = killed.withLock({ $0 }) {
                            if owner != victim.name { return victim.pid }
                            continue
                        }
                        guard let owner else { continue }
                        let pid = try await Self.processID(of: owner, on: connection)
                        killed.withLock { $0 = (owner, pid) }
                        Glibc.kill(pid, SIGKILL)
                    }
                    throw Failure(description: "the connection closed while waiting for \(name) to go")
                }
            } catch let timedOut as TimedOut {
                // Whether the process is gone says whose the delay is: the bus's, or the process's.
                let state = killed.withLock { $0 }.map { victim in
                    let status = (try? String(contentsOfFile: "/proc/\(victim.pid)/status", encoding: .utf8)) ?? "State: gone"
                    return "pid \(victim.pid): " + (status.split(separator: "\n").first { $0.hasPrefix("State:") } ?? "no state")
                } ?? "nothing killed yet"
                throw TimedOut(description: "\(timedOut.description) (\(state))")
            }
        }
    }

    private static func processID(of uniqueName: String, on connection: DBusConnection) async throws -> pid_t {
        let reply = try await connection.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus", member: "GetConnectionUnixProcessID", arguments: [.string(uniqueName)])
        guard let pid = reply.first?.uint32Value.map(pid_t.init) else {
            throw Failure(description: "no process id for \(uniqueName): \(reply)")
        }
        return pid
    }

    // MARK: - Who serves a name

    /// The process that owns a name on the session bus.
    public struct BusOwner: Sendable, Equatable {
        public let uniqueName: String
        public let pid: pid_t
        /// The program it runs (`/usr/bin/mako`), read from /proc: who started it does not matter.
        public let executable: String
    }

    /// Whether the bus would start a server for `name` on the first call to it: its
    /// `ListActivatableNames` (the session's own `.service` files only).
    public func isActivatable(_ name: String = NotificationsInterface.name) async throws -> Bool {
        try await withConnection { try await $0.activatableNames().contains(name) }
    }

    /// The owner of `name` now, or nil; asking starts nothing.
    public func owner(of name: String = NotificationsInterface.name) async throws -> BusOwner? {
        try await withConnection { connection in
            guard let uniqueName = try await connection.nameOwner(name) else { return nil }
            return try await Self.busOwner(uniqueName, on: connection)
        }
    }

    /// The owner of `name` once there is one (at once if there is one now): a server the session
    /// started, or one the bus started for a call.
    @discardableResult
    public func waitForOwner(of name: String = NotificationsInterface.name, timeout: Duration = .seconds(30)) async throws -> BusOwner {
        try await withConnection { connection in
            let owners = try await connection.watchNameOwner(name)
            return try await withDeadline(timeout, "an owner of \(name)") {
                for await case let owner? in owners {
                    return try await Self.busOwner(owner, on: connection)
                }
                throw Failure(description: "the connection closed while waiting for an owner of \(name)")
            }
        }
    }

    /// Returns once nobody owns `name` (at once if nobody does now): a server that exited, or
    /// was killed.
    public func waitUntilUnowned(_ name: String = NotificationsInterface.name, timeout: Duration = .seconds(30)) async throws {
        try await withConnection { connection in
            let owners = try await connection.watchNameOwner(name)
            try await withDeadline(timeout, "\(name) to have no owner") {
                for await owner in owners where owner == nil { return }
                throw Failure(description: "the connection closed while waiting for \(name) to have no owner")
            }
        }
    }

    private static func busOwner(_ uniqueName: String, on connection: DBusConnection) async throws -> BusOwner {
        let pid = try await processID(of: uniqueName, on: connection)
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        return BusOwner(uniqueName: uniqueName, pid: pid, executable: executable)
    }

    /// `body` with a new connection to the session bus, closed after it.
    public func withConnection<Result: Sendable>(_ body: (DBusConnection) async throws -> Result) async throws -> Result {
        try await connect().closing(after: body)
    }

    // MARK: - Screen

    /// A PNG of the screen, or of `area` of it: GNOME Shell's Screenshot interface, grim on
    /// mako's and swaync's sway, or ImageMagick's `import` on the Xvfb display.
    public func screenshot(to path: String, area: ScreenArea? = nil) async throws {
        switch server {
        case .gnomeShell:
            try await GnomeShell(self).screenshot(to: path, area: area)
        case .mako, .swaync:
            let region = area.map { ["-g", "\($0.x),\($0.y) \($0.width)x\($0.height)"] } ?? []
            try await runChecked(["grim"] + region + [path])
        default:
            var argv = ["import", "-window", "root"]
            if let area { argv += ["-crop", "\(area.width)x\(area.height)+\(area.x)+\(area.y)", "+repage"] }
            try await runChecked(argv + [path])
        }
    }

    /// sway here has no input devices: mako is reached through makoctl (`Mako`), swaync through
    /// its accessibility tree (`OnScreen`).
    private func requirePointer() throws {
        guard !server.usesSway else {
            throw Failure(description: "\(server.rawValue)'s sway has no pointer: act through Mako (makoctl) or OnScreen (AT-SPI) instead")
        }
    }

    /// The pointer moves to `point` (where it stays: Plasma expires no popup under the pointer).
    public func pointerMove(to point: ScreenPoint) async throws {
        try requirePointer()
        guard server.usesX11 else {
            try await GnomeShell(self).pointerMove(to: point)
            return
        }
        try await runChecked(["xdotool", "mousemove", String(point.x), String(point.y)])
    }

    /// A real pointer click (motion, press, release of the primary button) at `point`: XTest
    /// through xdotool on the Xvfb display, Clutter's virtual pointer in GNOME Shell. (Cinnamon
    /// may take a click whose motion it has not yet seen elsewhere: `Cinnamon`'s clicks wait.)
    public func pointerClick(at point: ScreenPoint) async throws {
        try requirePointer()
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

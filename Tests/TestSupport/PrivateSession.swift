import Foundation

/// Runs the calling test again, alone, in a fresh copy of the test process inside its own
/// `scripts/desktop-session`: a session bus and keyring of its own. For tests that need a bus
/// name with one owner per bus (`org.gitbay.Notify1`), a keyring no other test writes to, or a
/// desktop with a piece missing (even the session bus), which would break the tests beside them.
///
/// The test's function name must be unique in the test bundle: it is the copy's `--filter`.
/// A copy that fails, or runs no test, throws `Failure` with everything it printed.
///
/// The copy's session outlives neither this process nor the test's time limit: it runs under a
/// lifeline (`LifelineProcess`, `scripts/desktop-session --lifeline`) in a process group of its
/// own. When the calling task is cancelled (Swift Testing cancels a test at its time limit) or
/// this process dies, the session is stopped, and whatever is left of its process group is
/// killed: no KWallet daemon, Xvfb or dbus-daemon of it lives on.
public enum PrivateSession {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The Secret Service on the copy's bus: `scripts/desktop-session --keyring=` names them.
    public enum Keyring: String, Sendable {
        /// gnome-keyring, its login collection unlocked.
        case gnome
        /// KeePassXC with one open database and no access dialog.
        case keepassxc
        /// KeePassXC asking before each program's first access, as it does by default.
        case keepassxcConfirm = "keepassxc-confirm"
        /// KWallet's daemon (kwalletd6 or kwalletd5) with its Secret Service API on.
        case kwallet
        /// None at all.
        case none
    }

    /// Whether this process runs inside `scripts/desktop-session`: a throw-away session bus,
    /// keyring and notification server that tests may write to. A real desktop's session never
    /// counts: the tests would write to its keyring.
    public static var isInsideDesktopSession: Bool {
        ProcessInfo.processInfo.environment["PRIVATE_DESKTOP_SESSION"] != nil
    }

    /// Why a suite that needs that session skips outside it (a plain `swift test`).
    public static let desktopSessionNeeded = """
        needs the throw-away desktop session of scripts/desktop-session (a session bus, a keyring to \
        write to, a notification server); make check runs it there
        """

    private static let childVariable = "GBNOTIFY_TESTS_PRIVATE_SESSION"
    private static let script = "\(Standin.packageRoot)/scripts/desktop-session"

    /// - Parameters:
    ///   - keyring: the Secret Service on the bus.
    ///   - notifications: a notification server (dunst on its own Xvfb); off unless asked for,
    ///     as it is two more processes on a busy machine.
    ///   - sessionBus: false runs the copy outside any session: no session bus, so neither of the
    ///     above either.
    public static func run(
        keyring: Keyring = .gnome, notifications: Bool = false, sessionBus: Bool = true, test: String = #function,
        _ body: () async throws -> Void
    ) async throws {
        var environment = ProcessInfo.processInfo.environment
        if environment[childVariable] == test {
            try await body()
            return
        }
        environment[childVariable] = test
        let copy = [CommandLine.arguments[0], "--testing-library", "swift-testing",
                    "--filter", NSRegularExpression.escapedPattern(for: test)]
        let output: String
        if sessionBus {
            let options = ["--keyring=\(keyring.rawValue)"] + (notifications ? [] : ["--no-notifications"])
            output = try await runCopy("the copy of this test", [script, "--lifeline"] + options + ["--"] + copy, environment: environment)
        } else {
            // No bus address, no display to autolaunch one on, and a runtime directory without
            // a `bus` socket: GLib finds no session bus anywhere.
            for name in ["DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY"] { environment[name] = nil }
            let runtime = FileManager.default.temporaryDirectory.appending(path: "no-session-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: false)
            defer { try? FileManager.default.removeItem(at: runtime) }
            environment["XDG_RUNTIME_DIR"] = runtime.path
            output = try await runCopy("the copy of this test", copy, environment: environment)
        }
        guard output.contains("Test run with 1 test in 1 suite passed") else {
            throw Failure(description: "the copy of this test in its own session ran no test:\n\(output)")
        }
    }

    /// Whether this process is the copy that runs `suite` in a session of its own
    /// (`runSuite`): the suite is enabled there only.
    public static func isRunning(suite: String) -> Bool {
        ProcessInfo.processInfo.environment[childVariable] == "suite " + suite
    }

    /// Runs every test of `suite` in a fresh copy of the test process inside its own
    /// `scripts/desktop-session`, one after another, for suites whose tests need the process's
    /// own session bus to be a private one (libsecret, and the stages that connect to the session
    /// bus, reach the bus of the process, not a connection a test hands them). Returns how many tests ran; throws `Failure` with
    /// everything the copy printed when it failed or ran none.
    ///
    /// - Parameters:
    ///   - environment: added to the copy's, and so to the session's services (dunst reads its
    ///     config through `XDG_CONFIG_DIRS`).
    ///   - release: whose desktop programs the session runs (`scripts/desktop-session --debian13`).
    @discardableResult
    public static func runSuite(
        _ suite: String, keyring: Bool = true, notifications: Bool = true, release: DesktopSession.Release = .debian12,
        environment extra: [String: String] = [:]
    ) async throws -> Int {
        var environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
        environment[childVariable] = "suite " + suite
        let copy = [CommandLine.arguments[0], "--testing-library", "swift-testing", "--filter", "\\.\(suite)/"]
        let options = (keyring ? [] : ["--no-keyring"]) + (notifications ? [] : ["--no-notifications"])
            + (release == .debian13 ? ["--debian13"] : [])
        let output = try await runCopy(suite, [script, "--lifeline"] + options + ["--"] + copy, environment: environment)
        guard let ran = output.firstMatch(of: /Test run with (\d+) tests? in \d+ suites? passed/).flatMap({ Int($0.1) }), ran > 0 else {
            throw Failure(description: "\(suite) in its own session ran no test:\n\(output)")
        }
        return ran
    }

    /// Runs `argv`, the copy of `what` (in its session), to its end and returns everything it
    /// printed; throws `Failure` with that when it fails, or when the calling task was cancelled
    /// and the copy stopped.
    private static func runCopy(_ what: String, _ argv: [String], environment: [String: String]) async throws -> String {
        let copy = try LifelineProcess(argv, environment: environment)
        let status = await copy.finish()
        let output = copy.output
        if Task.isCancelled {
            let failure = Failure(description: """
                \(what) in its own session was stopped (exit status \(status)): the test running it was \
                cancelled (at its time limit); it printed:
                \(output)
                """)
            // Swift Testing shows no error thrown by a test it has cancelled: this is printed too.
            FileHandle.standardError.write(Data("PrivateSession: \(failure)\n".utf8))
            throw failure
        }
        guard status == 0 else {
            throw Failure(description: "\(what) in its own session failed (exit status \(status)):\n\(output)")
        }
        return output
    }
}

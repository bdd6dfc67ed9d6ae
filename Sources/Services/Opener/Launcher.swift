import Glibc
import PushCore
import Spawn

/// Starts what a click opens, by argv with no shell, with the click's activation token added to
/// the environment it inherits.
struct Launcher: Sendable {
    /// The environment of the program that opens, which what it starts inherits.
    let environment: [String: String]
    /// Where what it starts writes: the opener's own output, or nowhere (a terminal view, which
    /// the output would land in the middle of).
    let output: Spawn.Stream

    func start(_ launch: ClickLaunch) throws(Spawn.Failure) -> pid_t {
        var environment = self.environment
        for (name, value) in launch.environment { environment[name] = value }
        // systemd's readiness socket and watchdog are the daemon's own; a browser must not
        // report or ping on its behalf.
        for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] { environment[name] = nil }
        return try Spawn.start(launch.argv, environment: environment, stdin: .devNull, stdout: output, stderr: output)
    }
}

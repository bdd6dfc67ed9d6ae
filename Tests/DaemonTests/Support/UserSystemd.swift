import Foundation
import Glibc
import TestSupport
import Testing

/// A systemd user manager of the test's own, running as the test's user (root here) with a
/// runtime directory of its own, for the tests of what systemd does with gbnotifyd's unit.
///
/// `systemd --user` refuses to run on a machine not booted with systemd (it looks for
/// /run/systemd/system); it runs in a mount namespace of its own whose /run/systemd is an empty
/// tmpfs holding that directory, which changes nothing outside. Its units are read from the
/// runtime directory's `systemd/user`, so nothing of the machine's own configuration is touched.
final class UserSystemd: Sendable {
    let runtimeDirectory: String
    private let pid: pid_t

    var unitDirectory: String { runtimeDirectory + "/systemd/user" }

    init() async throws {
        runtimeDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("user-systemd-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(
            atPath: runtimeDirectory + "/systemd/user", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        chmod(runtimeDirectory, 0o700)
        let null = try Subprocess.openFile("/dev/null", flags: O_RDWR)
        defer { close(null) }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtimeDirectory
        pid = try Subprocess.spawn(
            ["unshare", "--mount", "sh", "-c",
             "mount -t tmpfs tmpfs /run/systemd && mkdir -p /run/systemd/system && exec /lib/systemd/systemd --user"],
            stdin: null, stdout: null, stderr: null, environment: environment)
        // Ready once `systemctl --user` reaches it: its private socket answers. Generously: it
        // starts while the whole suite's desktop sessions start. (Its own log says nothing on
        // standard error, even with SYSTEMD_LOG_TARGET=console, so there is none to quote.)
        try await waitFor("the user manager to answer on \(runtimeDirectory)/systemd/private", timeout: .seconds(180)) {
            (try? await self.systemctl(["show", "--property=Version"]))?.status == 0
        }
    }

    /// `systemctl --user ARGUMENTS` against this manager.
    func systemctl(_ arguments: [String]) async throws -> Program.Outcome {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtimeDirectory
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        return try await Program.run(["systemctl", "--user", "--no-pager"] + arguments, environment: environment)
    }

    /// One property of `unit` as systemd reports it (`MainPID`, `NRestarts`, `ActiveState`).
    func property(_ name: String, of unit: String) async throws -> String {
        let outcome = try await systemctl(["show", "--property=\(name)", "--value", unit])
        try #require(outcome.status == 0, "systemctl show \(name) \(unit): \(outcome.stderr)")
        return outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Stops the manager, which stops its units first, and removes its directory.
    func stop() {
        kill(pid, SIGTERM)
        Subprocess.waitForExit(pid)
        try? FileManager.default.removeItem(atPath: runtimeDirectory)
    }
}

/// Waits until `condition` holds, looking every 100 ms, for things that say so only when asked
/// (systemd's properties, a file's contents); fails after `timeout`.
func waitFor(_ what: String, timeout: Duration, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("gave up waiting for \(what) after \(timeout)")
            throw CancellationError()
        }
        try await Task.sleep(for: .milliseconds(100))
    }
}

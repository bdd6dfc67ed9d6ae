import Foundation
import Glibc
import Synchronization
import TestSupport

/// systemd-inhibit holding a logind inhibitor, as a real client: it takes the descriptor through
/// Inhibit and keeps it while its command (cat) runs, that is until `release()` closes cat's
/// standard input.
final class InhibitorHolder: Sendable {
    let pid: pid_t
    private let input: Mutex<Int32?>

    init(what: String = "sleep", mode: String, who: String, why: String, on bus: SystemBusStandin) throws {
        let pipe = try Subprocess.pipe()
        defer { close(pipe.read) }
        let null = try Subprocess.openFile("/dev/null", flags: O_RDWR)
        defer { close(null) }
        pid = try Subprocess.spawn(
            ["systemd-inhibit", "--what=\(what)", "--mode=\(mode)", "--who=\(who)", "--why=\(why)", "cat"],
            stdin: pipe.read, stdout: null, stderr: null, environment: bus.environment())
        input = Mutex(pipe.write)
    }

    /// A test that failed half-way lets go too; the child is reaped in the background.
    deinit {
        if closeInput() {
            let pid = pid
            Thread.detachNewThread { Subprocess.waitForExit(pid) }
        }
    }

    /// Lets go: cat ends, systemd-inhibit exits, the descriptor closes. Returns its exit status.
    @discardableResult
    func release() async -> Int32 {
        guard closeInput() else { return -1 }
        let pid = pid
        return await Task.detached { Subprocess.waitForExit(pid) }.value
    }

    /// Whether this call closed it.
    private func closeInput() -> Bool {
        guard let descriptor = input.withLock({ value in defer { value = nil }; return value }) else { return false }
        close(descriptor)
        return true
    }
}

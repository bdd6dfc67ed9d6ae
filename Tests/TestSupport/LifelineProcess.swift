import Foundation
import Glibc
import Synchronization

/// A child process that lives as long as its lifeline: its stdin is a pipe from this process,
/// and it (or the guard around it) stops once that pipe closes, which `stop()`, `deinit` or the
/// kernel (when this process dies in any way) does. It announces readiness with lines on its
/// stdout; its stderr goes to a temporary file, read back when it fails to start.
final class LifelineProcess: Sendable {
    let pid: pid_t
    /// What it printed to say it was ready.
    let readyLines: [String]
    /// The write end of the lifeline; nil once closed.
    private let lifeline: Mutex<Int32?>
    private let logPath: String

    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts `argv` and waits for its `readyLines` lines. Blocks: call it off the cooperative
    /// pool. A start that fails throws with what the child wrote on stderr.
    init(_ argv: [String], environment: [String: String]? = nil, readyLines count: Int, readyTimeout: Duration) throws {
        let lifeline = try Subprocess.pipe()
        let ready = try Subprocess.pipe()
        let log = try Subprocess.temporaryFile()
        let pid: pid_t
        do {
            pid = try Subprocess.spawn(
                argv, stdin: lifeline.read, stdout: ready.write, stderr: log.descriptor, environment: environment)
        } catch {
            [lifeline.read, lifeline.write, ready.read, ready.write, log.descriptor].forEach { _ = close($0) }
            unlink(log.path)
            throw error
        }
        [lifeline.read, ready.write, log.descriptor].forEach { _ = close($0) }
        defer { close(ready.read) }
        do {
            readyLines = try Subprocess.readLines(count, from: ready.read, timeout: readyTimeout)
        } catch {
            // deinit does not run for a partly initialised instance: clean up here.
            _ = close(lifeline.write)
            Subprocess.waitForExit(pid)
            let output = (try? String(contentsOfFile: log.path, encoding: .utf8)) ?? ""
            unlink(log.path)
            throw StartFailure(description: "\(error); its stderr:\n\(output)")
        }
        self.pid = pid
        self.lifeline = Mutex(lifeline.write)
        logPath = log.path
    }

    /// Closes the lifeline and waits until the child has exited.
    func stop() async {
        guard let pid = closeLifeline() else { return }
        _ = await offCooperativePool { Subprocess.waitForExit(pid) }
    }

    deinit {
        // Nothing can wait here; the child is reaped in the background.
        if let pid = closeLifeline() {
            blockingQueue().async { Subprocess.waitForExit(pid) }
        }
    }

    /// The pid the first time, so exactly one caller reaps it; nil after.
    private func closeLifeline() -> pid_t? {
        guard let descriptor = lifeline.withLock({ value in defer { value = nil }; return value }) else {
            return nil
        }
        close(descriptor)
        unlink(logPath)
        return pid
    }
}

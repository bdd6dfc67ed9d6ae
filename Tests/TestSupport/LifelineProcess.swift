import Foundation
import Glibc
import Synchronization

/// A child process that lives as long as its lifeline: its stdin is a pipe from this process,
/// and it (or the guard around it, or `scripts/desktop-session --lifeline`) stops once that pipe
/// closes, which `stop()`, `deinit` or the kernel (when this process dies in any way) does. It
/// leads a process group of its own, so that whatever it started goes with it: killed when it
/// ends (`ChildProcess`), and all of it killed once it has not stopped `stopGrace` after its
/// lifeline closed.
///
/// It announces readiness with lines on its stdout, or (`init(_:environment:)`) has none to
/// announce and prints everything to its log; its stderr goes to that log, a temporary file,
/// read back when it fails to start, or as `output`.
public final class LifelineProcess: Sendable {
    /// What it printed to say it was ready.
    public let readyLines: [String]
    private let child: ChildProcess
    /// The write end of the lifeline; nil once closed.
    private let lifeline: Mutex<Int32?>
    private let logPath: String

    /// How long it has to stop, its lifeline closed, before its process group is killed: longer
    /// than `scripts/desktop-session` takes to stop everything when each service lingers (its
    /// command's 10 s, then 5 s for each service).
    public static let stopGrace = Duration.seconds(30)

    public struct StartFailure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `argv` and waits, off the cooperative pool, for its `readyLines` lines. A start
    /// that fails throws with what the child wrote on stderr.
    public static func started(
        _ argv: [String], environment: [String: String]? = nil, readyLines count: Int, readyTimeout: Duration
    ) async throws -> LifelineProcess {
        try await offCooperativePool {
            try LifelineProcess(argv, environment: environment, readyLines: count, readyTimeout: readyTimeout)
        }
    }

    /// Starts `argv` and waits for its `readyLines` lines. Blocks: call it off the cooperative
    /// pool. A start that fails throws with what the child wrote on stderr.
    convenience init(_ argv: [String], environment: [String: String]? = nil, readyLines count: Int, readyTimeout: Duration) throws {
        try self.init(argv, environment: environment, ready: (count, readyTimeout))
    }

    /// Starts `argv` with its stdout and stderr both going to its log (`output`), and returns at
    /// once.
    convenience init(_ argv: [String], environment: [String: String]? = nil) throws {
        try self.init(argv, environment: environment, ready: nil)
    }

    private init(_ argv: [String], environment: [String: String]?, ready: (count: Int, timeout: Duration)?) throws {
        let lifeline = try Subprocess.pipe()
        let readyPipe = try ready.map { _ in try Subprocess.pipe() }
        let log = try Subprocess.temporaryFile()
        let pid: pid_t
        do {
            pid = try Subprocess.spawn(
                argv, stdin: lifeline.read, stdout: readyPipe?.write ?? log.descriptor, stderr: log.descriptor,
                environment: environment, ownProcessGroup: true)
        } catch {
            [lifeline.read, lifeline.write, log.descriptor].forEach { _ = close($0) }
            [readyPipe?.read, readyPipe?.write].forEach { $0.map { _ = close($0) } }
            unlink(log.path)
            throw error
        }
        [lifeline.read, log.descriptor].forEach { _ = close($0) }
        readyPipe.map { _ = close($0.write) }
        defer { readyPipe.map { _ = close($0.read) } }
        do {
            if let ready, let readyPipe {
                readyLines = try Subprocess.readLines(ready.count, from: readyPipe.read, timeout: ready.timeout)
            } else {
                readyLines = []
            }
        } catch {
            // deinit does not run for a partly initialised instance: stop it here, as deinit would.
            _ = close(lifeline.write)
            let child = ChildProcess(pid, leadsGroup: true)
            Task { await Self.end(child) }
            let output = (try? String(contentsOfFile: log.path, encoding: .utf8)) ?? ""
            unlink(log.path)
            throw StartFailure(description: "\(error); its stderr:\n\(output)")
        }
        child = ChildProcess(pid, leadsGroup: true)
        self.lifeline = Mutex(lifeline.write)
        logPath = log.path
    }

    /// What it has written to its log so far (stderr; and stdout, started without ready lines).
    public var output: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// Closes the lifeline and waits until it has exited, killing its process group after
    /// `grace`.
    public func stop(grace: Duration = stopGrace) async {
        closeLifeline()
        await Self.end(child, grace: grace)
    }

    /// Sends `signal` to it alone, for a child that takes orders that way.
    public func signal(_ signal: Int32) {
        child.signal(signal)
    }

    /// Kills it and its whole process group at once (SIGKILL, the way a crashing service goes)
    /// and waits until it has exited.
    public func kill() async {
        closeLifeline()
        child.signal(SIGKILL, group: true)
        _ = await child.exit()
    }

    /// Waits until it has exited by itself: its exit status, or 128 + the signal that ended it.
    /// Cancelled, the task stops it first (`stop()`).
    public func finish() async -> Int32 {
        await withTaskCancellationHandler { await child.exit() } onCancel: {
            closeLifeline()
            Task { [child] in await Self.end(child) }
        }
    }

    deinit {
        // Nothing can wait here: it is stopped in the background.
        closeLifeline()
        Task { [child] in await Self.end(child) }
        unlink(logPath)
    }

    /// Waits for `child` to end, its lifeline closed, and kills its whole process group once
    /// `grace` has passed.
    private static func end(_ child: ChildProcess, grace: Duration = stopGrace) async {
        let deadline = Task {
            guard (try? await Task.sleep(for: grace)) != nil else { return }
            child.signal(SIGKILL, group: true)
        }
        _ = await child.exit()
        deadline.cancel()
    }

    private func closeLifeline() {
        lifeline.withLock { descriptor in
            if let open = descriptor { close(open) }
            descriptor = nil
        }
    }
}

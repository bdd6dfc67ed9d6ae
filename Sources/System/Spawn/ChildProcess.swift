internal import CGlibc
import Glibc
import MainLoop
import Synchronization
import SystemCalls

/// A program run to its end, by argv and with no shell, with its standard output and error
/// captured up to a bound and a deadline on the whole run: what `gbnotifyctl` needs of `ssh`.
///
/// Everything waits on the main loop: the two pipes are loop sources, the child's end is GLib's
/// child watch (the one that reaps it), and the deadline is an alarm on the caller's timeline.
/// The child gets /dev/null as standard input, so it can never read a terminal, and past the
/// deadline, past the output bound, or when the caller's task is cancelled it is killed, through
/// a pidfd, so a signal can never reach another process that took its pid.
public enum ChildProcess {
    public enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)
        /// Killed at the deadline.
        case timedOut
        /// Killed because the caller's task was cancelled.
        case cancelled
    }

    public struct Outcome: Sendable, Equatable {
        public let termination: Termination
        /// At most `stdoutLimit` bytes.
        public let stdout: [UInt8]
        /// Standard output went past its bound; the child was killed there.
        public let stdoutOverflowed: Bool
        /// The last `stderrLimit` bytes at most: the end is where a program says why it failed.
        public let stderr: [UInt8]
    }

    /// Runs `argv` (looked up in `PATH`) to its end or the deadline; `environment` nil passes the
    /// caller's own. Throws only when the program cannot be started.
    public static func run(
        _ argv: [String], environment: [String: String]? = nil, stdoutLimit: Int, stderrLimit: Int,
        deadline: Duration, timeline: Timeline = Timeline()
    ) async throws(Spawn.Failure) -> Outcome {
        let child = try Child(argv, environment: environment, stdoutLimit: stdoutLimit)
        let capture = Capture(child: child, stdoutLimit: stdoutLimit, stderrLimit: stderrLimit)
        MainLoop.shared.submit { capture.start() }
        // The deadline holds until the output has ended too: something the child started may
        // hold its pipes open after it exited.
        // An alarm, not a sleeping task: the child is usually done long before it, and a
        // cancelled sleep would still wake the loop at the deadline.
        let timer = timeline.alarm(after: deadline) {
            child.stop(.timedOut)
            MainLoop.shared.submit { capture.abandon() }
        }
        let (exit, output) = await withTaskCancellationHandler {
            let exit = await ChildWatch.exit(of: child.pid)
            child.ended()
            // A killed child's pipes may be held open by what it started: its output ends with it.
            return (exit, await capture.finish(waitingForTheEnd: !child.isKilled))
        } onCancel: {
            child.stop(.cancelled)
            MainLoop.shared.submit { capture.abandon() }
        }
        timer.cancel()
        let termination: Termination =
            switch exit {
            case .exited(let code): .exited(code)
            case .killed(let signal): .signalled(signal)
            }
        return Outcome(
            termination: child.stopReason ?? termination, stdout: output.stdout, stdoutOverflowed: output.overflowed,
            stderr: output.stderr)
    }
}

/// The child and the descriptor it is signalled through.
private final class Child: Sendable {
    let pid: pid_t
    private let pidfd: Int32
    private struct State {
        var stopReason: ChildProcess.Termination?
        var killed = false
        var ended = false
    }
    private let state = Mutex(State())

    init(_ argv: [String], environment: [String: String]?, stdoutLimit: Int) throws(Spawn.Failure) {
        let out = try Self.pipe()
        let err: (read: Int32, write: Int32)
        do {
            err = try Self.pipe()
        } catch {
            [out.read, out.write].forEach { _ = Glibc.close($0) }
            throw error
        }
        defer { [out.write, err.write].forEach { _ = Glibc.close($0) } }
        do {
            pid = try Spawn.start(
                argv, environment: environment, stdin: .devNull, stdout: .descriptor(out.write), stderr: .descriptor(err.write))
        } catch {
            [out.read, err.read].forEach { _ = Glibc.close($0) }
            throw error
        }
        pidfd = gbn_pidfd_open(pid)
        stdout = out.read
        stderr = err.read
    }

    /// The read ends, for `Capture`, which closes them.
    let stdout: Int32
    let stderr: Int32

    deinit {
        if pidfd >= 0 { _ = close(pidfd) }
    }

    var stopReason: ChildProcess.Termination? { state.withLock { $0.stopReason } }

    var isKilled: Bool { state.withLock { $0.killed } }

    /// Ends the run early: the child is killed, and the outcome says `reason`. The first reason
    /// wins.
    func stop(_ reason: ChildProcess.Termination) {
        state.withLock { state in
            guard state.stopReason == nil else { return }
            state.stopReason = reason
        }
        kill()
    }

    /// SIGKILL, unless it has ended already.
    func kill() {
        state.withLock { state in
            guard !state.ended, pidfd >= 0 else { return }
            state.killed = true
            _ = gbn_pidfd_send_signal(pidfd, SIGKILL)
        }
    }

    func ended() {
        state.withLock { $0.ended = true }
    }

    private static func pipe() throws(Spawn.Failure) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { throw Spawn.Failure(description: String(cString: strerror(errno))) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }
}

/// What the child writes, read off the loop's sources; touched on the loop's thread only.
private final class Capture: @unchecked Sendable {
    private let child: Child
    private let limits: (stdout: Int, stderr: Int)
    private var stdout: [UInt8] = []
    private var stderr: [UInt8] = []
    private var overflowed = false
    private var sources: [Int32: LoopSource] = [:]
    private var ended: CheckedContinuation<Void, Never>?

    init(child: Child, stdoutLimit: Int, stderrLimit: Int) {
        self.child = child
        limits = (stdoutLimit, stderrLimit)
    }

    func start() {
        for descriptor in [child.stdout, child.stderr] {
            sources[descriptor] = LoopSource.watch(descriptor, for: .readable) { [unowned self] _ in read(descriptor) }
        }
    }

    /// What came, once both pipes are at their end (or at once, when not waiting for that).
    func finish(waitingForTheEnd: Bool) async -> (stdout: [UInt8], overflowed: Bool, stderr: [UInt8]) {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            MainLoop.shared.submit {
                if waitingForTheEnd && !self.sources.isEmpty {
                    self.ended = continuation
                } else {
                    self.abandon()
                    continuation.resume()
                }
            }
        }
        return await MainLoop.shared.run { (self.stdout, self.overflowed, self.stderr) }
    }

    private func read(_ descriptor: Int32) {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let read = chunk.withUnsafeMutableBytes { buffer in
            Result { () throws(Errno) in try FileDescriptor(rawValue: descriptor).read(into: buffer) }
        }
        // The end of the pipe, or an error that ends it as surely.
        guard case .success(let count) = read, count > 0 else { return close(descriptor) }
        if descriptor == child.stdout {
            let room = limits.stdout - stdout.count
            stdout += chunk.prefix(min(count, room))
            if count > room && !overflowed {
                // More than the caller would read: no use waiting for the rest.
                overflowed = true
                child.kill()
            }
        } else {
            stderr += chunk.prefix(count)
            if stderr.count > limits.stderr { stderr.removeFirst(stderr.count - limits.stderr) }
        }
    }

    private func close(_ descriptor: Int32) {
        sources.removeValue(forKey: descriptor)?.cancel()
        _ = Glibc.close(descriptor)
        if sources.isEmpty { ended.take()?.resume() }
    }

    /// The run is over before its output ended: what came is what there is.
    func abandon() {
        for descriptor in Array(sources.keys) { close(descriptor) }
    }
}

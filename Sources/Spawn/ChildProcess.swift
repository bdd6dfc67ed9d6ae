import CGlibc
import Glibc
import Synchronization
import Threads

/// A program run to its end, by argv and with no shell, with its standard output and error
/// captured up to a bound and a deadline on the whole run: what `gbnotifyctl` needs of `ssh`.
///
/// Everything that waits for the child is here, in one place: a thread of the run's own polls
/// the two pipes and the child's pidfd (so the child's end is seen without SIGCHLD, and reaped
/// by the one `waitpid` there is), and the deadline is a sleep on the caller's timeline that
/// wakes that thread. The child gets /dev/null as standard input, so it can never read a
/// terminal, and past the deadline, past the output bound, or when the caller's task is
/// cancelled it is killed.
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
        let watch = try Watch(argv, environment: environment, stdoutLimit: stdoutLimit, stderrLimit: stderrLimit)
        let timer = Task {
            guard (try? await timeline.sleep(for: deadline)) != nil else { return }
            watch.stop(.timedOut)
        }
        let outcome = await withTaskCancellationHandler {
            await watch.outcome()
        } onCancel: {
            watch.stop(.cancelled)
        }
        timer.cancel()
        _ = await timer.value
        watch.close()
        return outcome
    }
}

/// One child and its pipes, watched by a thread of its own until the child has ended.
private final class Watch: Sendable {
    private let pid: pid_t
    private let stdout: Int32
    private let stderr: Int32
    /// Readable once the child ended; -1 on a kernel without pidfds.
    private let pidfd: Int32
    /// Written to when the run must stop before the child ends by itself.
    private let wakeup: Int32
    private let limits: (stdout: Int, stderr: Int)
    /// Why the run was stopped, when it was.
    private let stopReason = Mutex<ChildProcess.Termination?>(nil)

    init(_ argv: [String], environment: [String: String]?, stdoutLimit: Int, stderrLimit: Int) throws(Spawn.Failure) {
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
            pid = try Spawn.start(argv, environment: environment, stdin: .devNull, stdout: .descriptor(out.write), stderr: .descriptor(err.write))
        } catch {
            [out.read, err.read].forEach { _ = Glibc.close($0) }
            throw error
        }
        stdout = out.read
        stderr = err.read
        pidfd = gbn_pidfd_open(pid)
        wakeup = gbn_wakeup_fd()
        limits = (stdoutLimit, stderrLimit)
    }

    /// Stops the run: the child is killed, and the outcome says `reason`. The first reason wins.
    func stop(_ reason: ChildProcess.Termination) {
        let first = stopReason.withLock { current in
            guard current == nil else { return false }
            current = reason
            return true
        }
        guard first else { return }
        var one: UInt64 = 1
        _ = write(wakeup, &one, MemoryLayout<UInt64>.size)
    }

    /// Waits, on the watch's thread, until the child has ended and been reaped.
    func outcome() async -> ChildProcess.Outcome {
        await withCheckedContinuation { continuation in
            let started = startDetachedThread { continuation.resume(returning: self.watch()) }
            if !started {
                // No thread to watch it: it is killed, and its end, which cannot take long then,
                // is waited for here.
                kill(pid, SIGKILL)
                continuation.resume(returning: self.watch())
            }
        }
    }

    /// Closes what is left once both the thread and the deadline are done with it.
    func close() {
        [pidfd, wakeup].filter { $0 >= 0 }.forEach { _ = Glibc.close($0) }
    }

    private func watch() -> ChildProcess.Outcome {
        var output: [UInt8] = []
        var errors: [UInt8] = []
        var overflowed = false
        var open = (stdout: true, stderr: true)
        var exited = false
        var killed = false
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        // Done when the child ended and its pipes are at their end; a child that ended while
        // something it started holds a pipe open is done too once it was stopped.
        while !(exited && (!open.stdout && !open.stderr || killed)) {
            var fds = [
                pollfd(fd: open.stdout ? stdout : -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: open.stderr ? stderr : -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: exited ? -1 : pidfd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: killed ? -1 : wakeup, events: Int16(POLLIN), revents: 0),
            ]
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            if fds[3].revents != 0 {
                kill(pid, SIGKILL)
                killed = true
            }
            for (index, isStdout) in [(0, true), (1, false)] where fds[index].revents != 0 {
                let count = read(isStdout ? stdout : stderr, &chunk, chunk.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    if isStdout { open.stdout = false } else { open.stderr = false }
                    continue
                }
                if isStdout {
                    let room = limits.stdout - output.count
                    output += chunk.prefix(min(count, room))
                    if count > room && !overflowed {
                        // More than the caller would read: no use waiting for the rest.
                        overflowed = true
                        kill(pid, SIGKILL)
                        killed = true
                    }
                } else {
                    errors += chunk.prefix(count)
                    if errors.count > limits.stderr { errors.removeFirst(errors.count - limits.stderr) }
                }
            }
            if pidfd < 0 && !open.stdout && !open.stderr {
                // No pidfd: the end of both pipes is the best sign there is; reap below.
                exited = true
            } else if fds[2].revents != 0 {
                exited = true
            }
        }
        let termination = reap()
        [stdout, stderr].forEach { _ = Glibc.close($0) }
        let reason = stopReason.withLock { $0 }
        return ChildProcess.Outcome(termination: reason ?? termination, stdout: output, stdoutOverflowed: overflowed, stderr: errors)
    }

    /// The one waitpid: the child has ended (or been killed), so it returns at once.
    private func reap() -> ChildProcess.Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
    }

    private static func pipe() throws(Spawn.Failure) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { throw Spawn.Failure(description: String(cString: strerror(errno))) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }
}

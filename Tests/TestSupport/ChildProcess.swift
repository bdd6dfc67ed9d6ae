import Glibc
import Synchronization

/// A child process of this one, reaped exactly once, whose end any number of tasks may await,
/// and which can be signalled until it is reaped and never after: a pid reaped may already be
/// another process's.
///
/// One that leads a process group of its own (`Subprocess.spawn(ownProcessGroup:)`) takes the
/// group with it: whatever is still in the group when it ends is killed before it is reaped,
/// while the group's id cannot yet be anyone else's.
final class ChildProcess: Sendable {
    let pid: pid_t
    private let leadsGroup: Bool

    private struct State {
        /// Its exit status, or 128 + the signal that ended it, once reaped.
        var status: Int32?
        var waiting: [CheckedContinuation<Int32, Never>] = []
        var reaping = false
    }

    private let state = Mutex(State())

    init(_ pid: pid_t, leadsGroup: Bool = false) {
        self.pid = pid
        self.leadsGroup = leadsGroup
    }

    /// Sends `signal` to the process, or with `group` to its whole process group; nothing once
    /// it has been reaped.
    func signal(_ signal: Int32, group: Bool = false) {
        state.withLock { state in
            guard state.status == nil else { return }
            kill(group ? -pid : pid, signal)
        }
    }

    /// Waits (off the cooperative pool) until it has ended: its exit status, or 128 + the signal
    /// that ended it. Not cancellable: whoever cancels signals it instead.
    func exit() async -> Int32 {
        await withCheckedContinuation { continuation in
            let (done, startReaping) = state.withLock { state -> (Int32?, Bool) in
                if let status = state.status { return (status, false) }
                state.waiting.append(continuation)
                defer { state.reaping = true }
                return (nil, !state.reaping)
            }
            if let done { continuation.resume(returning: done) }
            if startReaping { blockingQueue().async { self.reap() } }
        }
    }

    private func reap() {
        // Ended but not yet reaped: its pid, and so its group's id, are still its own.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        let (status, waiting) = state.withLock { state in
            if leadsGroup { kill(-pid, SIGKILL) }
            let status = Subprocess.waitForExit(pid)
            state.status = status
            defer { state.waiting = [] }
            return (status, state.waiting)
        }
        waiting.forEach { $0.resume(returning: status) }
    }
}

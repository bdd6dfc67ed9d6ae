import Synchronization

/// A thread for blocking calls that must stay off the main loop (a state file's write and its
/// fsync, which can take a disk's while), run one after another in the order they were handed
/// over.
///
/// The thread starts when a job comes and ends when none is left, so an idle process has none;
/// a burst of writes costs one thread start.
public final class SerialWorker: Sendable {
    private struct Queue {
        var jobs: [@Sendable () -> Void] = []
        var isRunning = false
    }

    private let name: String
    /// Shared by the threads that hand jobs over (the loop's, in the daemon) and the worker's
    /// thread, which takes them.
    private let queue = Mutex(Queue())

    /// `name` is the thread's, as `ps -L` and /proc show it (at most 15 bytes).
    public init(name: String) {
        self.name = name
    }

    /// Runs `job` on the worker's thread after the jobs handed over before it.
    public func submit(_ job: @escaping @Sendable () -> Void) {
        let start = queue.withLock { queue in
            queue.jobs.append(job)
            defer { queue.isRunning = true }
            return !queue.isRunning
        }
        guard start else { return }
        if !startDetachedThread(named: name, { self.serve() }) {
            // A system out of threads: the jobs run here, on the caller's thread, rather than never.
            serve()
        }
    }

    /// Runs `work` on the worker's thread and returns what it returned or throws what it threw.
    public func run<Value: Sendable, Failure: Error>(
        _ work: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
            submit { continuation.resume(returning: Result(catching: work)) }
        }
        return try result.get()
    }

    private func serve() {
        while true {
            let jobs = queue.withLock { queue in
                defer { queue.jobs = [] }
                if queue.jobs.isEmpty { queue.isRunning = false }
                return queue.jobs
            }
            if jobs.isEmpty { return }
            for job in jobs { job() }
        }
    }
}

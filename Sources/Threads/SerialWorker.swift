/// A thread of its own for blocking calls (a file write and its fsync), which run one
/// after another in the order they were handed over, off the threads that run Swift tasks.
///
/// The thread starts with the first job and then stays, asleep in the kernel while there is
/// nothing to do: unlike a libdispatch queue, it never wakes the process on a timer.
public final class SerialWorker: Sendable {
    private struct Queue {
        var jobs: [@Sendable () -> Void] = []
        var isStarted = false
    }

    private let lock = Lock()
    private let jobsArrived: Condition
    // Guarded by `lock`.
    nonisolated(unsafe) private var queue = Queue()

    public init() {
        jobsArrived = Condition(lock)
    }

    /// Runs `job` on the worker's thread after the jobs handed over before it.
    public func submit(_ job: @escaping @Sendable () -> Void) {
        let start = lock.withLock {
            queue.jobs.append(job)
            jobsArrived.signal()
            defer { queue.isStarted = true }
            return !queue.isStarted
        }
        if start && !startDetachedThread({ self.serve() }) {
            // A system out of threads: the jobs run here, on the caller's thread, rather than
            // never; the next job tries for a thread again.
            let jobs = lock.withLock {
                queue.isStarted = false
                defer { queue.jobs.removeAll() }
                return queue.jobs
            }
            for job in jobs { job() }
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
            let jobs = lock.withLock {
                while queue.jobs.isEmpty { jobsArrived.wait() }
                defer { queue.jobs.removeAll(keepingCapacity: true) }
                return queue.jobs
            }
            for job in jobs { job() }
        }
    }
}

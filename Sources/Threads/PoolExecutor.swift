@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
import Glibc

/// The executor that runs gbnotifyd's tasks, in place of Swift's default one: a few threads of
/// its own, and timers that cost nothing until they are due.
///
/// On Linux Swift's default executor runs on libdispatch's thread pool, which keeps a timer
/// firing every second for as long as the process lives, to watch its workers. A daemon that
/// sleeps between polls would wake sixty times a minute for it. Here, between two jobs, every
/// thread sleeps in the kernel: all but one without a deadline, and that one (the timekeeper)
/// until the earliest timer, so the process wakes only when there is work.
///
/// The timekeeper waits on CLOCK_BOOTTIME (`Alarm`), as `ContinuousClock` counts: a sleep
/// whose deadline passed while the system was suspended ends at the resume.
///
/// Jobs run first come, first served; task priorities are not looked at, since the daemon's
/// tasks are all of one kind.
final class PoolExecutor: TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    /// The daemon's pool: a thread per core, at least two (one task blocking for a moment
    /// must not stop the rest) and at most four (the work is small).
    static let shared = PoolExecutor(threads: min(max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 2), 4))

    private let lock = Lock()
    /// Idle threads wait here with no deadline.
    private let jobArrived: Condition
    /// The timekeeper sleeps on this until the earliest deadline, or until an earlier one is
    /// set (or a job arrives while no thread is idle).
    let timersChanged: Alarm
    // Guarded by `lock`.
    private var ready: [UnownedJob] = []
    private var readyHead = 0
    private var continuousTimers = TimerHeap<ContinuousClock.Instant, UnownedJob>()
    private var suspendingTimers = TimerHeap<SuspendingClock.Instant, UnownedJob>()
    private var idleThreads = 0
    private var hasTimekeeper = false

    /// Starts `threads` threads; fewer if the system will not make that many, and it traps if
    /// it will make none, since nothing could run.
    init(threads: Int) {
        jobArrived = Condition(lock)
        guard let alarm = Alarm() else { fatalError("no descriptors for the executor's timer") }
        timersChanged = alarm
        let started = (0..<threads).filter { _ in startDetachedThread { self.serve() } }.count
        precondition(started > 0, "cannot start a thread to run tasks on")
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        lock.withLock {
            ready.append(job)
            if idleThreads > 0 {
                jobArrived.signal()
            } else if hasTimekeeper {
                timersChanged.wake()
            }
        }
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        let job = UnownedJob(job)
        lock.withLock {
            let isEarliest: Bool
            if let deadline = instant as? ContinuousClock.Instant {
                isEarliest = continuousTimers.insert(job, at: deadline)
            } else if let deadline = instant as? SuspendingClock.Instant {
                isEarliest = suspendingTimers.insert(job, at: deadline)
            } else if let delay = clock.now.duration(to: instant) as? Duration {
                isEarliest = suspendingTimers.insert(job, at: .now + delay)
            } else {
                // A clock whose time cannot be read as a `Duration`: due at once rather than never.
                ready.append(job)
                isEarliest = true
            }
            if hasTimekeeper {
                if isEarliest { timersChanged.wake() }
            } else if idleThreads > 0 {
                // Someone must keep the timers.
                jobArrived.signal()
            }
        }
    }

    /// A pool thread's life: run ready jobs; with none, keep the timers if no one does, or
    /// else sleep until a job arrives.
    private func serve() {
        let executor = asUnownedTaskExecutor()
        lock.lock()
        while true {
            let untilNextTimer = moveDueTimers()
            if readyHead < ready.count {
                let job = ready[readyHead]
                readyHead += 1
                if readyHead == ready.count {
                    ready.removeAll(keepingCapacity: true)
                    readyHead = 0
                }
                // More to do, or timers left without a keeper while this thread runs a job.
                if idleThreads > 0 && (readyHead < ready.count || (untilNextTimer != nil && !hasTimekeeper)) {
                    jobArrived.signal()
                }
                lock.unlock()
                job.runSynchronously(on: executor)
                lock.lock()
            } else if let untilNextTimer, !hasTimekeeper {
                hasTimekeeper = true
                let deadline = Alarm.now + untilNextTimer
                lock.unlock()
                timersChanged.sleep(until: deadline)
                lock.lock()
                hasTimekeeper = false
            } else {
                idleThreads += 1
                jobArrived.wait()
                idleThreads -= 1
            }
        }
    }

    /// Moves the jobs whose time has come to the ready ones; returns the nanoseconds until the
    /// next timer, nil when none is left.
    private func moveDueTimers() -> UInt64? {
        var wait: Duration?
        if continuousTimers.count > 0 {
            let now = ContinuousClock.now
            continuousTimers.removeDue(at: now, into: &ready)
            wait = continuousTimers.earliest.map { now.duration(to: $0) }
        }
        if suspendingTimers.count > 0 {
            let now = SuspendingClock.now
            suspendingTimers.removeDue(at: now, into: &ready)
            if let earliest = suspendingTimers.earliest {
                let untilEarliest = now.duration(to: earliest)
                wait = min(wait ?? untilEarliest, untilEarliest)
            }
        }
        guard let wait else { return nil }
        let (seconds, attoseconds) = wait.components
        // A day at most per wait: a deadline years away must not overflow the arithmetic.
        guard seconds < 86_400 else { return 86_400 * 1_000_000_000 }
        return UInt64(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }
}

internal import CGLib
internal import CGlibc
import Glibc
import Synchronization

/// The one place a gbnotify process waits: GLib's default main context, iterated by one thread.
///
/// Everything that waits is a source on it: the D-Bus connections' sockets and timeouts, libcurl's
/// sockets and timers, libsecret's and GDBus's replies, signals, children, standard input, and the
/// jobs and timers of Swift tasks (`LoopExecutor`). Between two events the thread sleeps in one
/// poll(2) with no deadline but the earliest timer, so an idle process is not woken at all.
///
/// In gbnotifyd and gbnotifyctl the main thread runs it (`LoopMain`), and every Swift task runs
/// there too. Elsewhere (the tests, where the test runner owns the main thread and Swift's
/// default executor runs tasks) a thread of its own starts with the first job. Either way, code
/// that touches a C library's objects runs on the loop's thread, in a job (`submit`) or in a
/// callback of a source, so those objects need no lock.
public final class MainLoop: Sendable {
    public static let shared = MainLoop()

    /// One job: a Swift task's (`LoopExecutor`'s) or a closure.
    enum Job: Sendable {
        case task(UnownedJob)
        case closure(@Sendable () -> Void)
        /// A closure that may be taken out before it is due (`cancelAlarm`).
        case alarm(UInt64, @Sendable () -> Void)
    }

    private enum Runner {
        /// Nobody yet: the first job starts a thread of the loop's own.
        case none
        /// The main thread runs it (`LoopMain`), or will once the program's start is done.
        case mainThread
        case ownThread
    }

    private struct Queue {
        var ready: [Job] = []
        var continuousTimers = TimerHeap<ContinuousClock.Instant, Job>()
        var suspendingTimers = TimerHeap<SuspendingClock.Instant, Job>()
        /// CLOCK_BOOTTIME nanoseconds the timer descriptor is armed for; nil while disarmed.
        var armedFor: UInt64?
        var runner = Runner.none
    }

    /// Shared by the loop's thread, which takes the jobs and timers, and any thread that hands
    /// one over: a task's executor, a cancelling thread, a GLib worker's callback, a test's thread.
    private let queue = Mutex(Queue())
    /// Numbers alarms for whichever thread sets one (`alarm`), the loop's or another.
    private let alarms = Atomic<UInt64>(0)
    /// What runs after each of the loop's polls (`afterEachWakeUp`), with the id that takes it out:
    /// added and removed by any thread (the watchdog's `start`, `stop`), run by the loop's thread.
    private let wakeUpHooks = Mutex<[(id: UInt64, body: @Sendable () -> Void)]>([])
    /// A trim of the heap is due (`trimHeapSoon`): set by the thread that asks, cleared by the
    /// loop's thread in the alarm.
    private let trimDue = Atomic<Bool>(false)
    /// The thread that iterates the context, once one does: written by that thread, read by
    /// every thread that asks `isCurrentThread`.
    private let loopThread = Atomic<UInt>(0)
    /// A timer on CLOCK_BOOTTIME, which counts the time the system spends suspended: a task's
    /// sleep whose deadline passed during a suspend ends at the resume, not a whole wait later.
    private let timer: Int32
    /// The timer's descriptor, for the test that reads which clock it counts on.
    var timerDescriptor: Int32 { timer }
    // Set once at init, used only through GLib's thread-safe calls.
    private nonisolated(unsafe) let source: UnsafeMutablePointer<GSource>
    private nonisolated(unsafe) let timerTag: gpointer

    private init() {
        // GIO runs some of its asynchronous work (a D-Bus connection's setup, which libsecret
        // asks for) on a thread of GLib's pool, which would then wait 15 s for more and wake an
        // idle process once more as it ends; with no thread kept unused, it ends with its task.
        g_thread_pool_set_max_unused_threads(0)
        timer = gbn_boottime_timer()
        precondition(timer >= 0, "no descriptor for the main loop's timer: \(String(cString: strerror(errno)))")
        source = g_source_new(&jobSourceFunctions, guint(MemoryLayout<GSource>.size))
        timerTag = g_source_add_unix_fd(source, timer, G_IO_IN)
        g_source_set_priority(source, G_PRIORITY_DEFAULT)
        g_source_set_name(source, "gbnotify jobs")
        g_source_attach(source, nil)
        // GLib's own poll, then the hooks: each return of it is a wake-up of the loop, whatever
        // woke it. GLib calls it without the context's lock held.
        g_main_context_set_poll_func(nil) { descriptors, count, timeout in
            let ready = g_poll(descriptors, count, timeout)
            MainLoop.shared.woke()
            return ready
        }
    }

    /// Runs `job` on the loop's thread after the jobs handed over before it. Never runs it
    /// right away, even when called there: a caller inside a C library's callback must not be
    /// re-entered.
    public func submit(_ job: @escaping @Sendable () -> Void) {
        enqueue(.closure(job))
    }

    /// Runs `work` on the loop's thread and returns what it returned.
    public func run<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            submit { continuation.resume(returning: work()) }
        }
    }

    /// Whether the calling thread is the one that runs the loop.
    public var isCurrentThread: Bool {
        loopThread.load(ordering: .acquiring) == UInt(bitPattern: Int(bitPattern: pthread_self()))
    }

    // MARK: - Running

    /// The main thread will run the loop: no thread of its own is started for it.
    func claimMainThread() {
        queue.withLock { $0.runner = .mainThread }
    }

    /// Iterates the context on the calling thread until the process ends.
    func runHere() -> Never {
        loopThread.store(UInt(bitPattern: Int(bitPattern: pthread_self())), ordering: .releasing)
        let loop = g_main_loop_new(nil, 0)
        g_main_loop_run(loop)
        fatalError("the main loop returned")
    }

    func enqueue(_ job: Job) {
        let (wake, start) = queue.withLock { queue -> (Bool, Bool) in
            queue.ready.append(job)
            let start = queue.runner == .none
            if start { queue.runner = .ownThread }
            return (queue.ready.count == 1, start)
        }
        if start {
            guard startDetachedThread(named: "gbnotify-loop", { self.runHere() }) else { fatalError("cannot start the main loop's thread") }
        }
        // The loop looks at the queue before every poll; only a sleeping loop must be woken.
        if wake && !isCurrentThread { g_main_context_wakeup(nil) }
    }

    /// A job for when `instant` has come on `clock`.
    func enqueue<C: Clock>(_ job: Job, at instant: C.Instant, clock: C) {
        queue.withLock { queue in
            if let deadline = instant as? ContinuousClock.Instant {
                _ = queue.continuousTimers.insert(job, at: deadline)
            } else if let deadline = instant as? SuspendingClock.Instant {
                _ = queue.suspendingTimers.insert(job, at: deadline)
            } else if let delay = clock.now.duration(to: instant) as? Duration {
                _ = queue.suspendingTimers.insert(job, at: .now + delay)
            } else {
                // A clock whose time cannot be read as a `Duration`: due at once rather than never.
                queue.ready.append(job)
            }
            // Armed from any thread: the descriptor is in the loop's poll set, so no wake-up.
            arm(&queue)
        }
        if !isCurrentThread { g_main_context_wakeup(nil) }
    }

    /// Runs `body` on the loop's thread once `delay` has passed (counting a suspend), unless
    /// `cancelAlarm` takes it out first. A task's cancelled sleep leaves its timer in place, to
    /// wake the loop for nothing when it is due; a cancelled alarm is gone.
    public func alarm(after delay: Duration, _ body: @escaping @Sendable () -> Void) -> UInt64 {
        let id = alarms.add(1, ordering: .relaxed).newValue
        queue.withLock { queue in
            _ = queue.continuousTimers.insert(.alarm(id, body), at: .now + delay)
            arm(&queue)
        }
        if !isCurrentThread { g_main_context_wakeup(nil) }
        return id
    }

    /// Takes out the alarm `id` unless it has run; the timer is armed for what is left.
    public func cancelAlarm(_ id: UInt64) {
        queue.withLock { queue in
            let removed = queue.continuousTimers.remove { job in
                if case .alarm(let alarm, _) = job { alarm == id } else { false }
            }
            if removed { arm(&queue) }
        }
    }

    /// Runs `body` on the loop's thread each time the loop wakes (a source ready, a timer due, a
    /// job handed over), before it dispatches what woke it, until `removeWakeUpHook` takes it
    /// out. What must happen while the loop runs, and no more often than it runs (systemd's
    /// watchdog pings), rides on the wake-ups the loop has anyway rather than adding its own.
    /// It runs on every wake-up: keep it to a clock read and a comparison until it has work.
    public func afterEachWakeUp(_ body: @escaping @Sendable () -> Void) -> UInt64 {
        let id = alarms.add(1, ordering: .relaxed).newValue
        wakeUpHooks.withLock { $0.append((id, body)) }
        return id
    }

    /// Takes out the hook `id`; a wake-up already under way may still run it once.
    public func removeWakeUpHook(_ id: UInt64) {
        wakeUpHooks.withLock { $0.removeAll { $0.id == id } }
    }

    fileprivate func woke() {
        // A copy of the array is a retain, not an allocation: a hook may add or remove hooks.
        for hook in wakeUpHooks.withLock({ $0 }) { hook.body() }
    }

    /// Whether a timer on the continuous clock is due within `window`, for the tests that a
    /// cancelled wait leaves none behind.
    func hasTimer(dueIn window: ClosedRange<ContinuousClock.Instant>) -> Bool {
        queue.withLock { $0.continuousTimers.deadlines.contains(where: window.contains) }
    }

    /// Gives the heap's free pages back to the kernel a second from now, once however often it
    /// is asked meanwhile: after a burst of memory that is all freed again (pixmaps drawn and
    /// sent to a tray host), so that it stops counting as the process's own. glibc gives back
    /// only what is free at the top of the heap by itself. The second lets the burst's last
    /// buffers (a reply still being written) be freed first.
    public func trimHeapSoon() {
        guard !trimDue.exchange(true, ordering: .relaxed) else { return }
        _ = alarm(after: .seconds(1)) {
            self.trimDue.store(false, ordering: .relaxed)
            gbn_trim_heap()
        }
    }

    // MARK: - The job source

    fileprivate func hasReadyJobs() -> Bool {
        queue.withLock { !$0.ready.isEmpty }
    }

    fileprivate func timerFired() -> Bool {
        g_source_query_unix_fd(source, timerTag).rawValue & G_IO_IN.rawValue != 0
    }

    /// Runs the jobs ready now (not those they add, which wait for the next round, after the
    /// other sources have had theirs).
    fileprivate func dispatch() {
        var count: UInt64 = 0
        let fired = read(timer, &count, MemoryLayout<UInt64>.size) > 0
        let jobs = queue.withLock { queue -> [Job] in
            // A timer that fired is disarmed: whatever it was armed for, it must be armed again.
            if fired { queue.armedFor = nil }
            moveDueTimers(&queue)
            arm(&queue)
            defer { queue.ready = [] }
            return queue.ready
        }
        for job in jobs {
            switch job {
            case .task(let job):
                job.runSynchronously(
                    isolatedTo: LoopExecutor.shared.asUnownedSerialExecutor(),
                    taskExecutor: LoopExecutor.shared.asUnownedTaskExecutor())
            case .closure(let body), .alarm(_, let body): body()
            }
        }
    }

    private func moveDueTimers(_ queue: inout Queue) {
        if queue.continuousTimers.count > 0 {
            queue.continuousTimers.removeDue(at: .now, into: &queue.ready)
        }
        if queue.suspendingTimers.count > 0 {
            queue.suspendingTimers.removeDue(at: .now, into: &queue.ready)
        }
    }

    /// Arms the timer for the earliest deadline, or disarms it when there is none.
    private func arm(_ queue: inout Queue) {
        var wait: Duration?
        if let earliest = queue.continuousTimers.earliest { wait = ContinuousClock.now.duration(to: earliest) }
        if let earliest = queue.suspendingTimers.earliest {
            let untilEarliest = SuspendingClock.now.duration(to: earliest)
            wait = min(wait ?? untilEarliest, untilEarliest)
        }
        let deadline = wait.map { gbn_boottime_now() + Self.nanoseconds($0) }
        guard deadline != queue.armedFor else { return }
        queue.armedFor = deadline
        // 0 disarms; a deadline already past fires at once.
        _ = gbn_boottime_timer_arm(timer, deadline.map { max($0, 1) } ?? 0)
    }

    /// At least 0, at most a day: a deadline years away must not overflow the arithmetic.
    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        guard seconds < 86_400 else { return 86_400 * 1_000_000_000 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}

/// The job source's functions: ready when a job waits or the timer fired. GLib keeps the
/// pointer, so they live for the process.
private nonisolated(unsafe) var jobSourceFunctions = GSourceFuncs(
    prepare: { _, timeout in
        timeout?.pointee = -1
        return MainLoop.shared.hasReadyJobs() ? 1 : 0
    },
    check: { _ in
        MainLoop.shared.hasReadyJobs() || MainLoop.shared.timerFired() ? 1 : 0
    },
    dispatch: { _, _, _ in
        MainLoop.shared.dispatch()
        return CGLIB_SOURCE_CONTINUE
    },
    finalize: nil, closure_callback: nil, closure_marshal: nil)

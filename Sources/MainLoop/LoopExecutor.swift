@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency

/// Swift's tasks and actors on the main loop: the executor every task of gbnotifyd and
/// gbnotifyctl runs on (`LoopMain` makes it the main and the default one), and the one
/// `LoopActor` isolates to everywhere else. Jobs and timers are the loop's (`MainLoop`), so a
/// task and a C library's callback never run at the same time, and a task's sleep is one timer
/// in the loop's poll, not a thread of its own.
///
/// Jobs run first come, first served: task priorities are not looked at, since a daemon's
/// tasks are all of one kind.
final class LoopExecutor: SerialExecutor, TaskExecutor, SchedulingExecutor, MainExecutor, @unchecked Sendable {
    static let shared = LoopExecutor()

    private init() {}

    /// A job of a task that asked for no particular isolation, or of the main or loop actor:
    /// both run on the loop's thread, so the two are one queue.
    func enqueue(_ job: consuming ExecutorJob) {
        MainLoop.shared.enqueue(.task(UnownedJob(job)))
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        MainLoop.shared.enqueue(.task(UnownedJob(job)), at: instant, clock: clock)
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        enqueue(job, at: clock.now.advanced(by: delay), tolerance: tolerance, clock: clock)
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func checkIsolated() {
        precondition(MainLoop.shared.isCurrentThread, "not on the main loop's thread")
    }

    func isIsolatingCurrentContext() -> Bool? {
        MainLoop.shared.isCurrentThread
    }

    // MARK: - The main executor's run loop

    func run() throws {
        MainLoop.shared.runHere()
    }

    func stop() {
        // The loop runs for the life of the process; the program ends with exit().
    }
}

/// Isolation to the main loop's thread, for code that holds a C library's objects across
/// suspension points (libsecret's): its jobs run on the loop, where the library's callbacks
/// come too.
@globalActor public actor LoopActor {
    public static let shared = LoopActor()

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        LoopExecutor.shared.asUnownedSerialExecutor()
    }
}

extension LoopActor {
    /// Runs `operation` as isolated to the loop, from code the loop's thread runs that Swift
    /// cannot tell is isolated: a C library's callback. Traps anywhere else.
    public static func assumeIsolated<Value>(_ operation: @LoopActor () throws -> Value) rethrows -> Value {
        typealias Isolated = @LoopActor () throws -> Value
        typealias Plain = () throws -> Value
        shared.preconditionIsolated("not on the main loop's thread")
        return try withoutActuallyEscaping(operation) { (isolated: @escaping Isolated) throws -> Value in
            try unsafeBitCast(isolated, to: Plain.self)()
        }
    }
}

// EXPERIMENTAL EXECUTOR INTERFACE: the one file of gbnotify that uses it.
// Built against Swift 6.3.1 (swift-6.3.1-RELEASE, x86_64-unknown-linux-gnu), where making the
// loop every task's executor needs the runtime's experimental interface: `SchedulingExecutor`
// (`@_spi(ExperimentalScheduling)`, so a task's sleep is a timer of the loop) and `MainExecutor`,
// `ExecutorFactory` and `_createExecutors(factory:)` (`@_spi(ExperimentalCustomExecutors)`).
// Once the "Custom Main and Global Executors" proposal ships as public API, the two `@_spi`
// imports become a plain `import`, and `becomeEveryTasksExecutor()` goes: the factory below is
// named to the compiler instead (`-executor-factory`, in Package.swift's unsafeFlags, or the
// `DefaultExecutorFactory` type the proposal reads), and `LoopMain.run` no longer installs it.
// scripts/check-executor-interface (the first step of `make check`) compiles this module and
// prints this paragraph when a toolchain no longer does.

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

extension LoopExecutor {
    /// Makes the loop's executor the main and the default executor of every task in the
    /// process. The runtime takes its executors once, before the first task: `LoopMain.run`
    /// calls this first.
    static func becomeEveryTasksExecutor() {
        _createExecutors(factory: Factory.self)
    }

    private struct Factory: ExecutorFactory {
        static var mainExecutor: any MainExecutor { LoopExecutor.shared }
        static var defaultExecutor: any TaskExecutor { LoopExecutor.shared }
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

import Glibc

/// A program's main on the main loop: gbnotifyd's and gbnotifyctl's.
public enum LoopMain {
    /// Makes `LoopExecutor` the executor of every task in the process, runs `body` as the main
    /// task on the main thread's loop, and exits with the status it returns. Call it first,
    /// before any task or thread exists: the runtime takes its executors once, and `blocking`
    /// (the signals the program takes through `SignalWatch`) must be blocked in every thread,
    /// which inherit the mask of the one that starts them.
    public static func run(blocking signals: [Int32] = [], _ body: @escaping @Sendable () async -> Int32) -> Never {
        SignalWatch.block(signals)
        // A write to a socket the peer closed fails with EPIPE rather than ending the process.
        signal(SIGPIPE, SIG_IGN)
        // A crash ends the process as the kernel ends it (and with no core: both programs forbid it at start). The Swift
        // runtime's backtracer, on a standard error that is not a terminal (the journal), would
        // print the memory its registers point at, which can hold an account's token; a fatal
        // error's own message still comes first. A developer who sets SWIFT_BACKTRACE has chosen
        // what it prints.
        if getenv("SWIFT_BACKTRACE") == nil {
            for crash in [SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGFPE, SIGBUS, SIGSEGV] { signal(crash, SIG_DFL) }
        }
        MainLoop.shared.claimMainThread()
        LoopExecutor.becomeEveryTasksExecutor()
        Task { exit(await body()) }
        MainLoop.shared.runHere()
    }
}

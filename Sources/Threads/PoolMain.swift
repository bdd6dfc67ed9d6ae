@_spi(ExperimentalCustomExecutors) import _Concurrency
import Glibc

/// Runs a program on `PoolExecutor`: gbnotifyd's main.
public enum PoolMain {
    /// Makes `PoolExecutor.shared` the executor of every task in the process, runs `body` as
    /// the main task and exits with the status it returns. Call it first, before any task
    /// exists: the runtime takes its executors once.
    ///
    /// The main thread parks in the platform's main executor (libdispatch's main queue, asleep
    /// in `sigsuspend`), where the main actor's work would run; gbnotifyd has none.
    public static func run(_ body: @escaping @Sendable () async -> Int32) -> Never {
        _createExecutors(factory: Factory.self)
        Task { exit(await body()) }
        do {
            try PlatformExecutorFactory.mainExecutor.run()
        } catch {
            fatalError("the main executor stopped: \(error)")
        }
        fatalError("the main executor returned")
    }

    private struct Factory: ExecutorFactory {
        static var mainExecutor: any MainExecutor { PlatformExecutorFactory.mainExecutor }
        static var defaultExecutor: any TaskExecutor { PoolExecutor.shared }
    }
}

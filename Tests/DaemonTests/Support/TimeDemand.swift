import Synchronization

/// Whether a test is waiting for something (a log line, a notice, a request): the virtual clock
/// of `Harness.virtualTime` moves only then. Moving it while the test does something else, or
/// waits for nothing, would only make the pollers poll as fast as requests go, and run into
/// the stand-ins' rate limits.
final class TimeDemand: Sendable {
    private struct State {
        var waits = 0
        var watchers: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWatcher = 0
    }

    private let state = Mutex(State())

    var isWanted: Bool { state.withLock { $0.waits > 0 } }

    /// Runs `body`, a wait of the test's, with time wanted.
    func during<Value>(_ body: () async throws -> Value) async rethrows -> Value {
        let watchers = state.withLock { state in
            state.waits += 1
            defer { state.watchers = [:] }
            return state.watchers.values
        }
        watchers.forEach { $0.resume() }
        defer { state.withLock { $0.waits -= 1 } }
        return try await body()
    }

    /// Returns once time is wanted, or the task is cancelled.
    func wanted() async {
        let id = state.withLock { state in
            defer { state.nextWatcher += 1 }
            return state.nextWatcher
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.waits > 0 || Task.isCancelled { return true }
                    state.watchers[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.watchers.removeValue(forKey: id) }?.resume()
        }
    }
}

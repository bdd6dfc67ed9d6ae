import Synchronization
import Testing
import TestSupport

/// A value that tests wait on: whoever changes it wakes the waiters, who check their condition
/// again. The signal behind every wait in these tests, so none of them sleeps and hopes.
final class Observed<Value: Sendable>: Sendable {
    private struct State {
        var value: Value
        var watchers: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextWatcher = 0
    }

    private let state: Mutex<State>
    /// Told of every wait, for the virtual clock (`Harness.virtualTime`).
    private let demand: TimeDemand?

    init(_ value: Value, demand: TimeDemand? = nil) {
        state = Mutex(State(value: value))
        self.demand = demand
    }

    var value: Value { state.withLock { $0.value } }

    func update(_ change: (inout Value) -> Void) {
        let watchers = state.withLock { state in
            change(&state.value)
            return Array(state.watchers.values)
        }
        for watcher in watchers { watcher.yield() }
    }

    /// Returns the value once `condition` holds; throws `TimedOut`, naming `what`, when it does
    /// not within `timeout`.
    @discardableResult
    func wait(
        for what: String, timeout: Duration = .seconds(15), until condition: @escaping @Sendable (Value) -> Bool
    ) async throws -> Value {
        guard let demand else { return try await waitForChanges(for: what, timeout: timeout, until: condition) }
        return try await demand.during { try await waitForChanges(for: what, timeout: timeout, until: condition) }
    }

    private func waitForChanges(
        for what: String, timeout: Duration, until condition: @escaping @Sendable (Value) -> Bool
    ) async throws -> Value {
        let (changes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            defer { state.nextWatcher += 1 }
            state.watchers[state.nextWatcher] = continuation
            return state.nextWatcher
        }
        defer {
            state.withLock { _ = $0.watchers.removeValue(forKey: id) }
            continuation.finish()
        }
        continuation.yield()
        let found = try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask {
                for await _ in changes {
                    let value = self.value
                    if condition(value) { return value }
                }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let found else { throw TimedOut(description: "\(what): not within \(timeout)") }
        return found
    }
}

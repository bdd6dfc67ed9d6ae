import Synchronization

/// Runs async operations one at a time, in the order they asked. The keyring's operations go
/// through one of these: on a locked keyring two at once would each put up an unlock prompt,
/// and a store racing a listing would make the listing's answer depend on luck.
final class OneAtATime: Sendable {
    private struct State {
        var isBusy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func run<Value, Failure: Error>(_ operation: () async throws(Failure) -> Value) async throws(Failure) -> Value {
        await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
            let isFree = state.withLock { state in
                guard state.isBusy else {
                    state.isBusy = true
                    return true
                }
                state.waiting.append(turn)
                return false
            }
            if isFree { turn.resume() }
        }
        defer {
            let next = state.withLock { state in
                guard !state.waiting.isEmpty else {
                    state.isBusy = false
                    return nil as CheckedContinuation<Void, Never>?
                }
                return state.waiting.removeFirst()
            }
            next?.resume()
        }
        return try await operation()
    }
}

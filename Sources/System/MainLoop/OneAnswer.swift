import Synchronization

/// A wait that is answered once, by the first of its answers, from any thread: a reply and the
/// waiter's cancellation race, and an answer given before anyone waits (a reply on the loop's
/// thread faster than the caller) is kept for the wait. Later answers are dropped.
public final class OneAnswer<Value: Sendable>: Sendable {
    private enum State {
        case open
        case waiting(CheckedContinuation<Value, any Error>)
        case answered(Result<Value, any Error>)
        /// The answer was handed to the waiter.
        case taken
    }

    /// Shared by the answering thread (the loop's, for a reply) and the waiter's, or a
    /// cancelling thread's, whichever answers first.
    private let state = Mutex(State.open)

    public init() {}

    /// Gives the answer if none was given yet; returns whether this one was the first.
    @discardableResult
    public func answer(_ result: Result<Value, any Error>) -> Bool {
        let (first, waiting) = state.withLock { state -> (Bool, CheckedContinuation<Value, any Error>?) in
            switch state {
            case .open:
                state = .answered(result)
                return (true, nil)
            case .waiting(let continuation):
                state = .taken
                return (true, continuation)
            case .answered, .taken:
                return (false, nil)
            }
        }
        waiting?.resume(with: result)
        return first
    }

    /// The answer, once there is one. Only one task waits.
    public func value() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let given = state.withLock { state -> Result<Value, any Error>? in
                guard case .answered(let result) = state else {
                    state = .waiting(continuation)
                    return nil
                }
                state = .taken
                return result
            }
            if let given { continuation.resume(with: given) }
        }
    }
}

extension OneAnswer where Value == Void {
    @discardableResult
    public func answer() -> Bool { answer(.success(())) }
}

import Synchronization

extension MainLoop {
    /// Returns once `delay` has passed (counting a suspend); throws `CancellationError` when the
    /// task is cancelled first. Unlike `Task.sleep`, whose cancelled timer stays in the heap and
    /// wakes the loop for nothing when it is due, a cancelled sleep takes its alarm out: a wait
    /// that going offline or a stop cut short leaves the loop asleep.
    public func sleep(for delay: Duration) async throws {
        let sleeper = Sleeper()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let id = alarm(after: delay) { sleeper.rang() }
                sleeper.wait(continuation, alarm: id, loop: self)
            }
        } onCancel: {
            sleeper.cancel(loop: self)
        }
    }
}

/// One sleep's state; whichever of the alarm and the cancellation comes first resumes it, once.
private final class Sleeper: Sendable {
    private enum State {
        /// The alarm is being set.
        case setting
        case waiting(CheckedContinuation<Void, any Error>, alarm: UInt64)
        /// The alarm rang, or the task was cancelled, before the wait was in place.
        case rangEarly
        case cancelledEarly
        case over
    }

    private let state = Mutex(State.setting)

    func wait(_ continuation: CheckedContinuation<Void, any Error>, alarm: UInt64, loop: MainLoop) {
        let early = state.withLock { state -> State? in
            guard case .setting = state else {
                defer { state = .over }
                return state
            }
            state = .waiting(continuation, alarm: alarm)
            return nil
        }
        switch early {
        case .rangEarly: continuation.resume()
        case .cancelledEarly:
            loop.cancelAlarm(alarm)
            continuation.resume(throwing: CancellationError())
        default: break
        }
    }

    func rang() {
        let waiting = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            switch state {
            case .setting:
                state = .rangEarly
                return nil
            case .waiting(let continuation, _):
                state = .over
                return continuation
            default: return nil
            }
        }
        waiting?.resume()
    }

    func cancel(loop: MainLoop) {
        let waiting = state.withLock { state -> (CheckedContinuation<Void, any Error>, UInt64)? in
            switch state {
            case .setting:
                state = .cancelledEarly
                return nil
            case .waiting(let continuation, let alarm):
                state = .over
                return (continuation, alarm)
            default: return nil
            }
        }
        guard let (continuation, alarm) = waiting else { return }
        loop.cancelAlarm(alarm)
        continuation.resume(throwing: CancellationError())
    }
}

import Synchronization
import MainLoop

/// What a loop waits for besides its own timer (an account's next poll, the relay's next
/// reconnect): wake-ups, and the network. Wake-ups that come while no one waits (during a poll)
/// are kept, so several coalesce into one.
final class WakeSignal: Sendable {
    enum Wake: Sendable, Equatable {
        /// A relay message or `Deliver`: poll now, unless a backoff holds.
        case payload
        /// The network is back, or the system resumed: poll (or reconnect) at `notBefore` (a
        /// point of the daemon's timeline, spreading accounts over `PollSchedule.returnWindow`),
        /// whatever failures came while it was away.
        case networkReturned(notBefore: Duration)
    }

    struct Snapshot: Equatable {
        var wake: Wake?
        var isOnline = true
        /// Only for the account's pace: a waiter is not woken when it changes.
        var isRelayConnected = false
    }

    private struct State {
        var snapshot = Snapshot()
        /// Bumped on every change, so a waiter that looked at an older one returns at once.
        var generation = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func wake(_ wake: Wake) {
        change { snapshot in
            // A return of the network outranks a payload: it also forgets failures.
            if case .networkReturned = snapshot.wake, wake == .payload { return false }
            snapshot.wake = wake
            return true
        }
    }

    /// Only a change of the network counts: NetworkManager repeats itself, and a waiter woken
    /// for nothing would end a relay connection that is fine.
    func setOnline(_ isOnline: Bool) {
        change { snapshot in
            guard snapshot.isOnline != isOnline else { return false }
            snapshot.isOnline = isOnline
            return true
        }
    }

    func setRelayConnected(_ connected: Bool) {
        change { snapshot in
            snapshot.isRelayConnected = connected
            return false
        }
    }

    /// What is pending now, and the generation to wait past.
    func look() -> (snapshot: Snapshot, generation: Int) {
        state.withLock { ($0.snapshot, $0.generation) }
    }

    /// A poll starts now: the wake-ups before it are answered by it.
    func clearWake() {
        state.withLock { $0.snapshot.wake = nil }
    }

    /// Returns once something changed after `generation`, at once if it has. Cancellation ends
    /// the wait. One waiter at a time: the account's poll loop.
    func changed(after generation: Int) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if state.generation != generation || Task.isCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }?.resume()
        }
    }

    /// Applies `body`; a waiter hears of it only when `body` says it changed something.
    private func change(_ body: (inout Snapshot) -> Bool) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard body(&state.snapshot) else { return nil }
            state.generation += 1
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}

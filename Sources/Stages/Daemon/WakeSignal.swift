import MainLoop

/// What a loop waits for besides its own timer (an account's next poll, the relay's next
/// reconnect): wake-ups, and the network. Wake-ups that come while no one waits (during a poll)
/// are kept, so several coalesce into one.
///
/// Isolated to `LoopActor`, as the poller and the relay stream that wait on it and the
/// supervisor that wakes them: no lock, as no other thread touches it.
@LoopActor
final class WakeSignal {
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

    private var snapshot = Snapshot()
    /// Bumped on every change, so a waiter that looked at an older one returns at once.
    private var generation = 0
    /// The one waiter, the number its cancellation and its deadline name it by, and the alarm of
    /// its deadline.
    private var waiter: (number: Int, continuation: CheckedContinuation<Void, Never>, deadline: Timeline.Alarm?)?
    private var waiters = 0

    nonisolated init() {}

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
        snapshot.isRelayConnected = connected
    }

    /// What is pending now, and the generation to wait past.
    func look() -> (snapshot: Snapshot, generation: Int) {
        (snapshot, generation)
    }

    /// A poll starts now: the wake-ups before it are answered by it.
    func clearWake() {
        snapshot.wake = nil
    }

    /// Returns once something changed after `generation`, at once if it has, or at `deadline`
    /// (a point of `timeline`) when one is given. Cancellation ends the wait. One waiter at a
    /// time: the account's poll loop, or the relay stream's.
    func changed(after generation: Int, notAfter deadline: (Duration, on: Timeline)? = nil) async {
        if let (end, timeline) = deadline, timeline.now >= end { return }
        waiters += 1
        let number = waiters
        // The deadline's alarm, and a cancel from any thread, let the waiter go on the loop's
        // thread, in a job after the one that registered it.
        let release: @Sendable () -> Void = {
            MainLoop.shared.submit { LoopActor.assumeIsolated { self.release(number) } }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Registered in the same turn of the loop as the check: a change or a cancel
                // comes before it (and is seen here) or after it (and finds the waiter). The
                // deadline's alarm is set only now, so it too finds the waiter.
                if self.generation != generation || Task.isCancelled { return continuation.resume() }
                waiter = (
                    number, continuation,
                    deadline.map { end, timeline in timeline.alarm(after: end - timeline.now, release) }
                )
            }
        } onCancel: {
            release()
        }
    }

    private func release(_ number: Int) {
        guard let waiter, waiter.number == number else { return }
        self.waiter = nil
        waiter.deadline?.cancel()
        waiter.continuation.resume()
    }

    /// Applies `body`; a waiter hears of it only when `body` says it changed something.
    private func change(_ body: (inout Snapshot) -> Bool) {
        guard body(&snapshot) else { return }
        generation += 1
        if let waiter { release(waiter.number) }
    }
}

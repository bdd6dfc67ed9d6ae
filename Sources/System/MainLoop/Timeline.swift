/// The daemon's time, read off one clock: how long since the timeline started, and waits
/// until a later point of it. Code that waits takes a timeline rather than reading a clock
/// itself, so the daemon runs on `ContinuousClock` (which keeps counting while the system is
/// suspended, so an interval that elapsed during a suspend is due at the resume) and its tests
/// on a clock they move by hand.
public struct Timeline: Sendable {
    private let clock: any Clock<Duration>
    private let elapsed: @Sendable () -> Duration

    public init(_ clock: any Clock<Duration> = ContinuousClock()) {
        self.clock = clock
        elapsed = Self.stopwatch(clock)
    }

    /// Time since the timeline started.
    public var now: Duration { elapsed() }

    /// Returns once `duration` has passed; throws `CancellationError` when the task is
    /// cancelled first. On the real clock the wait is a loop alarm that the cancellation takes
    /// out (`MainLoop.sleep`), so a wait cut short never wakes the loop later.
    public func sleep(for duration: Duration) async throws {
        guard duration > .zero else {
            try Task.checkCancellation()
            return
        }
        if clock is ContinuousClock {
            try await MainLoop.shared.sleep(for: duration)
        } else {
            try await clock.sleep(for: duration)
        }
    }

    /// Returns at `deadline` (a point of `now`), at once if it has passed.
    public func sleep(until deadline: Duration) async throws {
        try await sleep(for: deadline - now)
    }

    /// Calls `action` once `duration` has passed, unless the alarm is cancelled first. On the
    /// real clock it is a loop alarm that a cancel takes out, so a deadline met early (a child
    /// that exited in time) never wakes the loop later.
    public func alarm(after duration: Duration, _ action: @escaping @Sendable () -> Void) -> Alarm {
        if clock is ContinuousClock {
            return Alarm(.loop(MainLoop.shared.alarm(after: duration, action)))
        }
        let clock = clock
        return Alarm(.task(Task {
            guard (try? await clock.sleep(for: duration)) != nil else { return }
            action()
        }))
    }

    /// An action waiting for its time (`alarm(after:_:)`).
    public struct Alarm: Sendable {
        fileprivate enum Kind: Sendable {
            case loop(UInt64)
            case task(Task<Void, Never>)
        }

        private let kind: Kind

        fileprivate init(_ kind: Kind) {
            self.kind = kind
        }

        /// The action will not run, unless it has already; cancelling again does nothing.
        public func cancel() {
            switch kind {
            case .loop(let id): MainLoop.shared.cancelAlarm(id)
            case .task(let task): task.cancel()
            }
        }
    }

    private static func stopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }
}

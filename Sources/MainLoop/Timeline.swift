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
    /// cancelled first.
    public func sleep(for duration: Duration) async throws {
        guard duration > .zero else {
            try Task.checkCancellation()
            return
        }
        try await clock.sleep(for: duration)
    }

    /// Returns at `deadline` (a point of `now`), at once if it has passed.
    public func sleep(until deadline: Duration) async throws {
        try await sleep(for: deadline - now)
    }

    private static func stopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }
}

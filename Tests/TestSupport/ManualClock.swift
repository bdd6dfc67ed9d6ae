import Synchronization

/// A clock that moves only when a test moves it, so code that waits (backoff, `Retry-After`,
/// keepalives, the gap between wake-ups) is tested in virtual time: a wait of an hour takes as
/// long as the test takes to say that an hour passed.
///
/// Hand it to the code under test as its `Timeline(clock)`. `advance(by:)` resumes, in order,
/// every sleep whose deadline it reaches; `waitForSleepers(_:)` returns once that many sleeps are
/// pending, which is how a test knows the code has reached its next wait.
public final class ManualClock: Clock, Sendable {
    public struct Instant: InstantProtocol {
        public let offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Int: Sleeper] = [:]
        var nextID = 0
        /// Woken whenever the number of sleepers changes.
        var watchers: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    public init() {}

    public var now: Instant { state.withLock { $0.now } }

    public var minimumResolution: Duration { .zero }

    /// How many sleeps are pending now.
    public var pendingSleeps: Int { state.withLock { $0.sleepers.count } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if Task.isCancelled || deadline <= state.now { return (true, []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    defer { state.watchers = [] }
                    return (false, state.watchers)
                }
                watchers.forEach { $0.resume() }
                if resumeNow {
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume()
                    }
                }
            }
        } onCancel: {
            let (sleeper, watchers) = state.withLock { state -> (Sleeper?, [CheckedContinuation<Void, Never>]) in
                let sleeper = state.sleepers.removeValue(forKey: id)
                defer { if sleeper != nil { state.watchers = [] } }
                return (sleeper, sleeper == nil ? [] : state.watchers)
            }
            watchers.forEach { $0.resume() }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on by `duration`, resuming every sleep that is due by then, earliest
    /// first.
    public func advance(by duration: Duration) {
        let (due, watchers) = state.withLock { state -> ([Sleeper], [CheckedContinuation<Void, Never>]) in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }.sorted { $0.value.deadline < $1.value.deadline }
            for (id, _) in due { state.sleepers[id] = nil }
            defer { if !due.isEmpty { state.watchers = [] } }
            return (due.map(\.value), due.isEmpty ? [] : state.watchers)
        }
        watchers.forEach { $0.resume() }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Moves the clock on to the earliest pending sleep's deadline, resuming it (and every other
    /// sleep due then); false, and the clock left as it is, when no sleep is pending.
    @discardableResult
    public func advanceToNextDeadline() -> Bool {
        let next = state.withLock { state in state.sleepers.values.map(\.deadline).min().map { state.now.duration(to: $0) } }
        guard let next else { return false }
        advance(by: max(next, .zero))
        return true
    }

    /// Returns once at least `count` sleeps are pending; throws when that takes longer than
    /// `timeout` of real time (the code under test never reached its wait).
    public func waitForSleepers(_ count: Int, timeout: Duration = .seconds(20)) async throws {
        try await waitForPendingSleeps("\(count) pending sleeps", timeout: timeout) { $0.count >= count }
    }

    /// Returns once no sleep is pending: nothing waits on this clock.
    public func waitUntilNothingSleeps(timeout: Duration = .seconds(20)) async throws {
        try await waitForPendingSleeps("no pending sleep", timeout: timeout) { $0.isEmpty }
    }

    /// Returns once a pending sleep ends `within` from now: the code under test, told
    /// something, has set its next wait that short (a wake-up's poll, say), and a test that
    /// moves the clock on moves it to that end, not to the one the news replaced.
    public func waitForSleep(endingWithin duration: Duration, timeout: Duration = .seconds(20)) async throws {
        let end = now.advanced(by: duration)
        try await waitForPendingSleeps("a pending sleep ending within \(duration)", timeout: timeout) { deadlines in
            deadlines.contains { $0 <= end }
        }
    }

    /// Returns once the pending sleeps are exactly those ending at `offsets` (from the clock's
    /// start): the code under test has put its waits where the test expects, and no other.
    public func waitForSleeps(endingAt offsets: [Duration], timeout: Duration = .seconds(20)) async throws {
        let expected = offsets.sorted()
        try await waitForPendingSleeps("sleeps ending at \(expected)", timeout: timeout) { deadlines in
            deadlines.map(\.offset).sorted() == expected
        }
    }

    private func waitForPendingSleeps(
        _ what: String, timeout: Duration, until isReached: @escaping @Sendable ([Instant]) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        // Wakes the watchers from the deadline on (a watcher may come just after a wake-up),
        // so the loop below sees that it passed.
        let alarm = Task { [self] in
            try? await Task.sleep(until: deadline)
            while !Task.isCancelled {
                let watchers = state.withLock { state in
                    defer { state.watchers = [] }
                    return state.watchers
                }
                watchers.forEach { $0.resume() }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        defer { alarm.cancel() }
        // A cancelled wait wakes at once and throws, so a test racing two waits is not held up
        // by the one that lost.
        try await withTaskCancellationHandler {
            while !isReached(state.withLock { $0.sleepers.values.map(\.deadline) }) {
                try Task.checkCancellation()
                guard ContinuousClock.now < deadline else {
                    throw TimedOut(description: "waited \(timeout) for \(what); \(pendingSleeps) pending")
                }
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let isReady = state.withLock { state in
                        if Task.isCancelled || isReached(state.sleepers.values.map(\.deadline)) { return true }
                        state.watchers.append(continuation)
                        return false
                    }
                    if isReady { continuation.resume() }
                }
            }
        } onCancel: {
            let watchers = state.withLock { state in
                defer { state.watchers = [] }
                return state.watchers
            }
            watchers.forEach { $0.resume() }
        }
    }
}

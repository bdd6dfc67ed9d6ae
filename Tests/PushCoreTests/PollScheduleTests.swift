import PushCore
import Testing

/// SplitMix64: a tiny generator whose sequence depends only on its seed, so every draw in these
/// tests is the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct PollScheduleTests {
    static func seconds(_ decision: PollDecision) -> Double? {
        if case .after(let seconds) = decision { return seconds }
        return nil
    }

    /// The wait after the `failures`-th failure in a row, for `trials` fresh schedules.
    static func waits(
        afterFailures failures: Int, trials: Int, interval: Double = 30, cap: Double = 900, retryAfter: Int? = nil
    ) -> [Double] {
        var random = SeededGenerator(state: UInt64(failures))
        return (0..<trials).compactMap { _ in
            var schedule = PollSchedule(interval: interval, backoffCap: cap)
            for _ in 1..<failures { _ = schedule.record(.failed(retryAfter: nil), random: &random) }
            return seconds(schedule.record(.failed(retryAfter: retryAfter), random: &random))
        }
    }

    // MARK: - All is well

    @Test(arguments: [PollOutcome.fresh, .notModified])
    func successWaitsTheIntervalWithinTenPercent(_ outcome: PollOutcome) {
        var random = SeededGenerator(state: 42)
        var schedule = PollSchedule(interval: 30, backoffCap: 900)
        let waits = (0..<10_000).compactMap { _ in Self.seconds(schedule.record(outcome, random: &random)) }
        #expect(waits.count == 10_000)
        #expect(waits.allSatisfy { (27...33).contains($0) })
        // The jitter uses the whole band, so accounts really do drift apart.
        #expect(waits.min()! < 27.1)
        #expect(waits.max()! > 32.9)
        let mean = waits.reduce(0, +) / Double(waits.count)
        #expect(abs(mean - 30) < 0.1)
    }

    @Test func theIntervalCanChangeWithoutForgettingFailures() {
        var random = SeededGenerator(state: 1)
        var schedule = PollSchedule(interval: 30, backoffCap: 900)
        _ = schedule.record(.failed(retryAfter: nil), random: &random)
        schedule.interval = 300
        #expect(schedule.consecutiveFailures == 1)
        let wait = Self.seconds(schedule.record(.failed(retryAfter: nil), random: &random))!
        #expect((300...900).contains(wait))
        let normal = Self.seconds(schedule.record(.fresh, random: &random))!
        #expect((270...330).contains(normal))
    }

    // MARK: - Backoff

    @Test(arguments: 1...8)
    func backoffDoublesPerFailureUpToTheCap(_ failures: Int) {
        let ceiling = min(30 * Double(1 << failures), 900)
        let waits = Self.waits(afterFailures: failures, trials: 500)
        #expect(waits.count == 500)
        #expect(waits.allSatisfy { (30...ceiling).contains($0) })
        // Full jitter: the draws reach across the whole window, top and bottom.
        #expect(waits.max()! > 30 + (ceiling - 30) * 0.95)
        #expect(waits.min()! < 30 + (ceiling - 30) * 0.05)
    }

    @Test func backoffStaysAtTheCapHoweverLongTheFailuresLast() {
        var random = SeededGenerator(state: 7)
        var schedule = PollSchedule(interval: 30, backoffCap: 900)
        let waits = (0..<200).compactMap { _ in Self.seconds(schedule.record(.failed(retryAfter: nil), random: &random)) }
        #expect(schedule.consecutiveFailures == 200)
        #expect(waits.allSatisfy { (30...900).contains($0) })
        #expect(waits.suffix(100).max()! > 850)
    }

    @Test func aCapBelowTheIntervalIsTheWait() {
        let waits = Self.waits(afterFailures: 3, trials: 50, interval: 3600, cap: 30)
        #expect(waits.allSatisfy { $0 == 30 })
    }

    @Test func successResetsTheBackoff() {
        var random = SeededGenerator(state: 3)
        var schedule = PollSchedule(interval: 30, backoffCap: 900)
        for _ in 0..<6 { _ = schedule.record(.failed(retryAfter: nil), random: &random) }
        #expect(schedule.consecutiveFailures == 6)
        _ = schedule.record(.notModified, random: &random)
        #expect(schedule.consecutiveFailures == 0)
        let wait = Self.seconds(schedule.record(.failed(retryAfter: nil), random: &random))!
        #expect((30...60).contains(wait))
    }

    @Test func noNetworkBacksOffForAMinuteAtMost() {
        var random = SeededGenerator(state: 11)
        var schedule = PollSchedule(interval: 30, backoffCap: 900)
        let waits = (0..<50).compactMap { _ in Self.seconds(schedule.record(.unreachable, random: &random)) }
        #expect(waits.count == 50)
        #expect(waits.allSatisfy { (30...PollSchedule.unreachableCap).contains($0) })
        #expect(schedule.consecutiveFailures == 50)
        // A server error after them backs off as far as the configured cap again.
        let serverError = (0..<50).compactMap { _ in Self.seconds(schedule.record(.failed(retryAfter: nil), random: &random)) }
        #expect(serverError.max()! > 800)
    }

    @Test func aLowerConfiguredCapHoldsForNoNetworkToo() {
        var random = SeededGenerator(state: 12)
        var schedule = PollSchedule(interval: 10, backoffCap: 20)
        let waits = (0..<20).compactMap { _ in Self.seconds(schedule.record(.unreachable, random: &random)) }
        #expect(waits.allSatisfy { (10...20).contains($0) })
    }

    @Test func theNetworksReturnForgetsTheFailuresOfItsAbsence() {
        var random = SeededGenerator(state: 13)
        var schedule = PollSchedule(interval: 30, backoffCap: 900)
        for _ in 0..<6 { _ = schedule.record(.failed(retryAfter: nil), random: &random) }
        schedule.networkReturned()
        #expect(schedule.consecutiveFailures == 0)
        let wait = Self.seconds(schedule.record(.failed(retryAfter: nil), random: &random))!
        #expect((30...60).contains(wait))
    }

    // MARK: - Retry-After

    @Test(arguments: [
        (120, 1, 120.0...132.0),  // above the first backoff window (30...60)
        (2000, 1, 2000...2200),  // above the cap: the server knows its load
        (1, 5, 30...900),  // below the backoff: the backoff stands
        (1_000_000_000, 1, 86_400...95_040),  // a day at most
    ])
    func retryAfterIsAFloor(_ retryAfter: Int, _ failures: Int, _ range: ClosedRange<Double>) {
        let waits = Self.waits(afterFailures: failures, trials: 300, retryAfter: retryAfter)
        #expect(waits.count == 300)
        #expect(waits.allSatisfy { range.contains($0) })
    }

    @Test func accountsToldTheSameRetryAfterDoNotReturnTogether() {
        let waits = Self.waits(afterFailures: 1, trials: 100, retryAfter: 60)
        #expect(waits.allSatisfy { (60...66).contains($0) })
        #expect(Set(waits).count == 100)
    }

    // MARK: - 401

    @Test func unauthorizedStopsUntilReset() {
        var random = SeededGenerator(state: 9)
        var schedule = PollSchedule(interval: 30, backoffCap: 900)
        _ = schedule.record(.failed(retryAfter: nil), random: &random)
        #expect(schedule.record(.unauthorized, random: &random) == .stop(.unauthorized))
        #expect(schedule.stopReason == .unauthorized)
        #expect(schedule.record(.fresh, random: &random) == .stop(.unauthorized))
        #expect(schedule.record(.failed(retryAfter: 5), random: &random) == .stop(.unauthorized))

        schedule.reset()
        #expect(schedule.stopReason == nil)
        #expect(schedule.consecutiveFailures == 0)
        let wait = Self.seconds(schedule.record(.fresh, random: &random))
        #expect(wait.map { (27...33).contains($0) } == true)
    }

    @Test func theSameSeedGivesTheSameSchedule() {
        func run() -> [PollDecision] {
            var random = SeededGenerator(state: 2024)
            var schedule = PollSchedule(interval: 30, backoffCap: 900)
            let outcomes: [PollOutcome] = [.fresh, .failed(retryAfter: nil), .failed(retryAfter: 90), .notModified, .unauthorized]
            return outcomes.map { schedule.record($0, random: &random) }
        }
        #expect(run() == run())
    }

    // MARK: - First polls

    @Test func oneHundredAccountsSpreadOverTheFirstInterval() {
        var random = SeededGenerator(state: 100)
        let delays = (0..<100).map { PollSchedule.initialDelay(index: $0, count: 100, interval: 30, random: &random) }
        for (index, delay) in delays.enumerated() {
            #expect(delay >= Double(index) * 0.3 && delay < Double(index + 1) * 0.3)
        }
        #expect(delays.max()! < 30)
    }

    @Test(arguments: [(1, 0.5), (10, 5.0), (60, 30.0)])
    func fewAccountsStartSoon(_ count: Int, _ window: Double) {
        var random = SeededGenerator(state: UInt64(count))
        let delays = (0..<count).map { PollSchedule.initialDelay(index: $0, count: count, interval: 30, random: &random) }
        #expect(delays.allSatisfy { $0 >= 0 && $0 < window })
    }

    @Test func initialDelayToleratesOddArguments() {
        var random = SeededGenerator(state: 5)
        #expect(PollSchedule.initialDelay(index: 0, count: 0, interval: 30, random: &random) == 0)
        let past = PollSchedule.initialDelay(index: 7, count: 2, interval: 30, random: &random)
        #expect(past >= 0.5 && past < 1)
        let before = PollSchedule.initialDelay(index: -1, count: 2, interval: 30, random: &random)
        #expect(before >= 0 && before < 0.5)
    }
}

/// When to poll one account next, from how the last poll went.
///
/// - All is well (200 or 304): the interval, jittered by ±10%, so accounts that started
///   together drift apart instead of firing in the same instant forever.
/// - Failures (network, 5xx, 429, 503, "too many writes"): exponential backoff with full
///   jitter. After the n-th failure in a row the wait is drawn uniformly between the interval
///   and `interval × 2ⁿ`, capped at `backoffCap`. Full jitter rather than decorrelated: when an
///   instance comes back after an outage, every account on it failed at the same moment, and a
///   uniform draw over the whole window spreads their retries most evenly; its bounds are also
///   a plain function of n, which keeps it easy to reason about and to test. The window starts
///   at the interval, not at zero, because an error should never make the daemon poll faster
///   than when all is well.
/// - `Retry-After` is a floor: the wait is never shorter, even past the cap (the server knows
///   its own load), plus up to 10% so accounts told the same number do not return together.
/// - No network (no route, an unknown host, a connection refused): the same backoff, capped at
///   `unreachableCap`, so that an account is polled within a minute of the network coming back
///   even where nothing tells the daemon that it did (no NetworkManager).
/// - 401: stop until the account is reloaded with a new token (`reset()`).
/// - Wake-ups (a relay message, `Deliver`, a resume) poll at once, but never sooner than
///   `minimumWakeGap` after the account's last poll: whoever can publish a wake-up can make an
///   account poll, never make it hammer its instance.
///
/// Why 100 accounts stay inside gitbay's default rate limits (reads: burst 120, refill 2/s):
/// gitbay's token bucket is per account, and an account here is one (instance, user) pair, so
/// no two accounts draw on one bucket and the number of accounts does not matter to any
/// bucket. Each account costs at most two reads a poll (the list, and `dashboard` when the page
/// is full), and polls are at least 9 s apart (the minimum `poll-interval` of 10 s less its
/// jitter; backoff never waits less than that either): under 0.25 reads/s, an eighth of the
/// refill alone, so the bucket stays full and its burst is never touched. What the number of accounts does change
/// is the load on one instance and the daemon's own wake-ups, which `initialDelay` spreads out:
/// 100 accounts at the default 30 s are about 3 requests a second, evenly spaced.
public struct PollSchedule: Equatable, Sendable {
    /// Seconds between polls while all is well. A variable so the daemon can switch between
    /// `poll-interval` and `relay-poll-interval` without forgetting a run of failures.
    public var interval: Double
    /// The longest backoff, in seconds (`backoff-cap`).
    public let backoffCap: Double
    public private(set) var consecutiveFailures = 0
    /// Set once polling has stopped; only `reset()` clears it.
    public private(set) var stopReason: PollDecision.StopReason?

    /// The share of the interval by which a normal wait varies either way.
    public static let jitter = 0.1
    /// A `Retry-After` beyond a day is a server mistake, not a reason to go quiet for longer.
    public static let maximumRetryAfter = 86_400.0
    /// First polls at start are at least this far apart on average, unless that would take
    /// longer than one interval.
    public static let startSpacing = 0.5
    /// The longest backoff after failures that mean the network is down, in seconds.
    public static let unreachableCap = 60.0
    /// Wake-ups of one account coalesce into polls at least this far apart, in seconds.
    public static let minimumWakeGap = 2.0
    /// After a resume or the network's return, every account polls within this window, in
    /// seconds, each at its own point of it.
    public static let returnWindow = 2.0

    /// Both in seconds, positive and finite, as `Config` guarantees.
    public init(interval: Double, backoffCap: Double) {
        self.interval = interval
        self.backoffCap = backoffCap
    }

    public mutating func record(_ outcome: PollOutcome, random: inout some RandomNumberGenerator) -> PollDecision {
        if let stopReason { return .stop(stopReason) }
        switch outcome {
        case .fresh, .notModified:
            consecutiveFailures = 0
            let factor = Double.random(in: (1 - Self.jitter)...(1 + Self.jitter), using: &random)
            return .after(seconds: interval * factor)
        case .unauthorized:
            stopReason = .unauthorized
            return .stop(.unauthorized)
        case .failed, .unreachable:
            consecutiveFailures += 1
            let cap = outcome == .unreachable ? min(backoffCap, Self.unreachableCap) : backoffCap
            // 2^32 intervals are far beyond any cap; the bound only keeps the shift defined.
            let growth = Double(1 << min(consecutiveFailures, 32))
            let lowest = min(interval, cap)
            let highest = min(interval * growth, cap)
            var wait = Double.random(in: lowest...highest, using: &random)
            if case .failed(let retryAfter?) = outcome, retryAfter > 0 {
                let floor = min(Double(retryAfter), Self.maximumRetryAfter)
                wait = max(wait, floor * Double.random(in: 1...(1 + Self.jitter), using: &random))
            }
            return .after(seconds: wait)
        }
    }

    /// Forget failures: the network is back (a resume, NetworkManager), so failures that came
    /// while it was away say nothing about the server.
    public mutating func networkReturned() {
        consecutiveFailures = 0
    }

    /// Forget failures and a stop: the account was reloaded (a new token, a new config).
    public mutating func reset() {
        consecutiveFailures = 0
        stopReason = nil
    }

    /// How long account `index` of `count` waits before its first poll: each gets its own slot
    /// of a window and a random point in it, so first polls neither bunch up nor come in a
    /// fixed order. The window is one interval for many accounts, but shorter for few (half a
    /// second per account), so a single account is polled at once rather than up to an
    /// interval after login.
    public static func initialDelay(
        index: Int, count: Int, interval: Double, random: inout some RandomNumberGenerator
    ) -> Double {
        guard count > 0 else { return 0 }
        let slot = min(interval, Double(count) * startSpacing) / Double(count)
        let position = Double(min(max(index, 0), count - 1))
        return (position + Double.random(in: 0..<1, using: &random)) * slot
    }
}

/// How one poll went, as far as scheduling cares.
public enum PollOutcome: Equatable, Sendable {
    /// 200: a new list.
    case fresh
    /// 304: nothing changed.
    case notModified
    /// A network error other than `unreachable`, 5xx, 429, 503 or "too many writes", with the
    /// server's `Retry-After` in seconds when it sent one.
    case failed(retryAfter: Int?)
    /// No network: no route, an unknown host, a connection refused.
    case unreachable
    /// 401: the token is no good.
    case unauthorized
}

public enum PollDecision: Equatable, Sendable {
    /// Poll again after this many seconds.
    case after(seconds: Double)
    /// Do not poll again until `PollSchedule.reset()`.
    case stop(StopReason)

    public enum StopReason: Equatable, Sendable {
        /// The server rejected the token (401): the account needs a new one.
        case unauthorized
    }
}

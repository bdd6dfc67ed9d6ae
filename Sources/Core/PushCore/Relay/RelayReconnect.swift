/// When to reconnect to the relay after a connection ended, for whatever reason.
///
/// Exponential backoff with jitter, from 250 ms to 60 s: the n-th failure in a row waits a
/// uniform draw between half and all of `min(60 s, 250 ms × 2ⁿ⁻¹)`. Half, not zero, as the
/// floor: a relay that drops every connection at once is retried neither in a tight loop nor in
/// lockstep with every other client it dropped. A connection that stayed up for
/// `healthyConnection` resets the run, so one drop after hours of good service is retried
/// within a quarter second.
public struct RelayBackoff: Sendable, Equatable {
    public static let shortest = Duration.milliseconds(250)
    public static let longest = Duration.seconds(60)
    /// A connection that lasted this long counts as healthy.
    public static let healthyConnection = Duration.seconds(30)

    public private(set) var consecutiveFailures = 0

    public init() {}

    /// The wait before the next connection attempt, after one that lasted `uptime` (zero when
    /// it never connected).
    public mutating func delay(
        afterConnectionLasting uptime: Duration, random: inout some RandomNumberGenerator
    ) -> Duration {
        if uptime >= Self.healthyConnection { consecutiveFailures = 0 }
        consecutiveFailures += 1
        // 250 ms × 2⁸ is past the cap already; the bound keeps the shift small.
        let ceiling = min(Self.shortest * (1 << min(consecutiveFailures - 1, 16)), Self.longest)
        return ceiling * Double.random(in: 0.5...1, using: &random)
    }
}

/// The dead-connection rule: a relay sends a keepalive every `keepalivePeriod` while the topic
/// is quiet, so a connection with no bytes at all for two periods is dead (a NAT or proxy
/// forgot it, the relay hung), even though TCP may not notice for many minutes.
public struct RelayLiveness: Sendable, Equatable {
    /// ntfy's default keepalive interval.
    public static let defaultKeepalivePeriod = Duration.seconds(45)

    public let keepalivePeriod: Duration

    public init(keepalivePeriod: Duration = defaultKeepalivePeriod) {
        self.keepalivePeriod = keepalivePeriod
    }

    /// How long a connection may stay silent before it is given up.
    public var silenceLimit: Duration { keepalivePeriod * 2 }

    /// Whether a connection whose last bytes came `silence` ago is dead.
    public func isDead(afterSilence silence: Duration) -> Bool {
        silence >= silenceLimit
    }
}

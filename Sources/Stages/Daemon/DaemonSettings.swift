import GitbayClient
import PushCore

/// What the daemon runs on: the config file's settings, and the timings drawn from them.
///
/// The timings are fields of their own, set from `config` by `init(config:)`, so that tests can
/// poll every half second and give up on a stalled server after two, where the config file
/// rightly refuses anything below ten seconds. The daemon itself only ever uses
/// `init(config:)`; there is no second way in for users.
public struct DaemonSettings: Sendable, Equatable {
    public var config: Config
    /// Seconds between two polls of one account while all is well (`poll-interval`).
    public var pollInterval: Double
    /// Seconds between two polls of one account while the relay is connected
    /// (`relay-poll-interval`).
    public var relayPollInterval: Double
    /// How often a quiet relay sends keepalives (`relay-keepalive`); twice that without a byte
    /// means the relay connection is dead.
    public var relayKeepalive: Duration
    /// The longest wait, in seconds, between retries after errors (`backoff-cap`).
    public var backoffCap: Double
    /// Timeouts, limits and the CA file for every request.
    public var client: GitbayClient.Options
    /// How often, at most, each account's device list is read to notice that the server reaped
    /// this install's device row.
    public var registrationCheckInterval: Double

    public static let defaultRegistrationCheckInterval = 3600.0

    public init(config: Config) {
        self.config = config
        pollInterval = Double(config.pollIntervalSeconds)
        relayPollInterval = Double(config.relayPollIntervalSeconds)
        relayKeepalive = .seconds(config.relayKeepaliveSeconds)
        backoffCap = Double(config.backoffCapSeconds)
        client = GitbayClient.Options(caFile: config.caFile)
        registrationCheckInterval = Self.defaultRegistrationCheckInterval
    }
}

import Settings
import Synchronization

/// How often accounts poll while all is well: `poll-interval`, or the slower
/// `relay-poll-interval` while the relay stream is connected and polls are only a safety net
/// for what a relay could miss. Set by the relay stream, read by every poller before it
/// schedules its next poll.
final class PollPace: Sendable {
    private let relayConnected = Atomic<Bool>(false)

    func setRelayConnected(_ connected: Bool) {
        relayConnected.store(connected, ordering: .relaxed)
    }

    /// Seconds between two polls of one account, in `settings`.
    func interval(in settings: DaemonSettings) -> Double {
        relayConnected.load(ordering: .relaxed) ? settings.relayPollInterval : settings.pollInterval
    }
}

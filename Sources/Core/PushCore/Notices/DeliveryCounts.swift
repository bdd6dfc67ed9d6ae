/// What became of the wake-ups the daemon was handed since it started (relay messages and
/// `Deliver` calls): part of `DaemonStatus`.
public struct DeliveryCounts: Codable, Equatable, Sendable {
    /// Wake-ups that made an account poll (several within the minimum gap make one poll).
    public var wakeUps: Int
    /// Payloads that were not JSON, named no account here, or came on no account's topic.
    public var dropped: Int

    public init(wakeUps: Int = 0, dropped: Int = 0) {
        self.wakeUps = wakeUps
        self.dropped = dropped
    }

    private enum CodingKeys: String, CodingKey {
        case dropped
        case wakeUps = "wake_ups"
    }
}

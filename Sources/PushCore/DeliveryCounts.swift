/// How many payloads (relay messages and `Deliver` calls) the daemon has handled since it
/// started, by what became of each: part of `DaemonStatus`.
public struct DeliveryCounts: Codable, Equatable, Sendable {
    /// Notices put on screen.
    public var shown: Int
    /// Notices already on screen or already shown by a poll, so not shown again.
    public var alreadyShown: Int
    /// Wake-ups that made an account poll at once.
    public var wakeUps: Int
    /// Payloads that were not JSON, not a payload, for no account here, or not routable.
    public var dropped: Int

    public init(shown: Int = 0, alreadyShown: Int = 0, wakeUps: Int = 0, dropped: Int = 0) {
        self.shown = shown
        self.alreadyShown = alreadyShown
        self.wakeUps = wakeUps
        self.dropped = dropped
    }

    private enum CodingKeys: String, CodingKey {
        case shown, dropped
        case alreadyShown = "already_shown"
        case wakeUps = "wake_ups"
    }
}

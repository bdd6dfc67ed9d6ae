/// What gbnotify itself did to hear less, kept in the state directory (`noise.json`) by
/// `gbnotifyctl` and read by the daemon: the repositories it muted on their servers (gitbay
/// lists no mutes, so this record is the only list there is) and the snoozes in force.
public struct NoiseRecord: Codable, Equatable, Sendable {
    public static let currentVersion = 1
    /// Far more than anyone mutes by hand; a record past these is not ours.
    public static let maximumMutes = 2000
    public static let maximumSnoozes = 200

    /// A repository muted with `gbnotifyctl mute` (or the notification's Mute).
    public struct Mute: Codable, Equatable, Sendable {
        public let account: Account
        /// `OWNER/REPO`.
        public let repo: String
        /// When, in seconds since the Unix epoch.
        public let at: Int64

        public init(account: Account, repo: String, at: Int64) {
            self.account = account
            self.repo = repo
            self.at = at
        }
    }

    /// Popups held until `until` (seconds since the Unix epoch), for one account or, with no
    /// account, for all.
    public struct Snooze: Codable, Equatable, Sendable {
        public let account: Account?
        public let until: Int64

        public init(account: Account?, until: Int64) {
            self.account = account
            self.until = until
        }

        public func covers(_ other: Account) -> Bool { account == nil || account == other }
    }

    public var version = currentVersion
    /// By account reference, then repository.
    public private(set) var mutes: [Mute] = []
    public private(set) var snoozes: [Snooze] = []

    public init() {}

    /// Whether a record read back from disk is one this version wrote: its version, within the
    /// bounds, every repository a repository name.
    public var isUsable: Bool {
        version == Self.currentVersion && mutes.count <= Self.maximumMutes && snoozes.count <= Self.maximumSnoozes
            && mutes.allSatisfy { NotificationDestination.repository(parsing: $0.repo) != nil }
    }

    /// Notes that `repo` of `account` is muted (again: the time is updated). False when the
    /// record is full, so nothing was noted.
    public mutating func recordMute(of repo: String, account: Account, at now: Int64) -> Bool {
        let isNew = !mutes.contains { $0.account == account && $0.repo == repo }
        guard !isNew || mutes.count < Self.maximumMutes else { return false }
        mutes.removeAll { $0.account == account && $0.repo == repo }
        mutes.append(Mute(account: account, repo: repo, at: now))
        mutes.sort { ($0.account.reference, $0.repo) < ($1.account.reference, $1.repo) }
        return true
    }

    /// A watch change made on the server, in the record: a mute noted, anything else (an undo,
    /// a watch) forgets the repository's mute. False when a mute could not be noted (the record
    /// is full).
    public mutating func note(_ change: GitbayCommand.WatchChange, of repo: String, account: Account, at now: Int64) -> Bool {
        guard change == .mute else {
            forgetMute(of: repo, account: account)
            return true
        }
        return recordMute(of: repo, account: account, at: now)
    }

    /// Forgets a mute (the repository was unmuted or watched); false when it was not noted.
    @discardableResult
    public mutating func forgetMute(of repo: String, account: Account) -> Bool {
        let before = mutes.count
        mutes.removeAll { $0.account == account && $0.repo == repo }
        return mutes.count != before
    }

    /// Snoozes `account` (nil: every account) until `until`, replacing its earlier snooze, and
    /// drops the snoozes over by `now`.
    public mutating func snooze(_ account: Account?, until: Int64, now: Int64) {
        snoozes.removeAll { $0.account == account || $0.until <= now }
        snoozes.append(Snooze(account: account, until: until))
        // An account's own snoozes are few (one each); past the bound, the soonest over go.
        if snoozes.count > Self.maximumSnoozes {
            snoozes.sort { $0.until > $1.until }
            snoozes.removeLast(snoozes.count - Self.maximumSnoozes)
        }
    }

    /// Ends the snooze of `account` (nil: the one for every account, and every account's own);
    /// false when there was none in force at `now`.
    @discardableResult
    public mutating func endSnooze(_ account: Account?, now: Int64) -> Bool {
        let ended = snoozes.contains { ($0.account == account || account == nil) && $0.until > now }
        snoozes.removeAll { $0.account == account || account == nil || $0.until <= now }
        return ended
    }

    /// When the snoozes that hold `account` end, if any holds it at `now`: the latest of its own
    /// and the one for every account.
    public func snoozeEnd(for account: Account, at now: Int64) -> Int64? {
        snoozes.filter { $0.covers(account) && $0.until > now }.map(\.until).max()
    }
}

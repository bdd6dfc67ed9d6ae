/// What the daemon did, as typed values for whoever watches it (the tests, which wait on these
/// rather than on the wording of the log; the log is for people). Nothing reads them back into
/// the daemon: they only flow out. `gbnotifyd --events-fd N` writes them as JSON lines.
///
/// An event is told after the log line that says the same, so a reader of both, in order (the
/// tests hand `--events-fd 2`), has the line once it has the event.
public enum DaemonEvent: Sendable, Equatable, Codable {
    /// A poll of the account ended: `words` as `status` shows them ("304 not modified", "200 ok,
    /// 2 new", "timeout"), `failed` when it counts as a failure.
    case polled(Account, words: String, failed: Bool)
    /// The account's registration answered: its device id, or nil and why not.
    case registered(Account, deviceID: Int64?, words: String)
    /// Rows of the account were marked read on its instance.
    case markedRead(Account, [Int64])
    /// The keyring is waited for, for this (a dialog up for the user, or a failure tried again
    /// later); told when the reason changes.
    case keyringWaiting(String)
    /// The relay stream is connected, again after a gap when `afterGap`.
    case relayConnected(afterGap: Bool)
    /// Relay message `messageID` woke the account.
    case relayWoke(Account, messageID: String)
    /// NetworkManager's word on the network changed, and every account was told.
    case network(NetworkState)
    /// The account's token was refused: polling stopped.
    case tokenRejected(Account)
    /// The account left the keyring (or is no longer allowed): it is no longer polled.
    case retired(Account)
    /// The config and the accounts are read again (SIGHUP, `gbnotifyctl reload`).
    case reloading
    /// The repository was muted (or unmuted) on the account's instance.
    case repositoryMuted(Account, repository: String, muted: Bool)
    /// An answer from a notification came to this (a reaction set or not, a reply posted or
    /// kept), on the account's instance.
    case answered(Account, AnswerSaid)
    /// A reaction was taken back (Undo) on the account's instance.
    case reactionTakenBack(Account, path: String, reaction: String)
    /// Every account is snoozed until `until` (seconds since the Unix epoch), or no longer
    /// when nil.
    case snoozed(until: Int64?)
    /// A snooze or quiet hours now hold back `count` of the account's notices.
    case held(Account, count: Int)
    /// The stage took over `count` notifications an earlier gbnotifyd left open.
    case adopted(count: Int)
    /// What the book holds (`subject`: a group of notices, a summary, ...) is on screen as
    /// `notification`, in place of `replacing` when it replaced one.
    case shown(Account, ScreenBook.Subject, notification: UInt32, replacing: UInt32?)
    /// One of ours was withdrawn.
    case withdrawn(notification: UInt32)
    /// The server closed one of ours (expired, dismissed, ...: the spec's `reason`).
    case closedByServer(notification: UInt32, reason: UInt32)
    /// The server said `action` was invoked on one of ours, and it was taken (not a repeat).
    case clicked(notification: UInt32, action: String)
    /// What a click started: a URL handed to the portal, or a program's argv.
    case opened([String])
}

/// Where `DaemonEvent`s go: nowhere in the daemon (the default costs nothing); in the tests, to
/// a recorder that has each one before `tell` returns, so a test that waits until the daemon is
/// idle finds everything it did already told.
public struct DaemonEvents: Sendable {
    private let sink: (@Sendable (DaemonEvent) -> Void)?

    public static let none = DaemonEvents(nil)

    /// Events told to `sink`, on the teller's thread: it must not block.
    public init(_ sink: (@Sendable (DaemonEvent) -> Void)?) {
        self.sink = sink
    }

    public func tell(_ event: DaemonEvent) {
        sink?(event)
    }
}

extension DaemonEvent {
    /// The log line that says what this event says, written from it (`Logger.report`), for the
    /// events whose line says no more than they do; nil for the others, whose lines carry what
    /// the event does not (an error, a program's pid, a time of day in the local zone).
    public var logLine: (level: Config.LogLevel, text: String)? {
        switch self {
        case .markedRead(let account, let ids):
            (.info, "\(account.displayName): marked notice \(ids.map(String.init).joined(separator: ", ")) read")
        case .keyringWaiting(let what):
            (.warning, "waiting for the keyring: \(what)")
        case .relayWoke(let account, let messageID):
            (.debug, "\(account.displayName): woken up by relay message \(messageID); polling soon")
        case .retired(let account):
            (.info, "\(account.displayName): no longer polled")
        case .reloading:
            (.info, "reloading the config and the accounts")
        case .repositoryMuted(let account, let repository, let muted):
            (.info, "\(account.displayName): \(muted ? "muted" : "unmuted") \(repository) on its instance")
        case .answered(let account, let said):
            switch said {
            case .reacted(let path, let reaction): (.info, "\(account.displayName): reacted \(reaction) to \(path)")
            case .replied(let path): (.info, "\(account.displayName): replied to \(path)")
            case .reactionFailed(let path, let reaction, let reason):
                (.warning, "\(account.displayName): could not react \(reaction) to \(path): \(reason)")
            case .replyKept(let path, let reason):
                (.warning, "\(account.displayName): the reply to \(path) was not posted and is kept as a draft: \(reason)")
            case .replyNotSent(let path, let reason):
                (.warning, "\(account.displayName): the reply to \(path) was not sent: \(reason)")
            }
        case .reactionTakenBack(let account, let path, let reaction):
            (.info, "\(account.displayName): took back \(reaction) from \(path)")
        case .adopted(let count):
            (.info, "took over \(count) notification\(count == 1 ? "" : "s") an earlier gbnotifyd left open")
        case .withdrawn(let notification):
            (.info, "withdrew notification \(notification)")
        case .closedByServer(let notification, let reason):
            (.debug, "notification \(notification) was closed by the server (reason \(reason))")
        case .polled, .registered, .relayConnected, .network, .tokenRejected, .snoozed, .held, .shown, .clicked, .opened:
            nil
        }
    }
}

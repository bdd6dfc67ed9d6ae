/// What the daemon did, as typed values for whoever watches it (the tests, which wait on these
/// rather than on the wording of the log; the log is for people). Nothing reads them back into
/// the daemon: they only flow out.
public enum DaemonEvent: Sendable, Equatable {
    /// A poll of the account ended: `words` as `status` shows them ("304 not modified", "200 ok,
    /// 2 new", "timeout"), `failed` when it counts as a failure.
    case polled(Account, words: String, failed: Bool)
    /// The account's registration answered: its device id, or nil and why not.
    case registered(Account, deviceID: Int64?, words: String)
    /// Rows of the account were marked read on its instance.
    case markedRead(Account, [Int64])
    /// A keyring call waits for its user, for this.
    case keyringWaiting(String)
    /// The relay stream is connected, again after a gap when `afterGap`.
    case relayConnected(afterGap: Bool)
    /// Relay message `messageID` woke the account.
    case relayWoke(Account, messageID: String)
    /// NetworkManager's word on the network changed, and every account was told.
    case network(NetworkState)
    /// The account's token was refused: polling stopped.
    case tokenRejected(Account)
    /// What the book holds (`subject`: a group of notices, a summary, ...) is on screen as
    /// `notification`, in place of `replacing` when it replaced one.
    case shown(Account, ScreenBook.Subject, notification: UInt32, replacing: UInt32?)
    /// One of ours was withdrawn.
    case withdrawn(notification: UInt32)
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

import Desktop
import PushCore

/// Everything that reaches the supervisor through its one way in (`Supervisor.take`, a call), in
/// the order it happened: what the signals, the bus, the keyring and the desktop's clicks have to say.
/// (The relay stream and the system's watch call it instead: `relayed`, `resumed`,
/// `networkChanged`.) The supervisor hands plain values on to the pollers and the desktop, and
/// no stage calls back into it.
public enum SupervisorEvent: Sendable {
    /// Read the config and the keyring again (SIGHUP, `Reload()`); `reply` learns what could
    /// not be applied, once it is done.
    case reload(reply: CheckedContinuation<[String], Never>?)
    /// A payload handed to `Deliver`: a wake-up for the account it names.
    case deliver(String, reply: CheckedContinuation<Result<Account, PayloadError>, Never>)
    /// Something in the keyring may have changed: read the accounts again.
    case keyringChanged
    /// A keyring call has waited a while for the user, for this.
    case keyringWaiting(KeyringWait)
    /// A click's "Mark read": these inbox rows of the account.
    case markRead(Account, [Int64])
    /// A click's "Mute" or "Undo": the repository's watch state on the account's instance.
    case setWatch(Account, repository: String, GitbayCommand.WatchChange)
    /// A click's "👍" or its "Undo", or a reply typed into a popup: on the item, on the
    /// account's instance.
    case answer(Account, ItemAnswer)
    /// The tray's snooze of every account until then (seconds since the Unix epoch); nil ends
    /// every snooze ("Resume notifications").
    case snooze(until: Int64?)

    /// What a click on a notification asks of an account.
    public init(_ request: DesktopRequest) {
        switch request {
        case .markRead(let account, let ids): self = .markRead(account, ids)
        case .setWatch(let account, let repository, let change): self = .setWatch(account, repository: repository, change)
        case .answer(let account, let answer): self = .answer(account, answer)
        }
    }
}

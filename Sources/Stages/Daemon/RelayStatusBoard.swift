import FoundationEssentials
import MainLoop
import PushCore

/// What the relay stream has to say for `Status()`: written by the stream as it goes, read by
/// the supervisor at any time. Both run on the loop (`LoopActor`), so it needs no lock.
@LoopActor
final class RelayStatusBoard {
    private(set) var status: RelayStatus

    init(url: String, lastMessageID: String?) {
        status = RelayStatus(url: url, lastMessageID: lastMessageID)
    }

    func update(_ change: (inout RelayStatus) -> Void) {
        change(&status)
    }

    /// Something arrived now.
    func eventArrived() {
        let now = AccountStatusBoard.timestamp(Date.now)
        status.lastEvent = now
    }
}

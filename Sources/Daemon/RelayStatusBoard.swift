import FoundationEssentials
import PushCore
import Synchronization

/// What the relay stream has to say for `Status()`: written by the stream as it goes, read by
/// the supervisor at any time.
final class RelayStatusBoard: Sendable {
    private let facts: Mutex<RelayStatus>

    init(url: String, lastMessageID: String?) {
        facts = Mutex(RelayStatus(url: url, lastMessageID: lastMessageID))
    }

    func update(_ change: (inout RelayStatus) -> Void) {
        facts.withLock { change(&$0) }
    }

    var status: RelayStatus { facts.withLock { $0 } }

    /// Something arrived now.
    func eventArrived() {
        let now = AccountStatusBoard.timestamp(Date.now)
        facts.withLock { $0.lastEvent = now }
    }
}

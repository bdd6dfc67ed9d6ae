import Accounts
import FoundationEssentials
import MainLoop
import PushCore

/// What one account's poller has to say for `Status()`: written by the poller as it goes, read
/// by the supervisor at any time. Both run on the loop (`LoopActor`), so it needs no lock.
@LoopActor
final class AccountStatusBoard {
    struct Facts {
        var lastPoll: Date?
        /// `304 not modified`, `200 ok, 2 new`, `timeout`, ...
        var lastResult: PollResult?
        /// Nil while polling is stopped.
        var nextPoll: Date?
        var unread: UnreadCount?
        /// This run's registration; nil until it has answered.
        var registration: Registration?
        /// The stored device id, shown until this run's registration answers.
        var storedDeviceID: Int64?
        /// Why the last poll failed; nil once one succeeds.
        var pollError: String?
        var consecutiveFailures = 0
        var needsToken = false
        /// The system says it is offline: nothing polls.
        var isOffline = false
    }

    private var facts: Facts

    init(storedDeviceID: Int64?, unread: Int?) {
        facts = Facts(unread: unread.map(UnreadCount.exact), storedDeviceID: storedDeviceID)
    }

    func update(_ change: (inout Facts) -> Void) {
        change(&facts)
    }

    /// `read` rows were marked read here: the count falls at once, before the next poll
    /// confirms it. Returns the new count.
    func lowerUnread(by read: Int) -> UnreadCount {
        let lowered: UnreadCount = switch facts.unread {
        case .exact(let count)?: .exact(max(count - read, 0))
        case .atLeast(let count)?, .needsDashboard(let count)?: .atLeast(max(count - read, 0))
        case nil: .exact(0)
        }
        facts.unread = lowered
        return lowered
    }

    func status(of account: Account) -> AccountStatus {
        let deviceID: Int64?
        let registrationError: String?
        switch facts.registration {
        case .registered(let id)?:
            (deviceID, registrationError) = (id, nil)
        case let registration?:
            (deviceID, registrationError) = (nil, registration.description)
        case nil:
            (deviceID, registrationError) = (facts.storedDeviceID, nil)
        }
        return AccountStatus(
            id: account.id, instance: account.instance.url, user: account.username, state: Self.state(facts),
            lastPoll: facts.lastPoll.map(Self.timestamp), lastResult: facts.lastResult,
            nextPoll: facts.nextPoll.map(Self.timestamp), unread: facts.unread?.badgeCount, deviceID: deviceID,
            lastError: facts.pollError ?? registrationError)
    }

    /// Polling problems first, since they cost the user notices; registration problems only
    /// matter once polling works.
    private nonisolated static func state(_ facts: Facts) -> AccountState {
        if facts.needsToken { return .needsToken }
        if facts.isOffline { return .offline }
        if facts.consecutiveFailures > 0 { return .backingOff }
        if facts.lastPoll == nil { return .starting }
        switch facts.registration {
        case .pushUnavailable?: return .pushUnavailable
        case .readOnlyToken?, .failed?: return .registrationFailed
        case .registered?, nil: return .ok
        }
    }

    /// `2026-09-20T10:11:12Z`.
    nonisolated static func timestamp(_ date: Date) -> String {
        Date.ISO8601FormatStyle().format(date)
    }
}

/// Times of day for `status`, read off the daemon's timeline from the moment it started, so
/// that on a manual clock they move with it.
struct WallClock: Sendable {
    let started = Date.now
    let timeline: Timeline

    var now: Date { started.addingTimeInterval(timeline.now.seconds) }
}

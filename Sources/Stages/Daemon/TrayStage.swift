import Desktop
import FoundationEssentials
import Logging
import MainLoop
import PushCore
import Tray

/// The tray item beside the desktop stage: handed the same news, it keeps what the tray shows
/// (`TrayInbox`) and shows it; what the user chooses there comes out of `choices` as plain
/// values for the daemon to carry out (`TrayChoice`), never as calls into another stage.
///
/// Isolated to `LoopActor`, as the supervisor is (which says why not `@MainActor`).
@LoopActor
final class TrayStage {
    nonisolated let tray: Tray
    private let wallClock: WallClock
    private let zone: ZoneOffsets
    private var inbox = TrayInbox()
    private var rules = RuleSet.none
    private var snoozes: [NoiseRecord.Snooze] = []
    private var accounts: [Account] = []
    /// Rings at the soonest end of a snooze still going, to grey out "Resume notifications"
    /// when nothing is snoozed any more; none without a snooze.
    private var snoozeEnd: (at: Int64, alarm: Timeline.Alarm)?

    nonisolated init(tray: Tray, wallClock: WallClock, zone: ZoneOffsets) {
        self.tray = tray
        self.wallClock = wallClock
        self.zone = zone
    }

    /// Takes news as the desktop stage does, and returns once the tray shows it.
    func hand(_ news: DesktopNews) async {
        switch news {
        case .update(let update):
            inbox.take(update, rules: rules)
        case .accounts(let polled):
            accounts = polled
            inbox.keep(only: polled)
        case .config(let config):
            rules = config.rules
        case .snoozes(let snoozes):
            self.snoozes = snoozes
        case .tokenRejected, .answered:
            return
        }
        await show()
    }

    /// Shows the tray's state: the inbox and whether a snooze is still going, with the alarm
    /// set for the soonest end of one.
    private func show() async {
        let now = Int64(wallClock.now.timeIntervalSince1970)
        let end = snoozes.map(\.until).filter { $0 > now }.min()
        inbox.setSnoozed(end != nil)
        if end != snoozeEnd?.at {
            snoozeEnd?.alarm.cancel()
            snoozeEnd = end.map { end in
                (end, wallClock.timeline.alarm(after: .seconds(end - now)) { [weak self] in
                    Task { await self?.show() }
                })
            }
        }
        await tray.show(inbox.state)
    }

    /// What a choice in the tray asks for. nil when it asks for nothing that can be done (the
    /// inbox with no account polled).
    func choice(for request: TrayRequest) -> TrayChoice? {
        switch request {
        case .open(let target, let token):
            return .open(target, activationToken: token)
        case .openInbox(let token):
            // The first account by id, as `gbnotifyctl open` without an account.
            guard let account = accounts.min(by: { $0.id < $1.id }) else { return nil }
            return .open(PushTarget(account: account, destination: nil), activationToken: token)
        case .markAllRead(let account, let ids):
            return .supervisor(.markRead(account, ids))
        case .snooze(let snooze):
            return .supervisor(.snooze(until: snooze.end(from: Int64(wallClock.now.timeIntervalSince1970), zone: zone)))
        case .resume:
            return .supervisor(.snooze(until: nil))
        }
    }
}

/// What a choice in the tray comes to: something to open, the way a click on a notification
/// opens it, or an event for the supervisor.
enum TrayChoice: Sendable {
    case open(PushTarget, activationToken: String?)
    case supervisor(SupervisorEvent)
}

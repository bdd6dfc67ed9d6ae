import DBus
import Logging
import MainLoop
import Notifications
import PushCore
import StateStore

/// How a show ended: shown under an id, no server to show it, refused twice, or given up.
enum ShowOutcome: Sendable {
    case shown(UInt32, replacing: UInt32?)
    case noServer
    case refused(NotificationError)
    case cancelled
}

/// The desktop stage's state, changed by calls in the order things happen: the book of what is
/// on screen (`ScreenBook`, which decides), carried out through the notification server, saved
/// for the next daemon, with the badge beside it and clicks sent on.
///
/// Every call that changes the book (news, a click, a show's answer, a hold's end) is
/// synchronous: it decides and starts what the server is asked (`apply`) before it returns, and
/// what the server answers comes back as another call. So no two of them interleave, and
/// `apply` is never entered while it runs. Only the stop and a broadcast's check of its sender
/// wait, and each checks the book again after its wait.
///
/// What is shown is carried out in `ScreenShows.swift`; where a click goes, in `ScreenClicks.swift`.
///
/// Isolated to `LoopActor`, as the daemon's other stages are: its code runs on the main loop's
/// thread in `gbnotifyd` and in the in-process tests alike (`Daemon.Supervisor` says why not
/// `@MainActor`).
@LoopActor
final class Screen {
    let client: any NotificationServer
    let signals: ServerSignals
    private var badge: Badge
    var clicks: Clicks
    let state: StateFiles
    var options: Desktop.Options
    /// Where what a click asks of the accounts goes, by a call: the supervisor, which outlives
    /// the stage's use of it.
    private weak var requestTaker: (any AccountRequests)?
    /// Clicks' requests made before there was a taker (`sendRequests(to:)`); nil once there is.
    private var unsentRequests: [DesktopRequest]? = []
    let logger: Logger

    var book: ScreenBook
    /// The notification server's unique name; nil while there is none.
    var serverOwner: String?
    /// Asked once per server owner.
    var capabilities: NotificationCapabilities?
    /// The asking under way; the shows wait for its answer.
    var capabilitiesAsked: Task<Void, Never>?
    /// Closings taken while the capabilities were asked: the shows still wait for them.
    var closingsBeforeShows: [Task<Void, Never>] = []
    /// Counts the servers: an answer about an earlier one is not kept.
    var serverGeneration: UInt64 = 0
    /// What the server is known to do (`ServerQuirks`): asked at the start, and with the
    /// capabilities of each new server.
    var quirks: ServerQuirks
    /// The actions (keys and labels) each entry's notification was last shown with, for a
    /// server that keeps the first ones (`ServerQuirks.keepsFirstButtons`).
    var shownActions: [UInt64: [String]] = [:]
    /// The accounts polled now; with more than one, each notification names its account.
    var accounts: [Account] = []
    /// Activation tokens the server sent, which come just before their click.
    var activationTokens: [UInt32: String] = [:]
    /// Where a reply typed into a notification goes, by its server id (`offerReply`), and the
    /// ids in the order they were shown.
    var replyTargets: [UInt32: ReplyTarget] = [:]
    var replyTargetOrder: [UInt32] = []
    var lastSaved: ScreenBook.Saved?
    /// Entries said to wait for a server, so each is said once.
    var waiting: Set<UInt64> = []
    /// The snoozes in force; with the config's quiet hours, they hold popups back.
    private var snoozes: [NoiseRecord.Snooze] = []
    /// The one timer of the holds: it fires at the soonest end (`holdEnd`) of any hold.
    private var holdTimer: Timeline.Alarm?
    private var holdEnd: Int64?
    /// Shows sent and not yet answered, by entry id: one at a time per entry, any number at once.
    var flights: [UInt64: Flight] = [:]
    var flightsStarted: UInt64 = 0
    /// News handed over, with the entries it changed: answered once none of them is being shown.
    var handedNews: [(entries: Set<UInt64>, reply: NewsReply)] = []
    /// Once the stop has begun, nothing more is taken.
    private(set) var isStopping = false
    private var isStopped = false
    /// A second stop, waiting for the first to end.
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []

    /// A show sent to the server: the entry as it was sent, and its number, which tells its
    /// answer from that of a show given up (a server that left).
    struct Flight {
        let number: UInt64
        let entry: ScreenBook.Entry
        let actions: [String]
        let task: Task<ShowOutcome, Never>
    }

    nonisolated init(
        client: any NotificationServer, signals: ServerSignals, badge: Badge, clicks: Clicks, state: StateFiles,
        options: Desktop.Options, logger: Logger, saved: ScreenBook.Saved?, serverOwner: String?, server: ServerInformation?
    ) {
        self.client = client
        self.signals = signals
        self.badge = badge
        self.clicks = clicks
        self.state = state
        self.options = options
        self.logger = logger
        self.serverOwner = serverOwner
        quirks = ServerQuirks(serverName: server?.name, version: server?.version)
        book = ScreenBook(
            limit: quirks.keptOpen(maxNotifications: options.config.maxNotifications), adopting: saved,
            serverOwner: serverOwner, server: quirks)
        book.rules = options.config.rules
        lastSaved = saved
    }

    /// The start: a badge left by an earlier daemon is cleared until the first polls answer,
    /// and what was taken over is said.
    func begin() {
        badge.clear(logger: logger)
        if !quirks.adoptsAfterRestart, let lastSaved, lastSaved.serverOwner == serverOwner, case let left = lastSaved.entries.count, left > 0 {
            logger.info("""
                none of the \(left) notification\(left == 1 ? "" : "s") an earlier gbnotifyd left open is taken over: \
                this notification server withdrew them as it left the bus
                """)
        }
        let adopted = book.entries.count
        if adopted > 0 {
            logger.report(.adopted(count: adopted), to: options.events)
        }
        // A "Muted" notification taken over keeps the Undo window it was shown with: gone now
        // if it is over, else when it ends.
        let now = options.wallClock
        for (id, until) in book.endUndoWindows(at: now) {
            withdrawSaid(id, after: .seconds(until - now))
        }
        book.takeClosings().forEach { withdraw($0) }
        save()
    }

    /// News handed over: `reply` is answered once what it changed is shown (or waits for a
    /// server). News handed during the stop is not taken and its reply waits for the caller's
    /// cancellation (a poller retired at the stop); after the stop it is answered at once.
    func take(_ news: DesktopNews, answering reply: NewsReply) {
        guard !isStopping else {
            if isStopped { reply.answer() }
            return
        }
        let before = Dictionary(uniqueKeysWithValues: book.entries.map { ($0.id, $0.subject) })
        take(news)
        let changed = book.entries.filter { before[$0.id] != $0.subject }.map(\.id)
        handedNews.append((Set(changed), reply))
        apply()
    }

    /// A broadcast of the server's interface: GNOME Shell's own copy, the only one a
    /// notification taken over from an earlier daemon gets there; for our own notifications the
    /// server's copy came already.
    func heardBroadcast(_ signal: DBusSignal) async {
        guard !isStopping, let event = NotificationClient.event(signal), let id = event.notificationID,
              book.entry(serverID: id)?.isAdopted == true, await signals.isFromGnomeShell(signal, serverOwner: serverOwner)
        else { return }
        heard(event)
    }

    /// A dock appeared: it is told the badge.
    func dockAppeared() {
        guard !isStopping else { return }
        badge.resend(logger: logger)
    }

    /// A hold (snooze, quiet hours) may have ended: the one timer of them fired.
    private func holdsDue() {
        guard !isStopping else { return }
        holdEnd = nil
        reviewHolds()
        apply()
    }

    /// The notification of this entry said for a while ("Muted OWNER/REPO", "Reacted 👍 to
    /// ...") has been shown long enough.
    func saidEnough(_ id: UInt64) {
        guard !isStopping, book.entry(id: id)?.subject.saidUntil != nil else { return }
        book.withdraw(id)
        apply()
    }

    /// Where what clicks ask of the accounts goes from now on; those asked before go first.
    func sendRequests(to taker: any AccountRequests) {
        requestTaker = taker
        let unsent = unsentRequests ?? []
        unsentRequests = nil
        for request in unsent { taker.asked(request) }
    }

    /// Hands what a click asks of an account to the taker, by a call; kept until there is one.
    func ask(_ request: DesktopRequest) {
        if let requestTaker {
            requestTaker.asked(request)
        } else if unsentRequests != nil {
            unsentRequests?.append(request)
        } else {
            logger.debug("a click's request came after the supervisor stopped; dropped")
        }
    }

    // MARK: - News

    private func take(_ news: DesktopNews) {
        switch news {
        case .update(let update):
            let now = options.wallClock
            let hold = holds.hold(for: update.account, at: now)
            let heldBefore = book.heldCount(of: update.account)
            book.take(update, heldBy: hold)
            let held = book.heldCount(of: update.account)
            if let hold, held != heldBefore {
                logger.info("""
                    \(update.account.displayName): \(held) held, \(hold.description(at: now, zone: options.zone)); \
                    one notification says so at the end
                    """)
                options.events.tell(.held(update.account, count: held))
            }
            badge.set(update.unread.badgeCount, for: update.account, logger: logger)
        case .tokenRejected(let account):
            book.tokenRejected(for: account)
        case .accounts(let polled):
            accounts = polled
            for gone in Set(book.entries.map(\.account)).subtracting(polled) {
                book.forget(gone)
            }
            badge.keep(only: polled, logger: logger)
        case .config(let config):
            options.config = config
            clicks.configChanged(config)
            book.setLimit(quirks.keptOpen(maxNotifications: config.maxNotifications))
            book.rules = config.rules
        case .snoozes(let snoozes):
            self.snoozes = snoozes
        case .answered(let account, let said):
            // A failure stays until dismissed: the user must read why.
            let until = said.isFailure ? nil : options.wallClock + Self.saidFor.components.seconds
            if let entry = book.say(said, for: account, until: until), until != nil {
                withdrawSaid(entry.id, after: Self.saidFor)
            }
        }
        reviewHolds()
    }

    // MARK: - Holds

    var holds: HoldRules {
        HoldRules(quietHours: options.config.quietHours, snoozes: snoozes, zone: options.zone)
    }

    /// Ends the holds that are over (each account's summary of what came meanwhile joins the
    /// book), and sets the one timer for the soonest end of those still going. No hold, no timer.
    private func reviewHolds() {
        let holds = holds
        let now = options.wallClock
        for account in book.heldAccounts where holds.hold(for: account, at: now) == nil {
            logger.info("\(account.displayName): popups are no longer held; what came meanwhile shows as one notification")
            book.endHold(of: account)
        }
        let end = holds.nextEnd(of: accounts, at: now)
        guard end != holdEnd else { return }
        holdTimer?.cancel()
        holdEnd = end
        guard let end else {
            holdTimer = nil
            return
        }
        holdTimer = alarm(after: .seconds(end - now)) { $0.holdsDue() }
    }

    /// Calls `action` on the loop, in a job of its own, once `delay` has passed on the stage's
    /// timeline, unless cancelled first or the stage has gone.
    func alarm(after delay: Duration, _ action: @escaping @LoopActor (Screen) -> Void) -> Timeline.Alarm {
        options.timeline.alarm(after: delay) { [weak self] in
            MainLoop.shared.submit { LoopActor.assumeIsolated { self.map(action) } }
        }
    }

    /// The clean stop: our notifications withdrawn, nothing left to take over, the badge gone.
    /// A second stop waits for the first.
    func stop() async {
        guard !isStopping else {
            if !isStopped { await withCheckedContinuation { stopWaiters.append($0) } }
            return
        }
        isStopping = true
        holdTimer?.cancel()
        await withdrawAll(within: Desktop.stopLimit)
        for news in handedNews { news.reply.answer() }
        handedNews = []
        book = ScreenBook(limit: book.limit)
        save()
        badge.clear(logger: logger)
        await state.flush()
        isStopped = true
        stopWaiters.forEach { $0.resume() }
        stopWaiters = []
    }
}

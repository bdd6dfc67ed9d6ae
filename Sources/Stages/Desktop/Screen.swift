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

/// The desktop stage's state, handled by one task in the order things happen: the book of what
/// is on screen (`ScreenBook`, which decides), carried out through the notification server,
/// saved for the next daemon, with the badge beside it and clicks sent on.
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
    /// The stage's own queue, where the hold timer says that it fired.
    let timers: AsyncStream<Desktop.Input>.Continuation
    let logger: Logger

    var book: ScreenBook
    /// The notification server's unique name; nil while there is none.
    var serverOwner: String?
    /// Asked once per server owner.
    var capabilities: NotificationCapabilities?
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
    private var holdTimer: Task<Void, Never>?
    private var holdEnd: Int64?
    /// Shows sent and not yet answered, by entry id: one at a time per entry, any number at once.
    var flights: [UInt64: Flight] = [:]
    var flightsStarted: UInt64 = 0
    /// News handed over, with the entries it changed: answered once none of them is being shown.
    var handedNews: [(entries: Set<UInt64>, reply: NewsReply)] = []

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
        options: Desktop.Options,
        timers: AsyncStream<Desktop.Input>.Continuation, logger: Logger, saved: ScreenBook.Saved?, serverOwner: String?,
        server: ServerInformation?
    ) {
        self.client = client
        self.signals = signals
        self.badge = badge
        self.clicks = clicks
        self.state = state
        self.options = options
        self.timers = timers
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

    /// Handles one input; true once the stage has stopped.
    func handle(_ input: Desktop.Input) async -> Bool {
        switch input {
        case .news(let news, let reply):
            let before = Dictionary(uniqueKeysWithValues: book.entries.map { ($0.id, $0.subject) })
            await take(news)
            let changed = book.entries.filter { before[$0.id] != $0.subject }.map(\.id)
            handedNews.append((Set(changed), reply))
        case .showAnswered(let id, let number, let outcome):
            guard let flight = flights[id], flight.number == number else { return false }
            flights[id] = nil
            answered(flight, outcome)
            await apply()
        case .notification(.serverChanged(let owner)):
            await serverChanged(to: owner)
        case .notification(let event):
            await heard(event)
        case .broadcast(let signal):
            // GNOME Shell's own copy, the only one a notification taken over from an earlier
            // daemon gets there; for our own notifications the server's copy came already.
            guard let event = NotificationClient.event(signal), let id = event.notificationID, book.entry(serverID: id)?.isAdopted == true,
                  await signals.isFromGnomeShell(signal, serverOwner: serverOwner)
            else { return false }
            await heard(event)
        case .dockAppeared:
            badge.resend(logger: logger)
        case .holdsDue:
            holdEnd = nil
            reviewHolds()
            await apply()
        case .saidEnough(let id):
            guard book.entry(id: id)?.subject.saidUntil != nil else { return false }
            book.withdraw(id)
            await apply()
        case .open(let target, let activationToken):
            open(target, activationToken: activationToken)
        case .stop(let reply):
            await stop()
            reply.resume()
            return true
        }
        // Whatever the input, shows may have ended (answered, or given up with a server that left).
        releaseHandedNews()
        return false
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

    func take(_ news: DesktopNews) async {
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
        await apply()
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
        let (timeline, timers) = (options.timeline, timers)
        holdTimer = Task {
            guard (try? await timeline.sleep(for: .seconds(end - now))) != nil else { return }
            timers.yield(.holdsDue)
        }
    }

    /// The clean stop: our notifications withdrawn, nothing left to take over, the badge gone.
    func stop() async {
        holdTimer?.cancel()
        await withdrawAll(within: Desktop.stopLimit)
        for news in handedNews { news.reply.answer() }
        handedNews = []
        book = ScreenBook(limit: book.limit)
        save()
        badge.clear(logger: logger)
        await state.flush()
    }

}

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
actor Screen {
    private let client: any NotificationServer
    private let signals: ServerSignals
    private var badge: Badge
    private var clicks: Clicks
    private let state: StateFiles
    private var options: Desktop.Options
    /// Where what a click asks of the accounts goes (the supervisor reads it).
    private let requests: AsyncStream<DesktopRequest>.Continuation
    /// The stage's own queue, where the hold timer says that it fired.
    private let timers: AsyncStream<Desktop.Input>.Continuation
    private let logger: Logger

    private var book: ScreenBook
    /// The notification server's unique name; nil while there is none.
    private var serverOwner: String?
    /// Asked once per server owner.
    private var capabilities: NotificationCapabilities?
    /// What the server is known to do (`ServerQuirks`): asked at the start, and with the
    /// capabilities of each new server.
    private var quirks: ServerQuirks
    /// The actions (keys and labels) each entry's notification was last shown with, for a
    /// server that keeps the first ones (`ServerQuirks.keepsFirstButtons`).
    private var shownActions: [UInt64: [String]] = [:]
    /// The accounts polled now; with more than one, each notification names its account.
    private var accounts: [Account] = []
    /// Activation tokens the server sent, which come just before their click.
    private var activationTokens: [UInt32: String] = [:]
    private var lastSaved: ScreenBook.Saved?
    /// Entries said to wait for a server, so each is said once.
    private var waiting: Set<UInt64> = []
    /// The snoozes in force; with the config's quiet hours, they hold popups back.
    private var snoozes: [NoiseRecord.Snooze] = []
    /// The one timer of the holds: it fires at the soonest end (`holdEnd`) of any hold.
    private var holdTimer: Task<Void, Never>?
    private var holdEnd: Int64?
    /// Shows sent and not yet answered, by entry id: one at a time per entry, any number at once.
    private var flights: [UInt64: Flight] = [:]
    private var flightsStarted: UInt64 = 0
    /// News handed over, with the entries it changed: answered once none of them is being shown.
    private var handedNews: [(entries: Set<UInt64>, reply: NewsReply)] = []

    /// A show sent to the server: the entry as it was sent, and its number, which tells its
    /// answer from that of a show given up (a server that left).
    private struct Flight {
        let number: UInt64
        let entry: ScreenBook.Entry
        let actions: [String]
        let task: Task<ShowOutcome, Never>
    }

    init(
        client: any NotificationServer, signals: ServerSignals, badge: Badge, clicks: Clicks, state: StateFiles,
        options: Desktop.Options, requests: AsyncStream<DesktopRequest>.Continuation,
        timers: AsyncStream<Desktop.Input>.Continuation, logger: Logger, saved: ScreenBook.Saved?, serverOwner: String?,
        server: ServerInformation?
    ) {
        self.client = client
        self.signals = signals
        self.badge = badge
        self.clicks = clicks
        self.state = state
        self.options = options
        self.requests = requests
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
            logger.info("took over \(adopted) notification\(adopted == 1 ? "" : "s") an earlier gbnotifyd left open")
            options.events.tell(.adopted(count: adopted))
        }
        // A "Muted" notification taken over keeps the Undo window it was shown with: gone now
        // if it is over, else when it ends.
        let now = options.wallClock
        for (id, until) in book.endUndoWindows(at: now) {
            withdrawMuted(id, after: .seconds(until - now))
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
        case .muteSaid(let id):
            guard case .muted? = book.entry(id: id)?.subject else { return false }
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

    // MARK: - News

    private func take(_ news: DesktopNews) async {
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
        }
        reviewHolds()
        await apply()
    }

    // MARK: - Holds

    private var holds: HoldRules {
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

    /// Carries out what the book asks for: closings first (room on screen), then shows, oldest
    /// first, each sent once the closings are answered; then saves what is on screen. The stage
    /// waits for no answer itself: a server that never answers one call (Cinnamon 5.6 on some
    /// replacements) costs that show its deadline, while other notices, clicks and a stop go on.
    private func apply() async {
        let closings = book.takeClosings().map(withdraw)
        // Shown with no server on the bus too: the bus starts one that ships a D-Bus service
        // file (mako on sway, MATE always) with the first call to it, and only a call it cannot
        // deliver means there is none (`meansNoServer`).
        for entry in book.toShow where flights[entry.id] == nil {
            await startShowing(entry, after: closings)
        }
        let open = Set(book.entries.map(\.id))
        shownActions = shownActions.filter { open.contains($0.key) }
        save()
    }

    @discardableResult
    private func withdraw(_ id: UInt32) -> Task<Void, Never> {
        let (client, logger, events) = (client, logger, options.events)
        return Task {
            do {
                try await client.close(id)
                logger.info("withdrew notification \(id)")
                events.tell(.withdrawn(notification: id))
            } catch {
                // Already closed by the user or the server; nothing to withdraw.
                logger.debug("notification \(id) was not withdrawn: \(error)")
            }
        }
    }

    /// Sends `entry` to the server once `closings` are done; the answer comes back through the
    /// stage's queue (`Desktop.Input.showAnswered`).
    private func startShowing(_ entry: ScreenBook.Entry, after closings: [Task<Void, Never>]) async {
        guard let capabilities = await currentCapabilities() else {
            waitForServer(entry)
            return
        }
        let content = NotificationContent.entry(
            entry, capabilities: capabilities, namesAccount: accounts.count > 1, rules: options.config.rules)
        // Keys and labels: a group's "Open the inbox" has the key of a notice's "Open".
        let actions = content.actions
        // Closed and shown afresh where a replacement would keep the old buttons.
        let closingFirst = entry.serverID.flatMap {
            quirks.replacesInPlace(shownActions: shownActions[entry.id], with: actions) ? nil : $0
        }
        flightsStarted += 1
        let number = flightsStarted
        let (client, notification, timeline, logger, queue) = (client, notification(content), options.timeline, logger, timers)
        let refused = "\(entry.account.displayName): the notification server refused \(Self.describe(entry.subject))"
        let task = Task {
            for closing in closings { await closing.value }
            let outcome = await Self.send(
                notification, replacing: entry.serverID, closingFirst: closingFirst, to: client, timeline: timeline
            ) { error in
                logger.warning("\(refused): \(error); trying once more")
            }
            queue.yield(.showAnswered(entry: entry.id, flight: number, outcome))
            return outcome
        }
        flights[entry.id] = Flight(number: number, entry: entry, actions: actions, task: task)
    }

    /// One notification's calls to the server. A server may refuse one (Plasma refuses a repeat
    /// within a second): once more after a second, in place still when it was only too soon;
    /// any other refusal of a replacement, or no answer to it, is one of its old id (GNOME's
    /// helper refuses an id another sender holds), so that one is closed and the notification
    /// shown afresh.
    private static func send(
        _ notification: Notification, replacing: UInt32?, closingFirst: UInt32?, to client: any NotificationServer,
        timeline: Timeline, refusedOnce: @Sendable (NotificationError) -> Void
    ) async -> ShowOutcome {
        var replacing = replacing
        if let shown = closingFirst {
            try? await client.close(shown)
            replacing = nil
        }
        for attempt in 1...2 {
            do {
                return .shown(try await client.show(notification, replacing: replacing), replacing: replacing)
            } catch where error.meansNoServer {
                return .noServer
            } catch {
                guard !Task.isCancelled else { return .cancelled }
                guard attempt == 1 else { return .refused(error) }
                refusedOnce(error)
                if let refused = replacing, !error.meansTooSoon {
                    try? await client.close(refused)
                    replacing = nil
                }
                guard (try? await timeline.sleep(for: .seconds(1))) != nil else { return .cancelled }
            }
        }
        return .cancelled
    }

    /// The server answered a show (or it was given up): what it showed joins the book.
    private func answered(_ flight: Flight, _ outcome: ShowOutcome) {
        let entry = flight.entry
        guard book.entry(id: entry.id) != nil else {
            // Withdrawn while it was being shown.
            if case .shown(let id, _) = outcome { withdraw(id) }
            return
        }
        switch outcome {
        case .shown(let id, let replacing):
            book.shown(entry, serverID: id)
            shownActions[entry.id] = flight.actions
            waiting.remove(entry.id)
            logger.info("""
                \(entry.account.displayName): showing \(Self.describe(entry.subject)) as notification \(id)\
                \(replacing.map { $0 == id ? " in place" : " in place of \($0)" } ?? "")
                """)
            options.events.tell(.shown(entry.account, entry.subject, notification: id, replacing: replacing))
        case .noServer:
            waitForServer(entry)
        case .refused(let error):
            logger.error("\(entry.account.displayName): the notification server refused \(Self.describe(entry.subject)) again: \(error); not shown")
            book.drop(entry.id)
        case .cancelled:
            return
        }
    }

    /// News is answered once the server has answered the shows of what it changed (or none
    /// can be made): a poller saves its high-water mark only then, so a kill -9 before the
    /// answer shows a notice again rather than never. Other news does not wait for it.
    private func releaseHandedNews() {
        let busy = Set(flights.keys)
        var still: [(entries: Set<UInt64>, reply: NewsReply)] = []
        for news in handedNews {
            if news.entries.isDisjoint(with: busy) { news.reply.answer() } else { still.append(news) }
        }
        handedNews = still
    }

    /// No server to show `entry`: it waits for one (said once per entry).
    private func waitForServer(_ entry: ScreenBook.Entry) {
        if waiting.insert(entry.id).inserted {
            logger.info("\(entry.account.displayName): no notification server on the bus; \(Self.describe(entry.subject)) waits for one")
        }
        book.awaitServer(entry.id)
    }

    private func notification(_ content: NotificationContent) -> Notification {
        Notification(content, icon: options.icon ?? AppIcon.name)
    }

    /// The server's capabilities, asked once per server. With none on the bus, the asking is
    /// what makes the bus start one it can; nil when that found none either.
    private func currentCapabilities() async -> NotificationCapabilities? {
        if let capabilities { return capabilities }
        guard let names = await client.serverCapabilities() else {
            guard serverOwner != nil else { return nil }
            logger.warning("the notification server did not tell its capabilities; sending plain text without actions")
            return .plain
        }
        let server = await client.serverInformation()
        quirks = ServerQuirks(serverName: server?.name, version: server?.version)
        book.setLimit(quirks.keptOpen(maxNotifications: options.config.maxNotifications))
        let asked = NotificationCapabilities(advertised: names)
        logger.debug("the notification server \(serverOwner ?? "") does \(asked.bodyMarkup ? "" : "not ")read markup and \(asked.actions ? "shows" : "does not show") actions")
        capabilities = asked
        return asked
    }

    /// What is on screen, for the next daemon; written only when it changed.
    private func save() {
        let saved = serverOwner.map { book.saved(serverOwner: $0) }.flatMap { $0.entries.isEmpty ? nil : $0 }
        guard saved != lastSaved else { return }
        lastSaved = saved
        let logger = logger
        state.saveScreen(saved) { error in
            logger.warning("cannot save which notifications are open (\(error)); a restarted gbnotifyd cannot take them over")
        }
    }

    // MARK: - The server

    private func heard(_ event: NotificationEvent) async {
        switch event {
        case .closed(let id, let reason):
            // The old notification of an entry being shown anew closes as its show goes on (a
            // close before a fresh show, or GNOME closing one after its action): the entry stays.
            guard let entry = book.entry(serverID: id), flights[entry.id] == nil else { return }
            book.closedByServer(id)
            activationTokens[id] = nil
            logger.debug("notification \(id) was closed by the server (reason \(reason))")
            options.events.tell(.closedByServer(notification: id, reason: reason))
            save()
        case .action(let id, let key):
            // One click, however many times the server says it (GNOME Shell 43 repeats it once
            // per Notify of the id); another action on a notification the server kept open
            // (mako, LXQt) counts.
            guard book.entry(serverID: id) != nil else {
                // Withdrawn or folded away as the user clicked: the server had not yet taken
                // it off the screen. Said, since the user did click.
                logger.debug("notification \(id): ignored the action \(key.displaySafe(truncatedTo: 40)), no longer ours")
                return
            }
            guard let entry = book.actionInvoked(key, on: id) else {
                logger.debug("notification \(id): ignored the action \(key.displaySafe(truncatedTo: 40)), heard again")
                return
            }
            await clicked(entry, key: key, activationToken: activationTokens.removeValue(forKey: id))
            options.events.tell(.clicked(notification: id, action: key))
            await apply()
        case .activationToken(let id, let token):
            // Bounded: a server may send them for notifications that are never clicked.
            guard book.entry(serverID: id) != nil else { return }
            if activationTokens.count >= 16 { activationTokens.removeAll() }
            activationTokens[id] = token
        case .serverChanged(let owner):
            await serverChanged(to: owner)
        }
    }

    private func clicked(_ entry: ScreenBook.Entry, key: String, activationToken: String?) async {
        let name = entry.account.displayName
        let id = entry.serverID ?? 0
        switch (key, entry.subject) {
        case (NotificationContent.markReadAction, .group(let group)):
            logger.info("\(name): \"Mark read\" on notification \(id)")
            requests.yield(.markRead(entry.account, group.inboxIDs))
        case (NotificationContent.markReadAction, .summary(let summary)):
            // Offered only when the summary knows every row it counts.
            guard let ids = summary.markReadIDs else { return }
            logger.info("\(name): \"Mark all read\" on notification \(id)")
            requests.yield(.markRead(entry.account, ids))
        case (NotificationContent.muteAction, .group(let group)):
            let undoUntil = options.wallClock + Self.muteSaidFor.components.seconds
            guard let repository = group.key.repository, let muted = book.mute(entry.id, undoUntil: undoUntil) else { return }
            logger.info("\(name): \"Mute\" on notification \(id): muting \(repository)")
            requests.yield(.setWatch(entry.account, repository: repository, .mute))
            // Said for a while, long enough to undo it, then gone.
            withdrawMuted(muted.id, after: Self.muteSaidFor)
        case (NotificationContent.undoAction, .muted(let repository, _)):
            // The window is the one promised when it was muted, however many restarts since.
            guard ScreenBook.offersUndo(entry, at: options.wallClock) else {
                logger.info("\(name): \"Undo\" on notification \(id) came after its \(Self.muteSaidFor.components.seconds) s: \(repository) stays muted")
                book.withdraw(entry.id)
                return
            }
            logger.info("\(name): \"Undo\" on notification \(id): unmuting \(repository)")
            requests.yield(.setWatch(entry.account, repository: repository, .unwatch))
            book.withdraw(entry.id)
        case (NotificationContent.openAction, .group(let group)):
            logger.info("\(name): notification \(id) was clicked")
            open(group.target, activationToken: activationToken)
        case (NotificationContent.openAction, .summary):
            logger.info("\(name): notification \(id) was clicked")
            open(PushTarget(account: entry.account, destination: nil), activationToken: activationToken)
        default:
            logger.debug("\(name): notification \(id): ignored the action \(key.displaySafe(truncatedTo: 40))")
        }
    }

    /// How long "Muted OWNER/REPO" stays, with its Undo.
    static let muteSaidFor = Duration.seconds(10)

    /// The "Muted" notification `id` goes once `delay` has passed.
    private func withdrawMuted(_ id: UInt64, after delay: Duration) {
        let (timeline, timers) = (options.timeline, timers)
        Task {
            guard (try? await timeline.sleep(for: delay)) != nil else { return }
            timers.yield(.muteSaid(id))
        }
    }

    /// Off the stage's queue: the portal may take a while to answer, and the news must not wait.
    private func open(_ target: PushTarget, activationToken: String?) {
        let clicks = clicks
        Task { await clicks.open(target, activationToken: activationToken) }
    }

    /// Another server, or none: what the old one showed is gone with it (a server that exits
    /// when idle, as MATE's does, took its notifications along); what waits is shown on the new
    /// one. With none before, what has a server id was shown by the call that made the bus start
    /// this one: it is this server's.
    private func serverChanged(to owner: String?) async {
        guard owner != serverOwner else { return }
        logger.info(owner.map { "the notification server is \($0) now" } ?? "the notification server left the bus")
        if serverOwner != nil {
            // What was being sent to the old server is sent again to the new one. (With none
            // before, a show under way is what made the bus start this one: its answer counts.)
            flights.values.forEach { $0.task.cancel() }
            flights = [:]
            book.serverChanged()
        }
        capabilities = nil
        activationTokens = [:]
        serverOwner = owner
        await apply()
    }

    /// The clean stop: our notifications withdrawn, nothing left to take over, the badge gone.
    private func stop() async {
        holdTimer?.cancel()
        await withdrawAll(within: Desktop.stopLimit)
        for news in handedNews { news.reply.answer() }
        handedNews = []
        book = ScreenBook(limit: book.limit)
        save()
        badge.clear(logger: logger)
        await state.flush()
    }

    /// Withdraws every notification of ours, those being shown too once they are answered, for
    /// at most `limit`: what the server has not answered by then is given up.
    private func withdrawAll(within limit: Duration) async {
        let client = client
        let shows = flights.values.map(\.task)
        let shown = book.entries.compactMap(\.serverID)
        // Answered here, not through the stage's queue, which the stop holds.
        flights = [:]
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskGroup(of: Void.self) { closing in
                    for id in shown { closing.addTask { try? await client.close(id) } }
                    for show in shows {
                        closing.addTask {
                            if case .shown(let id, _) = await show.value { try? await client.close(id) }
                        }
                    }
                }
            }
            group.addTask { [timeline = options.timeline] in
                try? await timeline.sleep(for: limit)
                // A show cut short answers at once; waiting for it no longer holds the stop.
                shows.forEach { $0.cancel() }
            }
            await group.next()
            group.cancelAll()
        }
    }

    private static func describe(_ subject: ScreenBook.Subject) -> String {
        switch subject {
        case .group(let group) where group.items.count == 1: "notice \(group.newest.id)"
        case .group(let group): "notice \(group.newest.id) in a group of \(group.items.count) of \(group.key.repository ?? "the inbox")"
        case .summary(let summary): "a summary of \(summary.count)"
        case .tokenRejected: "the rejected-token warning"
        case .muted(let repository, _): "that \(repository) is muted"
        }
    }
}

import DBus
import Logging
import MainLoop
import Notifications
import PushCore
import StateStore

/// What is shown: the book's decisions carried out on the notification server (closings, then
/// shows, each answered back into the book), what is on screen saved for the next daemon, and a
/// server that came or left.
extension Screen {
    /// Carries out what the book asks for: closings first (room on screen), then shows, oldest
    /// first, each sent once the closings are answered; then saves what is on screen. The stage
    /// waits for no answer itself: a server that never answers one call (Cinnamon 5.6 on some
    /// replacements) costs that show its deadline, while other notices, clicks and a stop go on.
    func apply() async {
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
    func withdraw(_ id: UInt32) -> Task<Void, Never> {
        let (client, logger, events) = (client, logger, options.events)
        return Task {
            do {
                try await client.close(id)
                logger.report(.withdrawn(notification: id), to: events)
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
            entry, capabilities: capabilities, namesAccount: accounts.count > 1, rules: options.config.rules,
            buttons: quirks.buttons(order: options.config.buttons))
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
    static func send(
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
    func answered(_ flight: Flight, _ outcome: ShowOutcome) {
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
            offerReply(on: id, for: entry, actions: flight.actions)
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
    func releaseHandedNews() {
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

    func notification(_ content: NotificationContent) -> Notification {
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
    func save() {
        let saved = serverOwner.map { book.saved(serverOwner: $0) }.flatMap { $0.entries.isEmpty ? nil : $0 }
        guard saved != lastSaved else { return }
        lastSaved = saved
        let logger = logger
        state.saveScreen(saved) { error in
            logger.warning("cannot save which notifications are open (\(error)); a restarted gbnotifyd cannot take them over")
        }
    }

    /// Another server, or none: what the old one showed is gone with it (a server that exits
    /// when idle, as MATE's does, took its notifications along); what waits is shown on the new
    /// one. With none before, what has a server id was shown by the call that made the bus start
    /// this one: it is this server's.
    func serverChanged(to owner: String?) async {
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
        replyTargets = [:]
        replyTargetOrder = []
        serverOwner = owner
        await apply()
    }

    /// Withdraws every notification of ours, those being shown too once they are answered, for
    /// at most `limit`: what the server has not answered by then is given up.
    func withdrawAll(within limit: Duration) async {
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
        case .said(let said, _): "what became of the answer to \(said.path)"
        }
    }
}

import Accounts
import Desktop
import FoundationEssentials
import GitbayClient
import Logging
import PushCore
import Settings
import StateStore
import MainLoop

/// One run of an account's loop: fixed token and settings, from one start to a cancellation
/// or a 401.
@LoopActor
struct PollRun: Sendable {
    let account: Account
    let token: APIToken
    let settings: DaemonSettings
    let services: PollerServices
    let board: AccountStatusBoard
    let signal: WakeSignal
    let client: any GitbayTransport

    /// `notifications list` bare: the first 50 unread rows, newest first.
    static let pageLimit = 50

    private var name: String { account.displayName }
    private var logger: Logger { services.logger }
    private var timeline: Timeline { services.timeline }

    func loop(from start: PollMemory, firstDelay: Duration) async -> PollMemory {
        var memory = start
        board.update {
            $0.consecutiveFailures = 0
            $0.needsToken = false
            $0.nextPoll = services.wallClock.now.addingTimeInterval(firstDelay.seconds)
        }
        if let owner = memory.tokenOwner, owner.token == token {
            guard owner.username == account.username else {
                refuse(owner: owner.username)
                return memory
            }
            await register(&memory)
        }
        var registrationChecked = timeline.now
        var schedule = PollSchedule(interval: settings.pollInterval, backoffCap: settings.backoffCap)
        var random = services.parts.random.generator()
        var due = timeline.now + firstDelay
        while true {
            do {
                try await waitForPoll(due: due, lastPoll: memory.lastPoll, schedule: &schedule)
            } catch {
                return memory
            }
            // Only once the token is known to be the user's: until then nothing else is sent.
            if memory.tokenOwner?.token == token, timeline.now - registrationChecked >= .seconds(settings.registrationCheckInterval) {
                registrationChecked = timeline.now
                await checkRegistration(&memory)
            }
            let started = services.wallClock.now
            memory.lastPoll = timeline.now
            signal.clearWake()
            guard let polled = await confirmingPoll(&memory) else { return memory }
            if polled.error != nil, !signal.look().snapshot.isOnline {
                // Went offline during the poll: its failure says nothing about the server, and
                // the account polls as soon as the network is back.
                logger.debug("\(name): poll failed while going offline: \(polled.error ?? "")")
                due = timeline.now
                continue
            }
            schedule.interval = signal.look().snapshot.isRelayConnected ? settings.relayPollInterval : settings.pollInterval
            let decision = schedule.record(polled.outcome, random: &random)
            // One update with everything the poll changed, so `Status()` never shows half of it.
            board.update {
                $0.lastPoll = started
                $0.lastResult = polled.result
                $0.pollError = polled.error
                if let unread = polled.unread { $0.unread = unread }
                $0.consecutiveFailures = schedule.consecutiveFailures
                if case .after(let seconds) = decision {
                    $0.nextPoll = services.wallClock.now.addingTimeInterval(seconds)
                } else {
                    $0.nextPoll = nil
                    $0.needsToken = true
                }
            }
            let told = DaemonEvent.polled(account, words: polled.result.description, failed: polled.error != nil)
            switch (decision, polled.error) {
            case (.after(let seconds), nil):
                logger.debug("\(name): \(polled.result)")
                services.events.tell(told)
                due = timeline.now + .seconds(seconds)
            case (.after(let seconds), let error?):
                logger.warning("\(name): poll failed: \(error); trying again in \(Int(seconds.rounded(.up))) s")
                services.events.tell(told)
                due = timeline.now + .seconds(seconds)
            case (.stop(.unauthorized), let error):
                logger.warning("\(name): poll failed: \(error ?? polled.result.description); polling stopped until the account gets a new token")
                services.events.tell(told)
                if memory.rejectedToken != token {
                    memory.rejectedToken = token
                    logger.error("""
                        \(name): the server rejected the API token; polling stopped. Add the account \
                        again with a new token: gbnotifyctl account add \(account.instance.url)
                        """)
                    await services.desktop(.tokenRejected(account))
                }
                services.events.tell(.tokenRejected(account))
                return memory
            }
        }
    }

    /// Returns when the account should poll: at `due`, or sooner for a wake-up (never within
    /// `minimumWakeGap` of the last poll, and a payload's not during a backoff), and never
    /// while offline. Throws when the task is cancelled.
    private func waitForPoll(due: Duration, lastPoll: Duration?, schedule: inout PollSchedule) async throws {
        while true {
            try Task.checkCancellation()
            let (snapshot, generation) = signal.look()
            guard snapshot.isOnline else {
                // No timer: an offline daemon sleeps until the network comes back.
                await signal.changed(after: generation)
                continue
            }
            let gapEnd = lastPoll.map { $0 + .seconds(PollSchedule.minimumWakeGap) } ?? .zero
            var target = due
            switch snapshot.wake {
            case .payload? where schedule.consecutiveFailures == 0:
                target = min(target, max(gapEnd, timeline.now))
            case .networkReturned(let notBefore)?:
                schedule.networkReturned()
                target = min(target, max(gapEnd, notBefore))
            case .payload?, nil:
                // A backoff (and a server's Retry-After) holds against payloads.
                break
            }
            if timeline.now >= target { return }
            if snapshot.wake != nil, target < due {
                logger.debug("\(name): woken up; polling in \(RelayStream.words(target - timeline.now))")
            }
            // A cancellation ends the wait, and the check above then throws.
            await signal.changed(after: generation, notAfter: (target, on: timeline))
        }
    }

    // MARK: - Polling

    /// How one poll went.
    private struct Polled {
        let outcome: PollOutcome
        /// For `last_result`.
        let result: PollResult
        /// Why it failed, for `last_error` and the log; nil when it worked.
        var error: String?
        /// The unread count it learnt, if it learnt one.
        var unread: UnreadCount?

        init(outcome: PollOutcome, result: PollResult, error: String? = nil, unread: UnreadCount? = nil) {
            self.outcome = outcome
            self.result = result
            self.error = error
            self.unread = unread
        }

        /// A request that never got an answer.
        init(failure: TransportError) {
            self.init(outcome: failure.outcome, result: failure.pollResult, error: "\(failure)")
        }

        /// An answer that is neither a list nor a 304: a 401 stops polling, the rest back off.
        init(failure result: APIResult) {
            let outcome: PollOutcome = if case .unauthorized = result { .unauthorized } else { .failed(retryAfter: result.retryAfter) }
            self.init(outcome: outcome, result: result.pollResult, error: "\(result)")
        }
    }

    /// The poll, after `whoami` confirmed (once per token) that the token is the account's
    /// user's, and the account registered: a keyring item's `user` is only a label, and a
    /// token of someone else's must never be polled, or registered, under it. A `whoami` that
    /// fails is a poll that failed, tried again on the schedule's backoff; nil when cancelled,
    /// or when the token is another user's.
    private func confirmingPoll(_ memory: inout PollMemory) async -> Polled? {
        if memory.tokenOwner?.token != token {
            let result: APIResult
            do {
                result = try await client.send(.whoami)
            } catch {
                if Task.isCancelled { return nil }
                return Polled(failure: error)
            }
            guard case .success = result else { return Polled(failure: result) }
            guard let whoami = try? result.decode(Whoami.self) else {
                return Polled(outcome: .failed(retryAfter: nil), result: PollResult(.unreadable, httpStatus: 200), error: "whoami did not decode")
            }
            memory.tokenOwner = (token, whoami.username)
            guard whoami.username == account.username else {
                refuse(owner: whoami.username)
                return nil
            }
            await register(&memory)
        }
        return await poll(&memory)
    }

    /// The token is `owner`'s, not the account's user's: said in `status` and the log, and the
    /// account waits for a token of its own.
    private func refuse(owner: String) {
        let why = "the token belongs to \(owner.displaySafe(truncatedTo: 80)), not \(account.username)"
        board.update {
            $0.pollError = why
            $0.needsToken = true
            $0.nextPoll = nil
        }
        logger.error("""
            \(name): \(why); not polled. Add the account again with a token of \(account.username)'s: \
            gbnotifyctl account add \(account.instance.url)
            """)
    }

    /// One poll; nil when it was cancelled before an answer came.
    private func poll(_ memory: inout PollMemory) async -> Polled? {
        // A process's first poll reads the list whole, stored ETag or not: the tray lists the
        // unread rows it holds, which a 304 after a restart would not give back.
        let etag = memory.presentedUnread == nil ? nil : memory.record.listETag
        let result: APIResult
        do {
            result = try await client.send(.notificationsList(limit: nil, cursor: nil), ifNoneMatch: etag)
        } catch {
            if Task.isCancelled { return nil }
            return Polled(failure: error)
        }
        switch result {
        case .notModified:
            // No body, nothing parsed, nothing written (unless an earlier write failed).
            if memory.isUnsaved { await write(&memory) }
            return Polled(outcome: .notModified, result: result.pollResult)
        case .success(_, let newETag):
            let page: InboxPage
            do {
                page = try result.decode(InboxPage.self)
            } catch {
                return Polled(
                    outcome: .failed(retryAfter: nil), result: PollResult(.unreadable, httpStatus: 200),
                    error: "the notifications list did not decode: \(error)")
            }
            return await take(page, etag: newETag, &memory)
        default:
            return Polled(failure: result)
        }
    }

    /// A new list: hand on what is new, then remember that it was handed on.
    private func take(_ page: InboxPage, etag: String?, _ memory: inout PollMemory) async -> Polled {
        let cycle = InboxDiff.evaluate(page: page, pageLimit: Self.pageLimit, highWater: memory.record.highWater)
        if cycle.ignoredRows > 0 {
            logger.debug("\(name): ignored \(cycle.ignoredRows) broken or already read rows")
        }
        var unread = cycle.unread
        if case .needsDashboard = unread {
            unread = unread.resolved(dashboardUnread: await dashboardUnread())
        }
        await hand(AccountUpdate(
            account: account, notices: cycle.notices, unread: unread, read: cycle.read, unreadRows: cycle.unreadRows), &memory)
        // Shown first, saved second: a kill -9 between the two shows these notices once more
        // after the restart (the old mark is still on disk), while the other order could lose
        // them for good. At least once, never lost.
        await save(highWater: cycle.highWater, etag: etag, unread: unread.badgeCount, &memory)
        let newRows = cycle.notices.reduce(0) { count, notice in
            switch notice {
            case .item: count + 1
            case .summary(let rows, _, _, _): count + rows
            }
        }
        return Polled(outcome: .fresh, result: PollResult(.ok, httpStatus: 200, newNotices: newRows), unread: unread)
    }

    private func hand(_ update: AccountUpdate, _ memory: inout PollMemory) async {
        await services.desktop(.update(update))
        memory.presentedUnread = update.unread
    }

    /// `dashboard.unread`, the exact count when the first page was full; nil when the server is
    /// too old to send it or the request failed, which leaves the page's "at least".
    private func dashboardUnread() async -> Int? {
        do {
            return try await client.send(.dashboard).decode(Dashboard.self).unread
        } catch {
            logger.debug("\(name): no unread count from the dashboard: \(error)")
            return nil
        }
    }

    /// Writes the polling fields of the account's record, and only when one changed or the
    /// last write failed; the registration fields are `AccountManager.register`'s.
    private func save(highWater: Int64, etag: String?, unread: Int, _ memory: inout PollMemory) async {
        var record = memory.record
        record.highWater = highWater
        record.listETag = etag
        record.unread = unread
        guard record != memory.record || memory.isUnsaved else { return }
        memory.record = record
        await write(&memory)
    }

    /// Writes the polling fields of `memory.record`. A failure keeps them in memory, which is
    /// what the next polls go by, and is tried again after the next poll.
    private func write(_ memory: inout PollMemory) async {
        let (id, record) = (account.id, memory.record)
        do {
            let warning = try await services.state.updateAccounts { state in
                state.accounts[id, default: AccountRecord()].highWater = record.highWater
                state.accounts[id, default: AccountRecord()].listETag = record.listETag
                state.accounts[id, default: AccountRecord()].unread = record.unread
            }
            if let warning { logger.warning(warning) }
            if memory.isUnsaved { logger.notice("\(name): the account's state is saved again") }
            memory.isUnsaved = false
        } catch {
            // Said once at error level; a disk that stays full must not fill the journal too.
            if memory.isUnsaved {
                logger.debug("\(name): still cannot save the account's state: \(error)")
            } else {
                logger.error("\(name): cannot save the account's state (notices may be shown again after a restart): \(error)")
            }
            memory.isUnsaved = true
        }
    }

    // MARK: - Registration

    /// Registers the account's device token, as on every start and reload; a failure is
    /// recorded and shown, never fatal.
    private func register(_ memory: inout PollMemory) async {
        let registration = await services.registrar.register(account, with: client)
        guard !Task.isCancelled else { return }
        memory.registration = registration
        board.update { $0.registration = registration }
        switch registration {
        case .registered(let id):
            logger.info("\(name): registered its device token as device \(id)")
            services.events.tell(.registered(account, deviceID: id, words: "\(registration)"))
        case .pushUnavailable:
            logger.notice("\(name): \(registration); polling only")
            services.events.tell(.registered(account, deviceID: nil, words: "\(registration)"))
        case .readOnlyToken, .failed:
            logger.warning("\(name): \(registration)")
            services.events.tell(.registered(account, deviceID: nil, words: "\(registration)"))
        }
    }

    /// The server may reap the device row at any time: when the id is gone from `device list`,
    /// register again. A registration that failed for a passing reason (network, limits) is
    /// simply tried again; push being off or a read-only token wait for a reload.
    private func checkRegistration(_ memory: inout PollMemory) async {
        switch memory.registration {
        case .registered(let id)?:
            let devices: [Device]
            do {
                devices = try await client.send(.deviceList).decode([Device].self)
            } catch {
                logger.debug("\(name): could not read the device list: \(error)")
                return
            }
            guard !devices.contains(where: { $0.id == id }) else { return }
            logger.notice("\(name): device \(id) is gone from the server's device list; registering again")
            await register(&memory)
        case .failed?:
            await register(&memory)
        case .pushUnavailable?, .readOnlyToken?, nil:
            return
        }
    }
}

extension Duration {
    /// In seconds, for `Date` arithmetic and log lines.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

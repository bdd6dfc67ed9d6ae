import Accounts
import FoundationEssentials
import GitbayClient
import PushCore
import StateStore

/// What every poller gets from the daemon.
struct PollerServices: Sendable {
    let state: StateFiles
    /// Registers this install (`device add`) and records the outcome in the state.
    let registrar: AccountManager
    let presenter: any Presenter
    let logger: Logger
    /// Slower while the relay stream is connected.
    let pace: PollPace
}

/// One account's polling, independent of every other account's: its own loop, timers, backoff
/// and requests (libcurl runs all transfers side by side), so a slow or dead instance delays
/// nobody else.
///
/// The supervisor starts it, starts it again on a reload (a new token, new settings, a reset
/// backoff, registration again) and retires it. What the loop learns lives on in `memory`
/// between runs of the loop.
actor AccountPoller {
    nonisolated let account: Account
    nonisolated let board: AccountStatusBoard
    /// What was shown, by polls and by delivered payloads, so that nothing is shown twice.
    nonisolated let shownNotices = ShownNotices()
    private let trigger = PollTrigger()
    private let services: PollerServices
    private var memory: PollMemory
    private var loop: Task<PollMemory, Never>?
    /// The running loop's client, for looking up the row of a delivered notice.
    private var client: GitbayClient?
    private var isRetired = false

    init(account: Account, record: AccountRecord, services: PollerServices) {
        self.account = account
        self.services = services
        memory = PollMemory(record: record)
        board = AccountStatusBoard(storedDeviceID: record.deviceID, unread: record.unread)
    }

    /// Stops the running loop, if any, and starts one that registers this install, then polls
    /// after `firstDelay` seconds. Failures and a stop after a 401 are forgotten.
    func start(token: APIToken, settings: DaemonSettings, firstDelay: Double) async {
        await stopLoop()
        // A retire() that came while the loop was stopping wins.
        guard !isRetired else { return }
        let client = GitbayClient(instance: account.instance, token: token, options: settings.client)
        self.client = client
        let run = PollRun(
            account: account, token: token, settings: settings, services: services, board: board,
            shownNotices: shownNotices, trigger: trigger, client: client)
        let memory = memory
        loop = Task { await run.loop(from: memory, firstDelay: firstDelay) }
    }

    /// Stops polling for good: the daemon is stopping, or the account left the keyring.
    func retire() async {
        isRetired = true
        client = nil
        await stopLoop()
    }

    /// A wake-up: poll now rather than at the end of the interval. Several before the poll
    /// starts make one poll; a backoff after failures is still waited out.
    nonisolated func pollNow() {
        trigger.fire()
    }

    /// The notice of a payload, `reference` in this account's ledger, for the presenter.
    nonisolated func delivered(_ notice: PushedNotice, reference: UInt64) -> DeliveredNotice {
        let shownNotices = shownNotices
        return DeliveredNotice(
            notice, pairedRow: { shownNotices.row(of: reference) },
            lookUp: { await self.lookUpRow(of: reference) })
    }

    /// The row of a delivered notice that no poll has paired yet, from the unread list.
    private func lookUpRow(of reference: UInt64) async -> InboxItem? {
        if let row = shownNotices.row(of: reference) { return row }
        guard let client else { return nil }
        do {
            let page = try await client.send(.notificationsList(limit: nil, cursor: nil)).decode(InboxPage.self)
            return shownNotices.lookUp(reference, in: page.items)
        } catch {
            services.logger.warning("\(account.displayName): cannot find the inbox row of a delivered notice: \(error)")
            return nil
        }
    }

    private func stopLoop() async {
        guard let loop else { return }
        self.loop = nil
        loop.cancel()
        memory = await loop.value
    }
}

/// What a poller knows beyond one run of its loop.
struct PollMemory: Sendable {
    /// The persisted state: high-water mark, ETag and the unread count that goes with it.
    var record: AccountRecord
    /// The unread count last handed to the presenter; nil until the first in this process.
    var presentedUnread: UnreadCount?
    /// This process's last registration outcome.
    var registration: Registration?
    /// The token the server last rejected, so the user hears of a rejected token once, not
    /// after every reload.
    var rejectedToken: APIToken?
    /// The last write of `record` failed (a full disk): it is written again after the next
    /// poll, whatever that poll finds, so the mark reaches the disk once the disk has room.
    var isUnsaved = false
}

/// One run of an account's loop: fixed token and settings, from one start to a cancellation
/// or a 401.
private struct PollRun: Sendable {
    let account: Account
    let token: APIToken
    let settings: DaemonSettings
    let services: PollerServices
    let board: AccountStatusBoard
    let shownNotices: ShownNotices
    let trigger: PollTrigger
    let client: GitbayClient

    /// `notifications list` bare: the first 50 unread rows, newest first.
    static let pageLimit = 50

    private var name: String { account.displayName }
    private var logger: Logger { services.logger }

    func loop(from start: PollMemory, firstDelay: Double) async -> PollMemory {
        var memory = start
        board.update {
            $0.consecutiveFailures = 0
            $0.needsToken = false
            $0.nextPoll = Date.now.addingTimeInterval(firstDelay)
        }
        await register(&memory)
        var registrationChecked = ContinuousClock.now
        var schedule = PollSchedule(interval: settings.pollInterval, backoffCap: settings.backoffCap)
        var random = SystemRandomNumberGenerator()
        var delay = firstDelay
        while true {
            do {
                // A backoff (and a server's Retry-After) holds against wake-ups too.
                if schedule.consecutiveFailures > 0 {
                    try await Task.sleep(for: .seconds(delay))
                } else {
                    try await trigger.wait(upTo: delay)
                }
            } catch {
                return memory
            }
            if ContinuousClock.now - registrationChecked >= .seconds(settings.registrationCheckInterval) {
                registrationChecked = .now
                await checkRegistration(&memory)
            }
            let started = Date.now
            guard let polled = await poll(&memory) else { return memory }
            schedule.interval = services.pace.interval(in: settings)
            let decision = schedule.record(polled.outcome, random: &random)
            // One update with everything the poll changed, so `Status()` never shows half of it.
            board.update {
                $0.lastPoll = started
                $0.lastResult = polled.words
                $0.pollError = polled.error
                if let unread = polled.unread { $0.unread = unread }
                $0.consecutiveFailures = schedule.consecutiveFailures
                if case .after(let seconds) = decision {
                    $0.nextPoll = Date.now.addingTimeInterval(seconds)
                } else {
                    $0.nextPoll = nil
                    $0.needsToken = true
                }
            }
            switch (decision, polled.error) {
            case (.after(let seconds), nil):
                logger.debug("\(name): \(polled.words)")
                delay = seconds
            case (.after(let seconds), let error?):
                logger.warning("\(name): poll failed: \(error); trying again in \(Int(seconds.rounded(.up))) s")
                delay = seconds
            case (.stop(.unauthorized), let error):
                logger.warning("\(name): poll failed: \(error ?? polled.words); polling stopped until the account gets a new token")
                if memory.rejectedToken != token {
                    memory.rejectedToken = token
                    await services.presenter.tokenRejected(for: account)
                }
                return memory
            }
        }
    }

    // MARK: - Polling

    /// How one poll went.
    private struct Polled {
        let outcome: PollOutcome
        /// For `last_result`.
        let words: String
        /// Why it failed, for `last_error` and the log; nil when it worked.
        var error: String?
        /// The unread count it learnt, if it learnt one.
        var unread: Int?
    }

    /// One poll; nil when it was cancelled before an answer came.
    private func poll(_ memory: inout PollMemory) async -> Polled? {
        trigger.clear()
        // A payload's badge may be older than what this poll finds: hand the presenter the
        // poll's count even when it did not change.
        if shownNotices.takeBadgeArrival() { memory.presentedUnread = nil }
        // The stored ETag is only worth sending with the unread count that goes with it: a 304
        // must still be able to give the presenter a count after a restart.
        let etag = memory.record.unread == nil ? nil : memory.record.listETag
        let result: APIResult
        do {
            result = try await client.send(.notificationsList(limit: nil, cursor: nil), ifNoneMatch: etag)
        } catch {
            if Task.isCancelled { return nil }
            return Polled(outcome: .failed(retryAfter: nil), words: error.statusWords, error: "\(error)")
        }
        switch result {
        case .notModified:
            // No body, nothing parsed, nothing written (unless an earlier write failed).
            if memory.presentedUnread == nil, let unread = memory.record.unread {
                await present(AccountUpdate(account: account, notices: [], unread: .exact(unread), withdrawn: []), &memory)
            }
            if memory.isUnsaved { await write(&memory) }
            return Polled(outcome: .notModified, words: result.statusWords)
        case .success(_, let newETag):
            let page: InboxPage
            do {
                page = try result.decode(InboxPage.self)
            } catch {
                return Polled(
                    outcome: .failed(retryAfter: nil), words: "200 unreadable",
                    error: "the notifications list did not decode: \(error)")
            }
            return await take(page, etag: newETag, &memory)
        case .unauthorized:
            return Polled(outcome: .unauthorized, words: result.statusWords, error: "\(result)")
        default:
            return Polled(outcome: .failed(retryAfter: result.retryAfter), words: result.statusWords, error: "\(result)")
        }
    }

    /// A new list: show what is new, then remember that it was shown.
    private func take(_ page: InboxPage, etag: String?, _ memory: inout PollMemory) async -> Polled {
        let cycle = InboxDiff.evaluate(
            page: page, pageLimit: Self.pageLimit, highWater: memory.record.highWater,
            shown: await services.presenter.onScreen(for: account))
        if cycle.ignoredRows > 0 {
            logger.debug("\(name): ignored \(cycle.ignoredRows) broken or already read rows")
        }
        let notices = shownNotices.takePoll(cycle, page: page, highWater: memory.record.highWater)
        var unread = cycle.unread
        if case .needsDashboard = unread {
            unread = unread.resolved(dashboardUnread: await dashboardUnread())
        }
        if !notices.isEmpty || !cycle.withdrawn.isEmpty || unread != memory.presentedUnread {
            await present(
                AccountUpdate(account: account, notices: notices, unread: unread, withdrawn: cycle.withdrawn),
                &memory)
        }
        // Shown first, saved second: a kill -9 between the two shows these notices once more
        // after the restart (the old mark is still on disk), while the other order could lose
        // them for good. At least once, never lost.
        await save(highWater: cycle.highWater, etag: etag, unread: unread.badgeCount, &memory)
        let newRows = notices.reduce(0) { count, notice in
            switch notice {
            case .item: count + 1
            case .summary(let rows, _, _, _): count + rows
            }
        }
        return Polled(outcome: .fresh, words: newRows > 0 ? "200 ok, \(newRows) new" : "200 ok", unread: unread.badgeCount)
    }

    private func present(_ update: AccountUpdate, _ memory: inout PollMemory) async {
        await services.presenter.present(update)
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

    /// Registers this install, as on every start and reload; a failure is recorded and shown,
    /// never fatal.
    private func register(_ memory: inout PollMemory) async {
        let registration = await services.registrar.register(account, with: client)
        guard !Task.isCancelled else { return }
        memory.registration = registration
        board.update { $0.registration = registration }
        switch registration {
        case .registered(let id):
            logger.info("\(name): registered this install as device \(id)")
        case .pushUnavailable:
            logger.notice("\(name): \(registration); polling only")
        case .readOnlyToken, .failed:
            logger.warning("\(name): \(registration)")
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

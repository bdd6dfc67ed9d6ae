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
    private let services: PollerServices
    private var memory: PollMemory
    private var loop: Task<PollMemory, Never>?
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
        let run = PollRun(
            account: account, token: token, settings: settings, services: services, board: board,
            client: GitbayClient(instance: account.instance, token: token, options: settings.client))
        let memory = memory
        loop = Task { await run.loop(from: memory, firstDelay: firstDelay) }
    }

    /// Stops polling for good: the daemon is stopping, or the account left the keyring.
    func retire() async {
        isRetired = true
        await stopLoop()
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
}

/// One run of an account's loop: fixed token and settings, from one start to a cancellation
/// or a 401.
private struct PollRun: Sendable {
    let account: Account
    let token: APIToken
    let settings: DaemonSettings
    let services: PollerServices
    let board: AccountStatusBoard
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
                try await Task.sleep(for: .seconds(delay))
            } catch {
                return memory
            }
            if ContinuousClock.now - registrationChecked >= .seconds(settings.registrationCheckInterval) {
                registrationChecked = .now
                await checkRegistration(&memory)
            }
            let started = Date.now
            guard let polled = await poll(&memory) else { return memory }
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
            // No body, nothing parsed, nothing written.
            if memory.presentedUnread == nil, let unread = memory.record.unread {
                await present(AccountUpdate(account: account, notices: [], unread: .exact(unread), withdrawn: []), &memory)
            }
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
        var unread = cycle.unread
        if case .needsDashboard = unread {
            unread = unread.resolved(dashboardUnread: await dashboardUnread())
        }
        if !cycle.notices.isEmpty || !cycle.withdrawn.isEmpty || unread != memory.presentedUnread {
            await present(
                AccountUpdate(account: account, notices: cycle.notices, unread: unread, withdrawn: cycle.withdrawn),
                &memory)
        }
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

    /// Writes the polling fields of the account's record, and only when one changed; the
    /// registration fields are `AccountManager.register`'s.
    private func save(highWater: Int64, etag: String?, unread: Int, _ memory: inout PollMemory) async {
        let apply = { @Sendable (record: inout AccountRecord) in
            record.highWater = highWater
            record.listETag = etag
            record.unread = unread
        }
        var record = memory.record
        apply(&record)
        guard record != memory.record else { return }
        memory.record = record
        let id = account.id
        do {
            if let warning = try await services.state.updateAccounts({ apply(&$0.accounts[id, default: AccountRecord()]) }) {
                logger.warning(warning)
            }
        } catch {
            logger.error("\(name): cannot save the account's state (notices may be shown again after a restart): \(error)")
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

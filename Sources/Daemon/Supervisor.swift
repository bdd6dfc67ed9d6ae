import Accounts
import Keyring
import PushCore
import StateStore

/// The accounts to poll and the keyring items that could not be used (as log lines).
public struct AccountListing: Sendable {
    public var accounts: [StoredAccount]
    public var skipped: [String]

    public init(accounts: [StoredAccount], skipped: [String]) {
        self.accounts = accounts
        self.skipped = skipped
    }

    public init(_ listing: KeyringListing) {
        self.init(accounts: listing.accounts, skipped: listing.skipped.map(\.description))
    }
}

/// Where the supervisor reads its accounts: the keyring, in the daemon. Tests hand it the
/// keyring narrowed to their own stand-ins, as the test session's keyring is shared by tests
/// running side by side.
public typealias AccountSource = @Sendable () async throws -> AccountListing

/// Where the supervisor reads the relay's access token: the keyring (`org.gitbay.Relay`), in
/// the daemon; nil when the relay needs none.
public typealias RelayTokenSource = @Sendable (GitbayInstance) async throws -> APIToken?

/// Why a reload did not fully happen. What could be applied was: a bad config keeps the running
/// settings but the accounts are still read again, and the other way round.
public struct ReloadError: Error, Equatable, CustomStringConvertible {
    public let problems: [String]

    public var description: String { problems.joined(separator: "; ") }
}

/// The daemon's core: the settings, one `AccountPoller` per account in the keyring, and the
/// status of it all. Reloads (SIGHUP, `Reload()`) read the config and the keyring again, start
/// pollers for new accounts, retire those of accounts that left, and restart the rest with
/// their current token.
public actor Supervisor {
    private let configPath: String
    private let loadSettings: @Sendable () throws(ConfigFileError) -> DaemonSettings
    private let state: StateFiles
    private let readAccounts: AccountSource
    let presenter: any Presenter
    let logger: Logger
    private let registrar: AccountManager
    private let started = ContinuousClock.now
    private let readRelayToken: RelayTokenSource
    private let relayCursors: RelayCursorStore
    /// Slower polls while the relay is connected.
    private let pace = PollPace()

    private var settings: DaemonSettings
    private var installToken: InstallToken?
    private(set) var pollers: [String: AccountPoller] = [:]
    private var isStopped = false
    /// Reloads run one after another; this is the last one queued.
    private var lastReload: Task<Void, Never>?
    /// Reads the keyring again after it failed at start, until it works.
    private var keyringRetry: Task<Void, Never>?
    /// The relay stream, while `relay-url` is set (RelayStream.swift).
    private var relay: RelayStream?
    /// What became of the payloads handed to `deliver` (Delivery.swift).
    var deliveries = DeliveryCounts()

    /// - Parameters:
    ///   - settings: what the config file said at start.
    ///   - loadSettings: reads the config file again, on every reload.
    ///   - hostname: names this install in each instance's device list.
    ///   - keyring: the registrar's: the daemon's, over its connection (by default one of its own,
    ///     connected only when used).
    ///   - relayToken: the relay's access token, read at start and on every reload.
    public init(
        settings: DaemonSettings, configPath: String,
        loadSettings: @escaping @Sendable () throws(ConfigFileError) -> DaemonSettings,
        state: StateDirectory, accounts: @escaping AccountSource, presenter: any Presenter, logger: Logger,
        hostname: String, keyring: Keyring = Keyring(), relayToken: @escaping RelayTokenSource = { _ in nil }
    ) {
        self.settings = settings
        self.configPath = configPath
        self.loadSettings = loadSettings
        self.state = StateFiles(state)
        readAccounts = accounts
        readRelayToken = relayToken
        relayCursors = RelayCursorStore(state)
        self.presenter = presenter
        self.logger = logger
        registrar = AccountManager(
            keyring: keyring, state: state, clientOptions: settings.client, hostname: hostname)
    }

    /// Makes sure there is an install token (the one thing that cannot fail softly: without a
    /// state directory nothing can be remembered), then reads the accounts and starts polling.
    /// A keyring that cannot be read is logged and tried again later, with backoff. The relay
    /// stream, when configured, starts after the accounts, which its payloads are routed to.
    public func start() async throws(StateError) {
        let (token, warning) = try await state.installToken()
        installToken = token
        if let warning { logger.warning(warning) }
        logger.notice("gbnotifyd \(GBNotify.version) starting; install token \(token), config \(configPath)")
        let readProblem = await inTurn { supervisor in
            let problem = await supervisor.refreshAccounts()
            _ = await supervisor.refreshRelay()
            return problem
        }
        if readProblem != nil {
            retryKeyring()
        }
    }

    /// Reads the config file and the keyring again. Throws what could not be applied, after
    /// applying the rest.
    public func reload() async throws(ReloadError) {
        logger.info("reloading the config and the accounts")
        let problems = await inTurn { supervisor in
            [await supervisor.refreshSettings(), await supervisor.refreshAccounts(), await supervisor.refreshRelay()]
                .compactMap { $0 }
        }
        if !problems.isEmpty { throw ReloadError(problems: problems) }
    }

    /// Stops every poller, cancelling requests in flight. Nothing starts again afterwards.
    public func stop() async {
        isStopped = true
        keyringRetry?.cancel()
        await stopRelay()
        let running = Array(pollers.values)
        await withTaskGroup(of: Void.self) { group in
            for poller in running {
                group.addTask { await poller.retire() }
            }
        }
    }

    public func status() -> DaemonStatus {
        DaemonStatus(
            version: GBNotify.version, installTokenPrefix: installToken?.shortID ?? "",
            uptimeSeconds: Int((ContinuousClock.now - started).components.seconds), configPath: configPath,
            accounts: pollers.values.map { $0.board.status(of: $0.account) }.sorted { $0.id < $1.id },
            deliveries: deliveries, relay: relay?.board.status ?? RelayStatus())
    }

    // MARK: - Reloading

    /// Runs `work` after every reload queued before it, so two reloads never interleave at their
    /// suspension points.
    private func inTurn<Result: Sendable>(
        _ work: @escaping @Sendable (isolated Supervisor) async -> Result
    ) async -> Result {
        let previous = lastReload
        let turn = Task { await previous?.value; return await work(self) }
        lastReload = Task { _ = await turn.value }
        return await turn.value
    }

    /// The config file again; nil when it was applied, else why it was not.
    private func refreshSettings() async -> String? {
        do {
            settings = try loadSettings()
            logger.setLevel(settings.config.logLevel)
            await presenter.configChanged(settings.config)
            return nil
        } catch {
            logger.error("\(error); keeping the settings in use")
            return "\(error); kept the settings in use"
        }
    }

    /// The keyring again, and pollers to match; nil when it was read, else why not.
    private func refreshAccounts() async -> String? {
        let listing: AccountListing
        do {
            listing = try await readAccounts()
        } catch {
            // The keyring shares the daemon's bus connection, which a stop closes under a read
            // still under way: that is no fault to log.
            guard !isStopped else { return nil }
            logger.error("cannot read the accounts from the keyring: \(error)")
            return "cannot read the accounts from the keyring: \(error)"
        }
        guard !isStopped else { return nil }
        keyringRetry?.cancel()
        keyringRetry = nil
        for skipped in listing.skipped {
            logger.warning(skipped)
        }
        let found = Set(listing.accounts.map(\.account.id))
        for (id, poller) in pollers where !found.contains(id) {
            pollers[id] = nil
            await poller.retire()
            await presenter.forget(poller.account)
        }

        let usable = listing.accounts.filter(isAllowed).sorted { $0.account.id < $1.account.id }
        var records: [String: AccountRecord]?
        var random = SystemRandomNumberGenerator()
        for (index, stored) in usable.enumerated() where !isStopped {
            let id = stored.account.id
            let poller: AccountPoller
            if let running = pollers[id] {
                poller = running
            } else {
                if records == nil { records = await storedRecords() }
                poller = AccountPoller(account: stored.account, record: records?[id] ?? AccountRecord(), services: services)
                pollers[id] = poller
            }
            // First polls spread over a short window, so a login shows notices promptly
            // without every account firing in the same instant.
            let delay = PollSchedule.initialDelay(
                index: index, count: usable.count, interval: settings.pollInterval, random: &random)
            await poller.start(token: stored.token, settings: settings, firstDelay: delay)
        }
        logger.info("polling \(usable.count) account\(usable.count == 1 ? "" : "s")")
        return nil
    }

    /// The relay stream to match the settings: started, started again when its relay, topic,
    /// token, keepalive or CA file changed, or stopped; nil when that worked, else why not.
    private func refreshRelay() async -> String? {
        guard !isStopped, let relayURL = settings.config.relayURL, let installToken else {
            await stopRelay()
            return nil
        }
        var problem: String?
        let token: APIToken?
        do {
            token = try await readRelayToken(relayURL)
        } catch {
            guard !isStopped else { return nil }
            let reason = "cannot read the relay token from the keyring: \(error)"
            logger.error("\(reason); the relay stream keeps the token it had")
            problem = reason
            token = relay?.settings.token
        }
        let wanted = RelaySettings(
            subscription: RelaySubscription(relay: relayURL, topic: settings.config.relayTopic(installToken: installToken)),
            token: token, liveness: RelayLiveness(keepalivePeriod: settings.relayKeepalive), caFile: settings.config.caFile)
        guard relay?.settings != wanted, !isStopped else { return problem }
        await stopRelay()
        logger.info("relay \(relayURL.url): listening\(token == nil ? "" : " with an access token")")
        let started = await RelayStream.start(wanted, cursors: relayCursors, pace: pace, logger: logger) { [weak self] message in
            await self?.deliver(message, via: .relay) ?? .dropped("the daemon is stopping")
        }
        // A stop() that came while the stream was starting found none to stop.
        guard !isStopped else {
            await started.stop()
            return problem
        }
        relay = started
        return problem
    }

    private func stopRelay() async {
        guard let running = relay else { return }
        relay = nil
        await running.stop()
    }

    /// Plain http sends the token readable by anyone on the path; the keyring takes any
    /// instance, but the daemon only talks to one that the config allows.
    private func isAllowed(_ stored: StoredAccount) -> Bool {
        let instance = stored.account.instance
        guard !settings.config.allowsToken(to: instance) else { return true }
        logger.error("""
            \(stored.account.displayName): not polled: \(instance.url) is plain http to another machine, \
            which would send the API token readable by anyone on the way; use https, or set \
            allow-http = true in \(configPath)
            """)
        return false
    }

    private func storedRecords() async -> [String: AccountRecord] {
        do {
            let (stored, warning) = try await state.loadAccounts()
            if let warning { logger.warning(warning) }
            return stored.accounts
        } catch {
            logger.error("cannot read the account state, so every account starts afresh: \(error)")
            return [:]
        }
    }

    private var services: PollerServices {
        PollerServices(state: state, registrar: registrar, presenter: presenter, logger: logger, pace: pace)
    }

    /// A keyring that failed at start (not running yet, or locked) is read again with the
    /// polls' backoff, until it works or a reload reads it.
    private func retryKeyring() {
        let schedule = PollSchedule(interval: settings.pollInterval, backoffCap: settings.backoffCap)
        keyringRetry = Task {
            var schedule = schedule
            var random = SystemRandomNumberGenerator()
            while case .after(let wait) = schedule.record(.failed(retryAfter: nil), random: &random) {
                do {
                    try await Task.sleep(for: .seconds(wait))
                } catch {
                    return
                }
                if await inTurn({ supervisor in await supervisor.refreshAccounts() }) == nil { return }
            }
        }
    }
}

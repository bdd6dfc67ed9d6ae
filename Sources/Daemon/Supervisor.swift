import Accounts
import Desktop
import GitbayClient
import Keyring
import LocalTime
import Logging
import MainLoop
import PushCore
import Settings
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
/// running side by side. A throw means "waiting for the keyring" (locked, refused, no answer),
/// never "no accounts".
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

/// The daemon's core: the settings, one `AccountPoller` per account in the keyring, the relay
/// stream, and the status of it all. Everything it hears comes on one input (`inputs`, a
/// stream of `SupervisorEvent`s), handled in order by one task: reloads (SIGHUP, `Reload()`,
/// the keyring changing) read the config and the keyring again, start pollers for new accounts,
/// retire those of accounts that left (or that the config no longer allows), and restart the
/// rest with their current token (the reloads asked for while one waits for its turn are
/// that one); wake-ups (relay messages, `Deliver`, a resume, the network's
/// return) go to the accounts they are for; a click's "Mark read" to the account's poller.
/// What it learns goes one way: to the pollers, and through them to the desktop.
public actor Supervisor {
    public struct Sources: Sendable {
        public var accounts: AccountSource
        public var relayToken: RelayTokenSource
        public var loadSettings: @Sendable () throws(ConfigFileError) -> DaemonSettings

        public init(
            accounts: @escaping AccountSource, relayToken: @escaping RelayTokenSource = { _ in nil },
            loadSettings: @escaping @Sendable () throws(ConfigFileError) -> DaemonSettings
        ) {
            self.accounts = accounts
            self.relayToken = relayToken
            self.loadSettings = loadSettings
        }
    }

    private let configPath: String
    private let sources: Sources
    private let state: StateFiles
    private let desktop: DesktopSink
    let logger: Logger
    private let registrar: AccountManager
    private let parts: Parts
    private let wallClock: WallClock
    private var timeline: Timeline { parts.timeline }
    /// The one input: whoever has something to say yields it here.
    public nonisolated let inputs: AsyncStream<SupervisorEvent>.Continuation
    private let events: AsyncStream<SupervisorEvent>
    /// The task that reads `events`, from `start()` to `stop()`.
    private var reading: Task<Void, Never>?
    /// Accounts poll at the slower `relay-poll-interval` while the relay stream is connected.
    private var isRelayConnected = false

    private var settings: DaemonSettings
    private(set) var pollers: [String: AccountPoller] = [:]
    /// Each polled account's device token, its relay topic.
    private var topics: [String: Account] = [:]
    private var isStopped = false
    private var network = NetworkState.unknown
    /// Why the keyring could not be read last time; nil once it was.
    private var keyringWaiting: String?
    /// The snoozes in the state directory, as last read: `status` says which hold.
    private var snoozes: [NoiseRecord.Snooze] = []
    /// Reloads run one after another; this is the last one queued.
    private var lastReload: Task<Void, Never>?
    /// Who waits for the reload that runs next, once one has been asked for; nil when none is
    /// waiting. SIGHUP's reload waits with no one to tell.
    private var nextReloadWaiters: [CheckedContinuation<[String], Never>?]?
    /// Reads the keyring again after it could not be read, until it can.
    private var keyringRetry: Task<Void, Never>?
    /// The relay stream, while `relay-url` is set and there are accounts.
    private var relay: RelayStream?
    /// What became of the wake-ups handed to `deliver` and the relay.
    private var deliveries = DeliveryCounts()

    /// - Parameters:
    ///   - settings: what the config file said at start.
    ///   - hostname: names this install in each instance's device list.
    ///   - keyring: the registrar's (`account add` and `remove` use their own).
    ///   - desktop: where the pollers' news goes.
    /// What the supervisor and its pollers talk and wait through: the real ones by default,
    /// in-process fakes and a manual clock in the tests.
    public struct Parts: Sendable {
        /// Each account's way to its instance.
        public var transport: TransportMaker
        public var timeline: Timeline
        /// Jitter.
        public var random: RandomSource
        /// Where what the daemon did is told, for whoever watches.
        public var events: DaemonEvents

        public init(
            transport: @escaping TransportMaker = GitbayClient.maker, timeline: Timeline = Timeline(),
            random: RandomSource = .system, events: DaemonEvents = .none
        ) {
            self.transport = transport
            self.timeline = timeline
            self.random = random
            self.events = events
        }
    }

    public init(
        settings: DaemonSettings, configPath: String, sources: Sources, state: StateFiles,
        desktop: @escaping DesktopSink, logger: Logger, hostname: String, keyring: Keyring = Keyring(),
        parts: Parts = Parts()
    ) {
        self.settings = settings
        self.configPath = configPath
        self.sources = sources
        self.state = state
        self.desktop = desktop
        self.logger = logger
        self.parts = parts
        wallClock = WallClock(timeline: parts.timeline)
        registrar = AccountManager(
            keyring: keyring, state: state.directory, clientOptions: settings.client, hostname: hostname)
        (events, inputs) = AsyncStream.makeStream(of: SupervisorEvent.self)
    }

    /// Makes sure the state directory is usable (the one thing that cannot fail softly: without
    /// it nothing can be remembered), then reads the accounts and starts polling. A keyring that
    /// cannot be read is said and tried again later, with backoff.
    public func start() async throws(StateError) {
        try state.directory.create()
        logger.notice("gbnotifyd \(GBNotify.version) starting; config \(configPath)")
        for warning in settings.config.warnings { logger.warning("\(configPath): \(warning)") }
        // Read from the start: what comes while the first reading of the keyring waits for its
        // user (that it waits, above all) must not wait with it.
        reading = Task { await self.read() }
        await desktop(.config(settings.config))
        await inTurn { supervisor in
            _ = await supervisor.refreshNoise()
            _ = await supervisor.refreshAccounts()
            _ = await supervisor.refreshRelay()
        }
    }

    /// Reads the config file and the keyring again, through `inputs`. Throws what could not be
    /// applied, after applying the rest.
    public nonisolated func reload() async throws(ReloadError) {
        let problems = await withCheckedContinuation { reply in
            if case .terminated = inputs.yield(.reload(reply: reply)) { reply.resume(returning: []) }
        }
        if !problems.isEmpty { throw ReloadError(problems: problems) }
    }

    /// A payload handed to `Deliver`, through `inputs`: a wake-up for the account it names
    /// (`WakeUp`). Returns the account woken; throws why none was.
    public nonisolated func deliver(_ payload: String) async throws(PayloadError) -> Account {
        try await withCheckedContinuation { reply in
            if case .terminated = inputs.yield(.deliver(payload, reply: reply)) { reply.resume(returning: .failure(.stopping)) }
        }.get()
    }

    /// The one task that reads the input, with the work it starts (reloads, "Mark read"s) as
    /// its children: all of it ends with `stop()`.
    private func read() async {
        await withDiscardingTaskGroup { group in
            for await event in events {
                handle(event, in: &group)
            }
            group.cancelAll()
        }
    }

    private func handle(_ event: SupervisorEvent, in group: inout DiscardingTaskGroup) {
        switch event {
        case .reload(let reply):
            // A reload waiting to run serves this one too.
            if nextReloadWaiters != nil {
                nextReloadWaiters?.append(reply)
                return
            }
            nextReloadWaiters = [reply]
            group.addTask { await self.reloadInTurn() }
        case .deliver(let payload, let reply):
            reply.resume(returning: Result { () throws(PayloadError) in try deliverNow(payload) })
        case .keyringChanged:
            group.addTask { await self.keyringChanged() }
        case .keyringWaiting(let what):
            keyringIsWaiting(what)
        case .relayMessage(let message):
            relayed(message)
        case .relayConnected(let afterGap):
            setRelayConnected(true)
            if afterGap { relayReconnected() }
            parts.events.tell(.relayConnected(afterGap: afterGap))
        case .relayDisconnected:
            setRelayConnected(false)
        case .resumed:
            networkReturned("the system resumed")
        case .network(let state):
            networkChanged(state)
        case .markRead(let account, let ids):
            guard let poller = pollers[account.id] else {
                logger.warning("\(account.displayName): cannot mark notices read: the account is no longer polled")
                return
            }
            group.addTask { await poller.markRead(ids) }
        case .setWatch(let account, let repository, let change):
            guard let poller = pollers[account.id] else {
                logger.warning("\(account.displayName): cannot \(change.rawValue) \(repository): the account is no longer polled")
                return
            }
            group.addTask { await poller.setWatch(change, of: repository) }
        case .snooze(let end):
            group.addTask { await self.snooze(until: end) }
        }
    }

    /// The config file and the keyring again, once the reload before is done, for every
    /// caller that asked until then: a peer's storm of `Reload()` calls is two reloads at most,
    /// not one registration per call that empties the accounts' write buckets.
    private func reloadInTurn() async {
        let (waiters, problems) = await inTurn { supervisor in
            let waiters = supervisor.nextReloadWaiters ?? []
            supervisor.nextReloadWaiters = nil
            guard !supervisor.isStopped else { return (waiters, [String]()) }
            supervisor.logger.info("reloading the config and the accounts")
            supervisor.parts.events.tell(.reloading)
            let problems = [
                await supervisor.refreshSettings(), await supervisor.refreshNoise(),
                await supervisor.refreshAccounts(restartingEvery: true),
                await supervisor.refreshRelay(),
            ]
            return (waiters, problems.compactMap { $0 })
        }
        for waiter in waiters { waiter?.resume(returning: problems) }
    }

    /// A keyring call has waited a while for the user (an unlock or access dialog), or failed
    /// and is tried again: said in `status` and the log until the keyring answers.
    private func keyringIsWaiting(_ what: String) {
        guard keyringWaiting != what else { return }
        logger.warning("waiting for the keyring: \(what)")
        parts.events.tell(.keyringWaiting(what))
        keyringWaiting = what
    }

    /// The keyring changed (an item stored, changed or deleted, a collection unlocked): the
    /// accounts are read again; the config stays as it is.
    private func keyringChanged() async {
        logger.debug("the keyring changed; reading the accounts again")
        await inTurn { supervisor in
            _ = await supervisor.refreshAccounts()
            _ = await supervisor.refreshRelay()
        }
    }

    /// Stops reading the input and every poller, cancelling requests in flight. Nothing starts
    /// again afterwards.
    public func stop() async {
        isStopped = true
        inputs.finish()
        await reading?.value
        keyringRetry?.cancel()
        await stopRelay()
        let running = Array(pollers.values)
        await withTaskGroup(of: Void.self) { group in
            for poller in running {
                group.addTask { await poller.retire() }
            }
        }
        await state.flush()
    }

    public func status() -> DaemonStatus {
        let holds = HoldRules(quietHours: settings.config.quietHours, snoozes: snoozes, zone: SystemZone.offsets)
        let now = Int64(wallClock.now.timeIntervalSince1970)
        return DaemonStatus(
            version: GBNotify.version, uptimeSeconds: Int(timeline.now.components.seconds), configPath: configPath,
            keyringWaiting: keyringWaiting, network: network,
            accounts: pollers.values.map { poller in
                var status = poller.board.status(of: poller.account)
                status.popupsHeld = holds.hold(for: poller.account, at: now).map { $0.description(at: now, zone: holds.zone) }
                return status
            }.sorted { $0.id < $1.id },
            deliveries: deliveries, relay: relay?.board.status ?? RelayStatus())
    }

    // MARK: - Wake-ups

    private func deliverNow(_ payload: String) throws(PayloadError) -> Account {
        let account: Account
        do {
            account = try WakeUp(json: payload.utf8).account(among: pollers.values.map(\.account))
        } catch {
            deliveries.dropped += 1
            logger.debug("dropped a payload from the bus (Deliver): \(error)")
            throw error
        }
        deliveries.wakeUps += 1
        logger.debug("\(account.displayName): woken up by Deliver; polling soon")
        pollers[account.id]?.wake(.payload)
        return account
    }

    /// A relay message: a wake-up for the account whose topic it came on.
    private func relayed(_ message: RelayMessage) {
        guard let account = topics[message.topic], let poller = pollers[account.id] else {
            deliveries.dropped += 1
            logger.debug("relay message \(message.id) came on a topic of no account here")
            return
        }
        deliveries.wakeUps += 1
        logger.debug("\(account.displayName): woken up by relay message \(message.id); polling soon")
        poller.wake(.payload)
        parts.events.tell(.relayWoke(account, messageID: message.id))
    }

    /// The relay stream is back after a gap: whatever it may have missed, each account's own
    /// poll finds.
    private func relayReconnected() {
        logger.debug("relay reconnected; every account polls once")
        for poller in pollers.values { poller.wake(.payload) }
    }

    private func setRelayConnected(_ connected: Bool) {
        isRelayConnected = connected
        for poller in pollers.values { poller.setRelayConnected(connected) }
    }

    // MARK: - Sleep and the network

    /// The system resumed, or the network came back: the relay reconnects at once, and every
    /// account polls, spread over `PollSchedule.returnWindow` (each inside its own minimum gap).
    private func networkReturned(_ why: String) {
        logger.info("\(why); reconnecting and polling every account")
        relay?.reconnectNow()
        let polled = pollers.values.sorted { $0.account.id < $1.account.id }
        let window = Duration.seconds(PollSchedule.returnWindow)
        for (index, poller) in polled.enumerated() {
            poller.wake(.networkReturned(notBefore: timeline.now + window * (Double(index) / Double(max(polled.count, 1)))))
        }
    }

    /// NetworkManager's word on the network. Offline, nothing polls or reconnects and no error
    /// is shown; back online, as after a resume.
    private func networkChanged(_ state: NetworkState) {
        guard state != network else { return }
        let wasOffline = network == .offline
        network = state
        let isOnline = state != .offline
        for poller in pollers.values { poller.setOnline(isOnline) }
        relay?.setOnline(isOnline)
        if state == .offline {
            logger.notice("the system is offline; polling waits for the network")
        } else if wasOffline {
            networkReturned("the network is back")
        }
        parts.events.tell(.network(state))
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
            settings = try sources.loadSettings()
            logger.setLevel(settings.config.logLevel)
            for warning in settings.config.warnings { logger.warning("\(configPath): \(warning)") }
            await desktop(.config(settings.config))
            return nil
        } catch {
            logger.error("\(error); keeping the settings in use")
            return "\(error); kept the settings in use"
        }
    }

    /// Every account snoozed until `end`, or no longer (nil), as `gbnotifyctl snooze` does it:
    /// written to the state directory, then read again, so the desktop and `status` follow.
    private func snooze(until end: Int64?) async {
        let now = Int64(wallClock.now.timeIntervalSince1970)
        do {
            let warning = try await state.updateNoise { record in
                if let end {
                    record.snooze(nil, until: end, now: now)
                } else {
                    _ = record.endSnooze(nil, now: now)
                }
            }
            if let warning { logger.warning(warning) }
        } catch {
            logger.error("cannot write the snooze: \(error)")
            return
        }
        logger.info(end.map { "snoozed every account until \(Hold.localTime($0, at: now, zone: SystemZone.offsets))" } ?? "snooze ended")
        parts.events.tell(.snoozed(until: end))
        await inTurn { supervisor in _ = await supervisor.refreshNoise() }
    }

    /// The snoozes in the state directory again (`gbnotifyctl snooze` wrote them, then asked for
    /// a reload), for the desktop stage; nil when they were read, else why not.
    private func refreshNoise() async -> String? {
        do {
            let (record, warning) = try await state.loadNoise()
            if let warning { logger.warning(warning) }
            snoozes = record.snoozes
            await desktop(.snoozes(record.snoozes))
            return nil
        } catch {
            logger.error("cannot read the snoozes: \(error); keeping the ones in use")
            return "cannot read the snoozes: \(error); kept the ones in use"
        }
    }

    /// The keyring again, and pollers to match; nil when it was read, else why not. Pollers of
    /// accounts whose token and settings did not change go on as they are, unless
    /// `restartingEvery` (a reload).
    private func refreshAccounts(restartingEvery: Bool = false) async -> String? {
        let listing: AccountListing
        do {
            listing = try await sources.accounts()
        } catch {
            // The keyring shares nothing with a stop, but a stop needs no retry either.
            guard !isStopped else { return nil }
            let reason = "\(error)"
            keyringIsWaiting(reason)
            retryKeyring()
            return "cannot read the accounts from the keyring: \(reason)"
        }
        guard !isStopped else { return nil }
        if keyringWaiting != nil { logger.notice("the keyring answered; reading the accounts") }
        keyringWaiting = nil
        keyringRetry?.cancel()
        keyringRetry = nil
        for skipped in listing.skipped {
            logger.warning(skipped)
        }
        let usable = listing.accounts.filter(isAllowed).sorted { $0.account.id < $1.account.id }
        let kept = Set(usable.map(\.account.id))
        for (id, poller) in pollers where !kept.contains(id) {
            pollers[id] = nil
            await poller.retire()
            logger.info("\(poller.account.displayName): no longer polled")
            parts.events.tell(.retired(poller.account))
        }
        await desktop(.accounts(usable.map(\.account)))

        var records: [String: AccountRecord]?
        var topics: [String: Account] = [:]
        var random = parts.random.generator()
        var tokens: [String: DeviceToken] = [:]
        do {
            let made = try await state.deviceTokens(for: usable.map(\.account))
            if let warning = made.warning { logger.warning(warning) }
            tokens = made.tokens
        } catch {
            logger.error("cannot keep the accounts' device tokens in the state directory: \(error)")
        }
        for (index, stored) in usable.enumerated() where !isStopped {
            let id = stored.account.id
            if let token = tokens[id] { topics[token.hex] = stored.account }
            let poller: AccountPoller
            if let running = pollers[id] {
                // Another account came or went: this one's schedule, backoff and registration
                // stay as they are. A reload starts it again, and so registers it again.
                if !restartingEvery, await running.isPolling(with: stored.token, settings: settings) { continue }
                poller = running
            } else {
                if records == nil { records = await storedRecords() }
                poller = AccountPoller(account: stored.account, record: records?[id] ?? AccountRecord(), services: services)
                poller.setOnline(network != .offline)
                poller.setRelayConnected(isRelayConnected)
                pollers[id] = poller
            }
            // First polls spread over a short window, so a login shows notices promptly
            // without every account firing in the same instant.
            let delay = PollSchedule.initialDelay(
                index: index, count: usable.count, interval: settings.pollInterval, random: &random)
            await poller.start(token: stored.token, settings: settings, firstDelay: .seconds(delay))
        }
        self.topics = topics
        logger.info("polling \(usable.count) account\(usable.count == 1 ? "" : "s")")
        return nil
    }

    /// The relay stream to match the settings and the accounts' topics: started, started again
    /// when its relay, topics, token, keepalive or CA file changed, or stopped; nil when that
    /// worked, else why not.
    private func refreshRelay() async -> String? {
        guard !isStopped, let relayURL = settings.config.relayURL,
              let subscription = RelaySubscription(relay: relayURL, topics: topics.keys)
        else {
            await stopRelay()
            return nil
        }
        var problem: String?
        let token: APIToken?
        do {
            token = try await sources.relayToken(relayURL)
        } catch {
            guard !isStopped else { return nil }
            let reason = "cannot read the relay token from the keyring: \(error)"
            logger.error("\(reason); the relay stream keeps the token it had")
            problem = reason
            token = relay?.settings.token
        }
        let wanted = RelaySettings(
            subscription: subscription, token: token, liveness: RelayLiveness(keepalivePeriod: settings.relayKeepalive),
            caFile: settings.config.caFile)
        guard relay?.settings != wanted, !isStopped else { return problem }
        await stopRelay()
        logger.info("relay \(relayURL.url): listening on \(subscription.topics.count) topic\(subscription.topics.count == 1 ? "" : "s")\(token == nil ? "" : " with an access token")")
        let started = await RelayStream.start(
            wanted, state: state, isOnline: network != .offline, timeline: timeline, random: parts.random, logger: logger,
            telling: inputs)
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
    /// instance, but the daemon only talks to one that the config allows, and stops talking to
    /// one a reload no longer allows.
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
        PollerServices(state: state, registrar: registrar, desktop: desktop, logger: logger, parts: parts, wallClock: wallClock)
    }

    /// A keyring that could not be read (not running yet, locked, a prompt unanswered) is read
    /// again with the polls' backoff, until it can be or a reload reads it.
    private func retryKeyring() {
        guard keyringRetry == nil else { return }
        let schedule = PollSchedule(interval: settings.pollInterval, backoffCap: settings.backoffCap)
        let timeline = timeline
        keyringRetry = Task {
            var schedule = schedule
            var random = parts.random.generator()
            while case .after(let wait) = schedule.record(.failed(retryAfter: nil), random: &random) {
                do {
                    try await timeline.sleep(for: .seconds(wait))
                } catch {
                    return
                }
                let read = await inTurn { supervisor in
                    let problem = await supervisor.refreshAccounts()
                    _ = await supervisor.refreshRelay()
                    return problem == nil
                }
                if read { return }
            }
        }
    }
}

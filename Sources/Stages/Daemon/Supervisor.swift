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
/// stream, and the status of it all. What the relay stream and the system's watch say comes by
/// a call (`relayed`, `resumed`, `networkChanged`: all of them run on the loop); the rest comes
/// as a `SupervisorEvent` handed to `take`, by a call too, in the order it happened: reloads (SIGHUP, `Reload()`,
/// the keyring changing) read the config and the keyring again, start pollers for new accounts,
/// retire those of accounts that left (or that the config no longer allows), and restart the
/// rest with their current token (the reloads asked for while one waits for its turn are
/// that one); wake-ups (relay messages, `Deliver`, a resume, the network's
/// return) go to the accounts they are for; a click's "Mark read" to the account's poller.
/// What it learns goes one way: to the pollers, and through them to the desktop.
///
/// Its parts each have a file: the account set and its diff (`SupervisorAccounts.swift`), the
/// reload queue (`SupervisorReloads.swift`) and network policy (`SupervisorNetwork.swift`).
///
/// Isolated to `LoopActor`, as are the pollers: its code runs on the main loop's thread, where
/// the C libraries' callbacks come, in `gbnotifyd` and in the in-process tests alike. Not
/// `@MainActor`: under `swift test` the main thread is the test runner's and the loop has a
/// thread of its own, so main-actor code would run beside the loop there and the model tested
/// would not be the one that ships (in `gbnotifyd` the two are one thread, `LoopMain`).
@LoopActor
public final class Supervisor: AccountRequests {
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

    let configPath: String
    let sources: Sources
    let state: StateFiles
    let desktop: DesktopSink
    let logger: Logger
    let registrar: AccountManager
    let parts: Parts
    let wallClock: WallClock
    var timeline: Timeline { parts.timeline }
    /// What was taken before `start()`, handled there; nil once started.
    var early: [SupervisorEvent]? = []
    /// The work the events started (reloads, "Mark read"s, snoozes) and not yet done, by
    /// number: `stop()` cancels it and waits for it.
    var work: [Int: Task<Void, Never>] = [:]
    var workStarted = 0
    /// Accounts poll at the slower `relay-poll-interval` while the relay stream is connected.
    var isRelayConnected = false

    var settings: DaemonSettings
    var pollers: [String: AccountPoller] = [:]
    /// Each polled account's device token, its relay topic.
    var topics: [String: Account] = [:]
    var isStopped = false
    var network = NetworkState.unknown
    /// Why the keyring could not be read last time, in English; nil once it was.
    var keyringWaiting: String?
    /// The step the keyring waits on the user for, when that is why.
    var keyringWait: KeyringWait?
    /// The snoozes in the state directory, as last read: `status` says which hold.
    var snoozes: [NoiseRecord.Snooze] = []
    /// Reloads run one after another; this is the last one queued.
    var lastReload: Task<Void, Never>?
    /// Who waits for the reload that runs next, once one has been asked for; nil when none is
    /// waiting. SIGHUP's reload waits with no one to tell.
    var nextReloadWaiters: [CheckedContinuation<[String], Never>?]?
    /// Reads the keyring again after it could not be read, until it can.
    var keyringRetry: Task<Void, Never>?
    /// The relay stream, while `relay-url` is set and there are accounts.
    var relay: RelayStream?
    /// What became of the wake-ups handed to `deliver` and the relay.
    var deliveries = DeliveryCounts()

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

    public nonisolated init(
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
    }

    /// Makes sure the state directory is usable (the one thing that cannot fail softly: without
    /// it nothing can be remembered), then reads the accounts and starts polling. A keyring that
    /// cannot be read is said and tried again later, with backoff.
    public func start() async throws(StateError) {
        try state.directory.create()
        logger.notice("gbnotifyd \(GBNotify.version) starting; config \(configPath)")
        for warning in settings.config.warnings { logger.warning("\(configPath): \(warning)") }
        // Taken from the start: what comes while the first reading of the keyring waits for its
        // user (that it waits, above all) must not wait with it.
        for event in early ?? [] { handle(event) }
        early = nil
        await desktop(.config(settings.config))
        await inTurn { supervisor in
            _ = await supervisor.refreshNoise()
            _ = await supervisor.refreshAccounts()
            _ = await supervisor.refreshRelay()
        }
    }

    /// Reads the config file and the keyring again, in turn (`take`). Throws what could not be
    /// applied, after applying the rest.
    public func reload() async throws(ReloadError) {
        let problems = await withCheckedContinuation { reply in take(.reload(reply: reply)) }
        if !problems.isEmpty { throw ReloadError(problems: problems) }
    }

    /// A payload handed to `Deliver` (`take`): a wake-up for the account it names (`WakeUp`).
    /// Returns the account woken; throws why none was.
    public func deliver(_ payload: String) async throws(PayloadError) -> Account {
        try await withCheckedContinuation { reply in take(.deliver(payload, reply: reply)) }.get()
    }

    /// What a click on a notification asks of an account, from the desktop stage: taken as any
    /// other event, as work the stop cancels.
    public func asked(_ request: DesktopRequest) {
        take(SupervisorEvent(request))
    }

    /// The one way in for what the signals, the bus, the keyring, the tray and the desktop's
    /// clicks have to say: handled at once, in the order of the calls; what takes time goes on
    /// as work (`startWork`). Before `start()` it is kept for then; after `stop()` it is
    /// dropped, and whoever waits for an answer hears that the daemon is stopping.
    public func take(_ event: SupervisorEvent) {
        if isStopped {
            switch event {
            case .reload(let reply): reply?.resume(returning: [])
            case .deliver(_, let reply): reply.resume(returning: .failure(.stopping))
            case .keyringChanged, .keyringWaiting, .markRead, .setWatch, .answer, .snooze: break
            }
        } else if early != nil {
            early?.append(event)
        } else {
            handle(event)
        }
    }

    private func handle(_ event: SupervisorEvent) {
        switch event {
        case .reload(let reply):
            // A reload waiting to run serves this one too.
            if nextReloadWaiters != nil {
                nextReloadWaiters?.append(reply)
                return
            }
            nextReloadWaiters = [reply]
            startWork { await $0.reloadInTurn() }
        case .deliver(let payload, let reply):
            reply.resume(returning: Result { () throws(PayloadError) in try deliverNow(payload) })
        case .keyringChanged:
            startWork { await $0.keyringChanged() }
        case .keyringWaiting(let wait):
            keyringIsWaiting("\(wait)", for: wait)
        case .markRead(let account, let ids):
            guard let poller = pollers[account.id] else {
                logger.warning("\(account.displayName): cannot mark notices read: the account is no longer polled")
                return
            }
            startWork { _ in await poller.markRead(ids) }
        case .setWatch(let account, let repository, let change):
            guard let poller = pollers[account.id] else {
                logger.warning("\(account.displayName): cannot \(change.rawValue) \(repository): the account is no longer polled")
                return
            }
            startWork { _ in await poller.setWatch(change, of: repository) }
        case .answer(let account, let answer):
            guard let poller = pollers[account.id] else {
                logger.warning("\(account.displayName): cannot answer on \(answer.destination.shortName): the account is no longer polled")
                return
            }
            startWork { _ in await poller.answer(answer) }
        case .snooze(let end):
            startWork { await $0.snooze(until: end) }
        }
    }

    /// Runs `body` as work of the supervisor's, which `stop()` cancels and waits for.
    private func startWork(_ body: @escaping @LoopActor (Supervisor) async -> Void) {
        workStarted += 1
        let number = workStarted
        // Started after this turn of the loop, so it is in `work` before it can end.
        work[number] = Task {
            await body(self)
            work[number] = nil
        }
    }

    /// Stops the work in hand and every poller, cancelling requests in flight. Nothing starts
    /// again afterwards.
    public func stop() async {
        isStopped = true
        // Whoever asked before a start that never came hears that the daemon is stopping.
        let waiting = early ?? []
        early = nil
        waiting.forEach(take)
        let inHand = Array(work.values)
        for task in inHand { task.cancel() }
        for task in inHand { await task.value }
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
            keyringWaiting: keyringWaiting, keyringWait: keyringWait, network: network,
            accounts: pollers.values.map { poller in
                var status = poller.board.status(of: poller.account)
                status.hold = holds.hold(for: poller.account, at: now)
                status.popupsHeld = status.hold?.description(at: now, zone: holds.zone)
                return status
            }.sorted { $0.id < $1.id },
            deliveries: deliveries, relay: relay?.board.status ?? RelayStatus())
    }

}

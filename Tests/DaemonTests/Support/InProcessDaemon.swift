import DBus
import Daemon
import Desktop
import Foundation
import Keyring
import Logging
import MainLoop
import PushCore
import Settings
import StateStore
import Synchronization
import TestSupport
import Testing

/// The daemon's supervisor and pollers in this process with nothing real outside it: an
/// in-memory gitbay per account (`FakeGitbay`), the accounts handed over as the keyring hands
/// them, a state directory of its own, seeded jitter, and a manual clock that only the test
/// moves; its news recorded, and with `desktop`, shown by the real desktop stage on an
/// in-memory notification server (`InMemoryNotificationServer`), whose clicks come back to the
/// supervisor as in the daemon. No socket, keyring or child process (the stage's badge and
/// broadcasts need a bus: a bare one of the test's own): hours of polling, backoff and
/// `Retry-After` take milliseconds. Tests wait on the daemon's typed events, the requests the
/// gitbays saw and what the server was sent, never on the log's wording.
final class InProcessDaemon: Sendable {
    /// What the daemon told, with the time on `clock` when it told it, and whether the code
    /// that told it ran on the loop's thread (as every stage's code does in gbnotifyd).
    struct Told: Sendable {
        let at: Duration
        let event: DaemonEvent
        let onLoop: Bool
    }

    /// The desktop stage and what it shows on.
    struct Stage: Sendable {
        let bus: PrivateBus
        let connection: DBusConnection
        let server: InMemoryNotificationServer
        let desktop: Desktop
    }

    static let username = "cmc"

    let clock: ManualClock
    let gitbays: [FakeGitbay]
    let accounts: [Account]
    /// Everything the pollers handed the desktop, in order.
    let news: RecordingDesktop
    let events: Observed<[Told]>
    let log: Observed<[String]>
    let supervisor: Supervisor
    let stage: Stage?
    private let directory: URL
    /// Which accounts the keyring holds.
    private let inKeyring: Observed<Set<Int>>

    /// What the keyring says while it cannot be read.
    struct KeyringLocked: Error, CustomStringConvertible {
        var description: String { "the collection is locked" }
    }

    /// Runs `body` with a started daemon of `count` accounts, each on an instance of its own,
    /// and stops it however the test ends. The keyring holds those of `inKeyring` (all when
    /// nil), and refuses its first `keyringRefusals` readings.
    static func run(
        accounts count: Int = 1, inKeyring: Set<Int>? = nil, settings: DaemonSettings = DaemonSettings(config: .defaults),
        seed: UInt64 = 1, desktop: Bool = false, keyringRefusals: Int = 0, _ body: (InProcessDaemon) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gbnotifyd-in-process-\(UUID().uuidString)")
        let (clock, events, log) = (ManualClock(), Observed<[Told]>([]), Observed<[String]>([]))
        let tell = DaemonEvents { event in
            let onLoop = MainLoop.shared.isCurrentThread
            events.update { $0.append(Told(at: clock.now.offset, event: event, onLoop: onLoop)) }
        }
        let logger = Logger(level: .debug) { line in log.update { $0.append(line) } }
        let state = StateFiles(StateDirectory(path: directory.appendingPathComponent("state").path))
        var stage: Stage?
        if desktop {
            let bus = try await PrivateBus()
            let connection = try await DBusConnection.connect(to: .address(bus.address))
            let server = InMemoryNotificationServer()
            let options = Desktop.Options(
                config: settings.config, environment: [:], icon: "gbnotify", browser: ["/bin/true"], timeline: Timeline(clock),
                events: tell)
            stage = Stage(
                bus: bus, connection: connection, server: server,
                desktop: try await Desktop.start(
                    on: connection, server: server.connect(), state: state, options: options, logger: logger))
        }
        let daemon = try InProcessDaemon(
            count: count, settings: settings, seed: seed, directory: directory, clock: clock, events: events, log: log,
            tell: tell, logger: logger, state: state, stage: stage, inKeyring: inKeyring ?? Set(0..<count),
            keyringRefusals: keyringRefusals)
        // As in the daemon: what a click asks of an account goes to the supervisor.
        await stage?.desktop.sendRequests(to: daemon.supervisor)
        do {
            try await daemon.supervisor.start()
            try await body(daemon)
        } catch {
            Issue.record("the daemon's log in the failed test:\n\(log.value.joined(separator: "\n"))")
            await daemon.finish()
            throw error
        }
        await daemon.finish()
    }

    private init(
        count: Int, settings: DaemonSettings, seed: UInt64, directory: URL, clock: ManualClock, events: Observed<[Told]>,
        log: Observed<[String]>, tell: DaemonEvents, logger: Logger, state: StateFiles, stage: Stage?, inKeyring: Set<Int>,
        keyringRefusals: Int
    ) throws {
        (self.directory, self.clock, self.events, self.log, self.stage) = (directory, clock, events, log, stage)
        var gitbays: [FakeGitbay] = []
        var stored: [StoredAccount] = []
        for index in 0..<count {
            let instance = try GitbayInstance(parsing: "https://gitbay-\(index).test")
            gitbays.append(FakeGitbay(instance: instance, username: Self.username, clock: clock))
            stored.append(StoredAccount(account: try Account(instance: instance, username: Self.username), token: try APIToken("gb_token\(index)")))
        }
        self.gitbays = gitbays
        accounts = stored.map(\.account)
        let news = RecordingDesktop()
        self.news = news
        let byInstance = Dictionary(uniqueKeysWithValues: gitbays.map { ($0.instance, $0) })
        let refusals = Mutex(keyringRefusals)
        let held = Observed(inKeyring)
        self.inKeyring = held
        let keyring: AccountSource = { [stored] in
            guard refusals.withLock({ left in defer { left = max(0, left - 1) }; return left == 0 }) else { throw KeyringLocked() }
            let indices = held.value
            return AccountListing(accounts: stored.indices.filter(indices.contains).map { stored[$0] }, skipped: [])
        }
        supervisor = Supervisor(
            settings: settings, configPath: directory.appendingPathComponent("config").path,
            sources: Supervisor.Sources(accounts: keyring, loadSettings: { settings }),
            state: state,
            desktop: { [recorder = news.sink, desktop = stage?.desktop] item in
                await recorder(item)
                await desktop?.hand(item)
            },
            logger: logger, hostname: "test-host",
            parts: Supervisor.Parts(
                transport: { instance, _, _ in byInstance[instance]! }, timeline: Timeline(clock), random: .seeded(seed), events: tell))
    }

    private func finish() async {
        await supervisor.stop()
        if let stage {
            await stage.desktop.stop()
            await stage.connection.close()
            await stage.bus.stop()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Puts account `index` into the keyring, and tells the daemon that the keyring changed, as
    /// the Secret Service's signals do.
    func storeInKeyring(_ index: Int) async {
        inKeyring.update { _ = $0.insert(index) }
        await supervisor.take(.keyringChanged)
    }

    /// Moves the clock on from one wait to the next, each time once the daemon is idle (every
    /// account still polling, `polling` of them, waits for its next poll), until `condition`
    /// holds of what the daemon has done; throws after `limit` waits, naming `what`.
    func advance(until what: String, polling: Int? = nil, limit: Int = 200, _ condition: () -> Bool) async throws {
        for _ in 0..<limit {
            if condition() { return }
            try await clock.waitForSleepers(polling ?? accounts.count)
            if condition() { return }
            clock.advanceToNextDeadline()
        }
        throw TimedOut(description: "\(what): not within \(limit) waits; told \(events.value.map(\.event))")
    }

    /// Waits in real time (the clock stands) until account 0, told to poll soon (a wake-up, a
    /// resume, the network back), has polled past `polls` polls or waits for a poll due within
    /// `window`: the news has reached it, and moving the clock on moves it to that poll, not
    /// to the one the news replaced.
    func waitUntilPollDue(within window: Duration, after polls: Int) async throws {
        let (clock, requests) = (clock, gitbays[0].requests)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await clock.waitForSleep(endingWithin: window) }
            group.addTask {
                try await requests.wait(for: "a poll") { $0.count { $0.argv == ["notifications", "list"] } > polls }
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Waits in real time (the clock stands) until the daemon has told an event that `matches`.
    @discardableResult
    func waitForEvent(_ what: String, _ matches: @escaping @Sendable (DaemonEvent) -> Bool) async throws -> Told {
        let told = try await events.wait(for: what, timeout: .seconds(10)) { $0.contains { matches($0.event) } }
        return told.first { matches($0.event) }!
    }

    /// Each poll of account `index` that ended, with when and how, oldest first.
    func polls(of index: Int) -> [(at: Duration, words: String, failed: Bool)] {
        events.value.compactMap { told in
            guard case .polled(let account, let words, let failed) = told.event, account == accounts[index] else { return nil }
            return (told.at, words, failed)
        }
    }

    /// The `notifications list` requests instance `index` saw, oldest first.
    func listRequests(_ index: Int) -> [FakeGitbay.Request] {
        gitbays[index].requests.value.filter { $0.argv == ["notifications", "list"] }
    }
}

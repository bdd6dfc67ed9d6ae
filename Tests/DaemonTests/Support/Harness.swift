import Daemon
import Desktop
import Foundation
import GitbayClient
import Keyring
import Logging
import PushCore
import Settings
import StateStore
import MainLoop
import Synchronization
import TestSupport
import Testing

/// One test's world: gitbay stand-ins with one user each (the same username on all of them, as
/// two accounts of one person), their accounts in the session's real keyring, a state directory
/// of its own, a recording desktop and a captured log. `run` tears it all down, supervisors
/// included, however the test ends.
final class Harness: Sendable {
    struct Instance: Sendable {
        let standin: Standin
        /// The TLS front the daemon reaches the stand-in through, if any (`Wire`).
        let front: HTTP2Front?
        let token: String
        let account: Account
    }

    /// How the daemon reaches the stand-ins.
    enum Wire: Sendable, CaseIterable, CustomTestStringConvertible {
        /// Plain HTTP/1.1 to the stand-in itself.
        case direct
        /// Through nghttpx, TLS with ALPN offering h2 and http/1.1, as a real instance is reached.
        case http2Front
        /// Through nghttpx offering only http/1.1.
        case http1Front

        var frontProtocols: HTTP2Front.Protocols? {
            switch self {
            case .direct: nil
            case .http2Front: .h2AndHTTP1
            case .http1Front: .http1Only
            }
        }

        var testDescription: String {
            switch self {
            case .direct: "HTTP/1.1 direct"
            case .http2Front: "through nghttpx, h2"
            case .http1Front: "through nghttpx, http/1.1 only"
            }
        }
    }

    static let username = "cmc"

    let instances: [Instance]
    let directory: URL
    let state: StateDirectory
    /// The waits of the test, which move the virtual clock of `virtualTime(pollers:)`.
    private let demand = TimeDemand()
    let desktop: RecordingDesktop
    let log: Observed<[String]>
    /// What the harness's supervisors and desktop stages told (`DaemonEvent`), in order.
    let events: Observed<[DaemonEvent]>
    /// The clock of `virtualTime(pollers:)`, and each log line with the time it read when the
    /// line was logged.
    let clock = ManualClock()
    let timedLog = Observed<[(at: Duration, line: String)]>([])
    private let supervisors = Mutex<[Supervisor]>([])
    /// Through fronts, the sessions of this harness's daemon, as gbnotifyd's process has its
    /// own: on the process's, the many daemons of the test process would share connections,
    /// which the fronts' tests count.
    private let sessions = InstanceSessions()
    private let clockDrivers = Mutex<[Task<Void, Never>]>([])

    /// - Parameters:
    ///   - count: how many stand-ins, each with user `cmc` and a token.
    ///   - scopes: the token scope of each stand-in's user; full where not given.
    ///   - inKeyring: which instances' accounts are in the keyring from the start.
    ///   - wire: how the daemon reaches the stand-ins.
    ///   - frontOptions: with a front (`wire`), how it limits its connections.
    static func run(
        _ count: Int = 2, scopes: [Int: Standin.TokenScope] = [:], inKeyring: Set<Int>? = nil, wire: Wire = .direct,
        frontOptions: HTTP2Front.Options = HTTP2Front.Options(), _ body: (Harness) async throws -> Void
    ) async throws {
        try requirePrivateSession()
        var instances: [Instance] = []
        for index in 0..<count {
            let standin = try await Standin.start()
            var front: HTTP2Front?
            if let protocols = wire.frontProtocols {
                var options = frontOptions
                options.protocols = protocols
                front = try await HTTP2Front.start(backendPort: standin.port, options)
                // The instance's address is the front's, in the push payloads too.
                try await standin.configure(.init(siteURL: front?.url))
            }
            let token = try await standin.addUserWithToken(username, scope: scopes[index] ?? .full)
            let instance = try GitbayInstance(parsing: front?.url ?? standin.url)
            instances.append(Instance(
                standin: standin, front: front, token: token, account: try Account(instance: instance, username: username)))
        }
        let harness = try Harness(instances: instances)
        do {
            for index in inKeyring ?? Set(0..<count) {
                try await harness.storeInKeyring(index)
            }
            try await body(harness)
        } catch {
            Issue.record("the daemon's log in the failed test:\n\(harness.log.value.joined(separator: "\n"))")
            await harness.finish()
            throw error
        }
        await harness.finish()
    }

    private init(instances: [Instance]) throws {
        self.instances = instances
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("gbnotifyd-test-\(UUID().uuidString)")
        state = StateDirectory(path: directory.appendingPathComponent("state").path)
        desktop = RecordingDesktop(demand: demand)
        log = Observed([], demand: demand)
        events = Observed([], demand: demand)
    }

    /// Where the supervisors and stages of this harness tell what they did.
    var tell: DaemonEvents {
        DaemonEvents { [events] event in events.update { $0.append(event) } }
    }

    /// Waits until `count` of the events told match; those.
    @discardableResult
    func waitForEvents(
        _ what: String, count: Int = 1, _ matches: @escaping @Sendable (DaemonEvent) -> Bool
    ) async throws -> [DaemonEvent] {
        try await events.waitFor(what, count: count, matches)
    }

    /// Waits until notice `row` of `account` is on screen as the newest of its group (of `size`
    /// notices when given).
    func waitForShown(row: Int, of account: Account, inGroupOf size: Int? = nil) async throws {
        let shown = DaemonEvent.isShown(row: Int64(row), of: account)
        try await waitForEvents("notice \(row) of \(account.displayName) shown") { event in
            guard shown(event), case .shown(_, .group(let group), _, _) = event else { return false }
            return size == nil || group.items.count == size
        }
    }

    /// Waits until a summary of `count` notices is on screen.
    func waitForSummary(of count: Int) async throws {
        try await waitForEvents("a summary of \(count) shown", DaemonEvent.isSummary(of: count))
    }

    /// Waits until `count` registrations in all have given a device id.
    func waitForRegistrations(_ count: Int) async throws {
        try await waitForEvents("a registration", count: count) { event in
            if case .registered(_, deviceID: _?, _) = event { true } else { false }
        }
    }

    /// Waits until `count` polls (of `account`, or of any) answered with a list, a 200.
    func waitForListedPolls(_ count: Int, of account: Account? = nil) async throws {
        try await waitForEvents("a poll answered 200 of \(account?.displayName ?? "any account")", count: count) { event in
            guard case .polled(let polled, let words, failed: false) = event else { return false }
            return words.hasPrefix("200 ok") && (account == nil || polled == account)
        }
    }

    /// Waits until `account` has had `count` polls that failed.
    func waitForFailedPolls(_ count: Int, of account: Account) async throws {
        try await waitForEvents("a failed poll of \(account.displayName)", count: count, DaemonEvent.isFailedPoll(of: account))
    }

    var logger: Logger {
        Logger(level: .debug) { [log, timedLog, clock] line in
            // The time first: a test that waited for a line in `log` finds its time there.
            timedLog.update { $0.append((clock.now.offset, line)) }
            log.update { $0.append(line) }
        }
    }

    /// A timeline in virtual time for this harness's supervisors: on `clock`, which moves on by
    /// itself to the earliest deadline while the test waits (for a log line, a notice, a
    /// request) and `pollers` sleeps are pending, that is while every polling account waits for
    /// its next poll and nothing else is under way. Requests, the keyring and the desktop run in
    /// real time between, at a standing virtual time; only the waits between them are skipped.
    /// For tests of what happens over many polls, backoffs and `Retry-After`s, not of what takes
    /// real time (a slow server, libcurl's timeouts).
    func virtualTime(pollers: Int) -> Timeline {
        let (clock, demand) = (clock, demand)
        let driver = Task {
            while !Task.isCancelled {
                await demand.wanted()
                // In rounds of a second, so that the end of the test ends the loop.
                guard (try? await clock.waitForSleepers(pollers, timeout: .seconds(1))) != nil, demand.isWanted else { continue }
                clock.advanceToNextDeadline()
            }
        }
        clockDrivers.withLock { $0.append(driver) }
        return Timeline(clock)
    }

    /// A supervisor over this harness's accounts, stopped when the test ends; what it does is
    /// told to `events`.
    ///
    /// - Parameter desktop: where its news goes besides `self.desktop`, which records all.
    func supervisor(
        _ settings: DaemonSettings = .forTests, desktop: DesktopSink? = nil,
        loadSettings: (@Sendable () throws(ConfigFileError) -> DaemonSettings)? = nil,
        accounts: AccountSource? = nil, relayToken: @escaping RelayTokenSource = { _ in nil },
        parts: Supervisor.Parts = Supervisor.Parts()
    ) -> Supervisor {
        var parts = parts
        parts.events = tell
        if instances.contains(where: { $0.front != nil }) { parts.transport = GitbayClient.maker(sessions: sessions) }
        let settings = trustingTheFronts(settings)
        let supervisor = Supervisor(
            settings: settings, configPath: directory.appendingPathComponent("config").path,
            sources: Supervisor.Sources(
                accounts: accounts ?? keyringAccounts, relayToken: relayToken, loadSettings: loadSettings ?? { settings }),
            state: StateFiles(state), desktop: { [recorder = self.desktop.sink] news in
                await recorder(news)
                await desktop?(news)
            }, logger: logger, hostname: "test-host", parts: parts)
        supervisors.withLock { $0.append(supervisor) }
        return supervisor
    }

    /// `settings` trusting the CA of the fronts, when the instances have fronts (`Wire`).
    func trustingTheFronts(_ settings: DaemonSettings) -> DaemonSettings {
        var settings = settings
        if let front = instances.lazy.compactMap(\.front).first { settings.client.caFile = front.caFile }
        return settings
    }

    /// The session keyring narrowed to this harness's instances: other tests keep their own
    /// accounts in the same keyring at the same time.
    var keyringAccounts: AccountSource {
        keyringAccounts(including: [])
    }

    /// The accounts are written and removed with `secret-tool`, as a user may: a store or a
    /// deletion through `Keyring` reads every item of the session's keyring, where the other
    /// tests' accounts are too, on the one keyring thread of the process that they all share.
    func storeInKeyring(_ index: Int) async throws {
        let account = instances[index].account
        try await SecretTool.store(instance: account.instance.url, user: account.username, token: instances[index].token)
    }

    /// Whether instance `index`'s account is in the keyring now.
    func isInKeyring(_ instance: Instance) async throws -> Bool {
        try await SecretTool.lookup(instance: instance.account.instance.url, user: instance.account.username) != nil
    }

    /// Instance `index`'s account's relay topic: its device token, made here if the daemon has
    /// not made it yet, as it would.
    func topic(of index: Int) throws -> String {
        try state.deviceToken(for: instances[index].account.id).token.hex
    }

    func removeFromKeyring(_ index: Int) async throws {
        try await SecretTool.clear(instance: instances[index].account.instance.url, user: instances[index].account.username)
    }

    /// The `notifications list` requests an instance received, oldest first.
    func listRequests(_ index: Int) async throws -> [Standin.LoggedRequest] {
        try await instances[index].standin.requests().filter { $0.queryArgv == ["notifications", "list"] }
    }

    /// Waits until instance `index` has received `count` list requests in all; each round
    /// blocks in the stand-in until one more request of any kind arrives.
    @discardableResult
    func waitForListRequests(_ count: Int, on index: Int) async throws -> [Standin.LoggedRequest] {
        try await demand.during { try await listRequests(count, arrivingOn: index) }
    }

    private func listRequests(_ count: Int, arrivingOn index: Int) async throws -> [Standin.LoggedRequest] {
        let standin = instances[index].standin
        let deadline = ContinuousClock.now + .seconds(20)
        var all = try await standin.requests()
        while all.count(where: { $0.queryArgv == ["notifications", "list"] }) < count {
            guard ContinuousClock.now < deadline else {
                throw TimedOut(description: "\(count) list requests on instance \(index): not within 20 seconds")
            }
            all = try await standin.waitForRequests(count: all.count + 1, timeout: .seconds(20))
        }
        return all.filter { $0.queryArgv == ["notifications", "list"] }
    }

    /// Waits for a log line containing `text`, the `occurrence`-th one.
    @discardableResult
    func waitForLog(_ text: String, occurrence: Int = 1) async throws -> [String] {
        try await log.wait(for: "log line \(occurrence) containing \"\(text)\"") { lines in
            lines.count { $0.contains(text) } >= occurrence
        }
    }

    /// The times on `clock` at which lines containing `text` were logged, oldest first.
    func loggedAt(_ text: String) -> [Duration] {
        timedLog.value.filter { $0.line.contains(text) }.map(\.at)
    }

    /// The times on `clock` at which instance `index`'s polls were logged as answered (200 or
    /// 304), oldest first: in virtual time, when they were made.
    func answeredPolls(of index: Int) -> [Duration] {
        timedLog.value.filter { Self.isAnsweredPoll($0.line, of: instances[index]) }.map(\.at)
    }

    /// Returns once instance `index`'s polls were answered `count` times.
    func waitForAnsweredPolls(_ count: Int, of index: Int) async throws {
        let instance = instances[index]
        try await log.wait(for: "\(count) answered polls of \(instance.account.displayName)") { lines in
            lines.count { Self.isAnsweredPoll($0, of: instance) } >= count
        }
    }

    private static func isAnsweredPoll(_ line: String, of instance: Instance) -> Bool {
        let name = instance.account.displayName
        return line.contains("\(name): 200 ok") || line.contains("\(name): 304 not modified")
    }

    func status(of index: Int, from supervisor: Supervisor) async throws -> AccountStatus {
        try #require(await supervisor.status().accounts.first { $0.id == instances[index].account.id })
    }

    private func finish() async {
        for supervisor in supervisors.withLock({ $0 }) {
            await supervisor.stop()
        }
        for driver in clockDrivers.withLock({ $0 }) {
            driver.cancel()
            await driver.value
        }
        for index in instances.indices {
            try? await removeFromKeyring(index)
            await instances[index].front?.stop()
            await instances[index].standin.stop()
        }
        try? FileManager.default.removeItem(at: directory)
        let lines = log.value
        for instance in instances {
            #expect(!lines.contains { $0.contains(instance.token) }, "a token reached the log")
        }
    }

    /// The tests write to the keyring: only ever to the throw-away one of scripts/desktop-session.
    private static func requirePrivateSession() throws {
        try #require(
            PrivateSession.isInsideDesktopSession,
            "run the daemon tests inside scripts/desktop-session, which gives them a keyring of their own")
    }
}

extension DaemonSettings {
    /// Polls every half second and gives up on a silent server after two, so timing cases take
    /// seconds; the config file would refuse such numbers.
    static var forTests: DaemonSettings {
        var settings = DaemonSettings(config: .defaults)
        settings.pollInterval = 0.5
        settings.backoffCap = 2
        settings.client.connectTimeout = .seconds(2)
        settings.client.stallTimeout = .seconds(2)
        settings.client.overallTimeout = .seconds(10)
        return settings
    }
}

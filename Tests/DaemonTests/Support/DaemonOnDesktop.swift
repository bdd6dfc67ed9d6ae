import DBus
import DesktopSuites
import Foundation
import GitbayClient
import Glibc
import PushCore
import TestSupport
import Testing

/// The real gbnotifyd on the suite's desktop (`SharedDesktop`), for one test (`run { desktop in
/// ... }`): the suite's gitbay stand-in, reset for the test, whose users' accounts are stored
/// in the session's keyring with `secret-tool` as a user stores them; a home of its own; the
/// session's data directory first in its `XDG_DATA_DIRS`; and an `OpenerStub` as the `xdg-open`
/// first on its `PATH`, the browser a click launches (the session's bus has no OpenURI portal:
/// only the server's own services can be activated there). No system bus unless a stand-in's
/// is given.
///
/// A test may kill the daemon and `start()` another in its place: `daemon` is the one started
/// last, and what the run reads of the server (`ours()`) is of all of them.
final class DaemonOnDesktop: Sendable {
    let session: DesktopSession
    let standin: Standin
    let home: DaemonHome
    let browser: OpenerStub
    /// The first user's account, which `show` adds rows for.
    let account: Account
    /// Every user's token, the first user's first.
    let tokens: [String]
    /// Every `org.freedesktop.Notifications` signal broadcast on the bus since the start, in
    /// order: the bus is the daemon's alone besides the server, so each is about one of its
    /// notifications. (GNOME's helper and dunst send theirs to the caller alone: `BusMonitor`
    /// sees those.)
    let signals: Observed<[DBusSignal]>
    private let environment: [String: String]
    private let daemons = Observed<[RunningDaemon]>([])
    private let readiness: NotifySocket
    private let listener: DBusConnection
    private let listening: Task<Void, Never>

    /// How the daemon names `account` in its log.
    var name: String { account.displayName }
    /// The daemon started last.
    var daemon: RunningDaemon { daemons.value.last! }

    /// Runs `body` with a gbnotifyd on the suite's desktop, every account's first poll answered
    /// (so every row added afterwards is new), and stops it all however the test ends. The
    /// stand-in starts empty but for the users, and whatever GNOME still holds of an earlier
    /// test is dropped first.
    ///
    /// - Parameters:
    ///   - users: a user on the stand-in and an account in the keyring each.
    ///   - systemBus: the daemon's `DBUS_SYSTEM_BUS_ADDRESS` (a `SystemBusStandin`'s environment).
    ///   - config: by default no poll of its own in a test's time: tests poll with `poll()`.
    ///   - plasmaPopups: how long Plasma shows a popup before it expires to its history:
    ///     `.long` unless a test is about Plasma's default 5 s, which a busy machine could
    ///     otherwise let pass in the middle of a test.
    ///   - extra: added to the daemon's environment (a language: `Translations.environment`).
    static func run(
        users: [String] = ["cmc"], systemBus: [String: String] = SystemBusStandin.noSystemBus,
        config: String = "poll-interval = 3600\n", plasmaPopups: PlasmaShell.PopupTimeout = .long, environment extra: [String: String] = [:],
        _ body: (DaemonOnDesktop) async throws -> Void
    ) async throws {
        let session = try SharedDesktop.session()
        switch session.server {
        case .gnomeShell: try await GnomeShell(session).clear()
        case .plasma: try await PlasmaShell(session).setPopupTimeout(plasmaPopups)
        default: break
        }
        let standin = try await SharedDesktop.standin()
        try await standin.reset()
        let desktop = try await start(on: session, standin: standin, users: users, adding: systemBus.merging(extra) { $1 }, config: config)
        do {
            try await body(desktop)
        } catch {
            await desktop.stop()
            throw error
        }
        await desktop.stop()
    }

    private static func start(
        on session: DesktopSession, standin: Standin, users: [String], adding extra: [String: String], config: String
    ) async throws -> DaemonOnDesktop {
        // Every start registers (a write): more than a few a minute are past gitbay's limits.
        try await standin.configure(.init(writeBurst: 1000, writesPerMinute: 1000))
        var tokens: [String] = []
        for user in users {
            try await standin.addUser(user)
            tokens.append(try await standin.addToken(for: user))
        }
        let home = try DaemonHome()
        try home.writeConfig(config)
        let bin = home.directory.appending(path: "bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let browser = try OpenerStub(at: bin.appending(path: "xdg-open").path)
        var environment = home.environment(on: session.environment).merging(extra) { $1 }
        environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        if let data = session.dataDirectory {
            environment["XDG_DATA_DIRS"] = data + ":" + (environment["XDG_DATA_DIRS"] ?? "/usr/local/share:/usr/share")
        }
        let listener = try await session.connect()
        let signals = Observed<[DBusSignal]>([])
        let stream = try await listener.signals(matching: DBusMatchRule(interface: NotificationsInterface.name))
        let listening = Task {
            for await signal in stream { signals.update { $0.append(signal) } }
        }
        let desktop = DaemonOnDesktop(
            session: session, standin: standin, home: home, browser: browser,
            account: try Account(instance: GitbayInstance(parsing: standin.url), username: users[0]), tokens: tokens,
            signals: signals, environment: environment, readiness: try NotifySocket(path: home.notifySocket),
            listener: listener, listening: listening)
        do {
            for (user, token) in zip(users, desktop.tokens) {
                let stored = try await session.run(
                    ["secret-tool", "store", "--label=gitbay test", "xdg:schema", "org.gitbay.Account", "instance", standin.url,
                     "user", user],
                    stdin: token)
                try #require(stored.status == 0, "secret-tool store: \(stored.stderr)")
            }
            try desktop.start()
            #expect(try await desktop.readiness.receive().hasPrefix("READY=1"))
            for user in users {
                try await desktop.daemon.waitForPoll(of: try Account(instance: desktop.account.instance, username: user))
            }
        } catch {
            await desktop.stop()
            throw error
        }
        return desktop
    }

    private init(
        session: DesktopSession, standin: Standin, home: DaemonHome, browser: OpenerStub, account: Account,
        tokens: [String], signals: Observed<[DBusSignal]>, environment: [String: String], readiness: NotifySocket,
        listener: DBusConnection, listening: Task<Void, Never>
    ) {
        self.session = session
        self.standin = standin
        self.home = home
        self.browser = browser
        self.account = account
        self.tokens = tokens
        self.signals = signals
        self.environment = environment
        self.readiness = readiness
        self.listener = listener
        self.listening = listening
    }

    /// Starts a gbnotifyd (after the one before was killed, say).
    @discardableResult
    func start() throws -> RunningDaemon {
        let daemon = try RunningDaemon(environment: environment)
        daemons.update { $0.append(daemon) }
        return daemon
    }

    /// A clean stop of every daemon still running (SIGTERM: it withdraws its notifications),
    /// then the rest; the accounts leave the keyring, so the next test's daemon finds its own
    /// alone.
    private func stop() async {
        for daemon in daemons.value where daemon.exit.value == nil {
            daemon.send(SIGTERM)
            let status = try? await daemon.waitForExit()
            #expect(status == 0, "gbnotifyd's exit")
        }
        #expect(
            !daemons.value.contains { $0.lines.value.contains { line in tokens.contains { line.contains($0) } } },
            "a token in gbnotifyd's log")
        let told = daemons.value.flatMap(\.events.value).map { String(decoding: (try? JSONEncoder().encode($0)) ?? Data(), as: UTF8.self) }
        #expect(!told.contains { line in tokens.contains { line.contains($0) } }, "a token in gbnotifyd's events")
        let cleared = try? await session.run(["secret-tool", "clear", "xdg:schema", "org.gitbay.Account", "instance", standin.url])
        #expect(cleared?.status == 0, "secret-tool clear: \(cleared?.stderr ?? "did not run")")
        listening.cancel()
        await listener.close()
        browser.close()
        home.remove()
    }

    /// Kills the daemon with SIGKILL once its last poll is done (the mark saved after what is on
    /// screen), starts the next, and returns once that one took over `count` notifications.
    func killDashNineAndRestart(takingOver count: Int) async throws {
        try await daemon.waitForPoll(of: account, saying: "200 ok, 1 new")
        daemon.send(SIGKILL)
        #expect(try await daemon.waitForExit() == 128 + SIGKILL)
        try await start().waitForAdoption(of: count)
    }

    // MARK: - The inbox

    /// Polls at once (SIGHUP reloads, and a reload polls every account).
    func poll() {
        daemon.send(SIGHUP)
    }

    /// Adds an inbox row of `repo` and polls; returns its id once it is on screen, and the
    /// server's id of the notification showing it.
    @discardableResult
    func show(
        repo: String = "krz/gitbay", actor: String = "eve", summary: String = "opened issue #12", number: Int = 12,
        kind: String = "issue"
    ) async throws -> (row: Int, notification: UInt32) {
        let noun = kind == "mr" ? "mrs" : kind == "build" ? "builds" : "issues"
        let row = try await standin.addNotification(
            for: account.username, repo: repo, kind: kind, actor: actor, summary: summary, path: "\(repo)/\(noun)/\(number)")
        poll()
        return (row, try await shownAs(row: row))
    }

    /// The server id of the notification that shows the row `row`, once the daemon showed it.
    func shownAs(row: Int) async throws -> UInt32 {
        try await notificationShowing("notice \(row)", DaemonEvent.isShown(row: Int64(row), of: account))
    }

    /// The server id of the last notification the daemon showed of what `matches`.
    private func notificationShowing(_ what: String, _ matches: @escaping @Sendable (DaemonEvent) -> Bool) async throws -> UInt32 {
        try #require(try await daemon.waitForEvent("\(what) shown", matches).last?.shownNotification)
    }

    /// The URL of an item of the account, as a click opens it.
    func url(_ path: String) -> String { "\(account.instance.url)/\(path)" }

    /// Marks rows read on the server, as the user would on the web.
    func readElsewhere(_ rows: [Int]) async throws {
        let client = GitbayClient(instance: account.instance, token: try APIToken(tokens[0]))
        _ = try await client.send(.notificationsRead(ids: rows.map(Int64.init)))
    }

    /// When the stand-in has the row as read; nil while it is unread.
    func readAt(_ row: Int) async throws -> String? {
        try await standin.state().notifications.first { $0.id == row }?.readAt
    }

    /// The server id of the notification that says `repository` was muted, once the daemon
    /// showed it.
    func mutedNotification(_ repository: String) async throws -> UInt32 {
        try await notificationShowing("that \(repository) is muted") { event in
            if case .shown(_, .muted(repository, _), _, _) = event { true } else { false }
        }
    }

    /// The stand-in's `repo mute|watch|unwatch` requests, as argv.
    func watchRequests() async throws -> [[String]] {
        try await standin.requests().compactMap { $0.argv }.filter { $0.first == "repo" }
    }

    /// The stand-in's `notifications read` requests, as argv.
    func markReadRequests() async throws -> [[String]] {
        try await standin.requests().compactMap { $0.argv }.filter { $0.starts(with: ["notifications", "read"]) }
    }

    // MARK: - The daemon's events, log and signals

    /// Waits until the daemon has handled every click it heard on notification `id` and the
    /// server's closing that follows one (so that a second click of one, say GNOME's echo, would
    /// have been told by now), and returns how many clicks it took, of any action.
    func clicksServed(on id: UInt32) async throws -> Int {
        try await waitUntilGone(id)
        return daemon.events.value.count { event in
            if case .clicked(notification: id, _) = event { true } else { false }
        }
    }

    /// Waits until the daemon no longer has notification `id` open: the server closed it, or the
    /// daemon withdrew it (after "Mark read", whichever comes first).
    func waitUntilGone(_ id: UInt32) async throws {
        try await daemon.waitForEvent("notification \(id) closed or withdrawn") { event in
            switch event {
            case .closedByServer(notification: id, _), .withdrawn(notification: id): true
            default: false
            }
        }
    }

    /// Waits for a log line that ends with `text` (where a number ends the line, "notification
    /// 1" must not match "notification 12").
    func waitForLine(endingWith text: String) async throws {
        try await waitForLine("a line ending with \"\(text)\"") { $0.hasSuffix(text) }
    }

    private func waitForLine(_ what: String, where matches: @escaping @Sendable (String) -> Bool) async throws {
        do {
            try await daemon.lines.wait(for: "gbnotifyd's log: \(what)") { $0.contains(where: matches) }
        } catch {
            Issue.record("gbnotifyd's log so far:\n\(daemon.lines.value.joined(separator: "\n"))")
            throw error
        }
    }

    /// The signals `member` about notification `id` so far.
    func signals(_ member: String, about id: UInt32) -> [DBusSignal] {
        signals.value.filter { $0.member == member && $0.arguments.first?.uint32Value == id }
    }

    /// Waits for the server's `NotificationClosed` of `id`; returns its reason.
    @discardableResult
    func closed(_ id: UInt32) async throws -> UInt32? {
        try await signals.wait(for: "NotificationClosed of \(id)") { signals in
            signals.contains { $0.member == "NotificationClosed" && $0.arguments.first?.uint32Value == id }
        }
        return signals("NotificationClosed", about: id).first?.arguments.last?.uint32Value
    }

    /// The ids of the notifications this run's daemons showed.
    var notificationIDs: Set<UInt32> {
        Set(daemons.value.flatMap { $0.events.value.compactMap(\.shownNotification) })
    }
}

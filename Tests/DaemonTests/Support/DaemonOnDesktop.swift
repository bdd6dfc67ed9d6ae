import DBus
import Foundation
import GitbayClient
import Glibc
import PushCore
import TestSupport
import Testing

/// A desktop session for a whole suite (which should be `.serialized`: one screen), with
/// gbnotify installed in a data directory first in `XDG_DATA_DIRS`, the way a package installs
/// it: its desktop entry, and its icon in the hicolor theme. Found by the suite's tests in
/// `current`.
///
/// The installed icon is the packaged one recoloured (`installedIconColour` for its blue), so a
/// picture of a bubble tells the installed file from the one in the source tree, which a
/// gbnotifyd that finds no installed icon falls back to.
struct InstalledDesktop: SuiteTrait, TestScoping {
    struct Scope: Sendable {
        let session: DesktopSession
        let dataDirectory: String
    }

    let server: DesktopSession.Server

    @TaskLocal static var current: Scope?

    /// The installed icon's fill, where the packaged one has `packagedIconColour`.
    static let installedIconColour = "#1F7A4D"
    static let packagedIconColour = "#2F5D8A"
    /// The unread badge's red, the same in both.
    static let badgeColour = "#E8563F"

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let data = FileManager.default.temporaryDirectory.appending(path: "installed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        try Self.install(in: data)
        let session = try await DesktopSession.start(server, dataDirectory: data.path)
        do {
            try await Self.$current.withValue(Scope(session: session, dataDirectory: data.path)) { try await function() }
        } catch {
            await session.stop()
            throw error
        }
        await session.stop()
    }

    /// The desktop entry and the (recoloured) icon, where `make install` puts them under a prefix.
    static func install(in data: URL) throws {
        let packaging = URL(fileURLWithPath: Standin.packageRoot).appending(path: "packaging")
        let icons = data.appending(path: AppIcon.themePath).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: icons, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: data.appending(path: "applications"), withIntermediateDirectories: true)
        let icon = try String(contentsOf: packaging.appending(path: "gbnotify.svg"), encoding: .utf8)
        try #require(icon.localizedCaseInsensitiveContains(packagedIconColour), "the packaged icon's blue changed")
        try icon.replacingOccurrences(of: packagedIconColour, with: installedIconColour, options: .caseInsensitive)
            .write(to: data.appending(path: AppIcon.themePath), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(
            at: packaging.appending(path: "gbnotify.desktop"), to: data.appending(path: "applications/gbnotify.desktop"))
    }

    /// The suite's session; fails the test outside one.
    static func scope(sourceLocation: SourceLocation = #_sourceLocation) throws -> Scope {
        try #require(current, "not inside a suite with .installedDesktop(...)", sourceLocation: sourceLocation)
    }
}

extension Trait where Self == InstalledDesktop {
    static func installedDesktop(_ server: DesktopSession.Server) -> Self {
        InstalledDesktop(server: server)
    }
}

/// The real gbnotifyd on a desktop session: accounts on a stand-in of its own, stored in the
/// session's keyring with `secret-tool` as a user would (the only ones there), a home of its
/// own, the session's data directory first in `XDG_DATA_DIRS`, and an `OpenerStub` as the
/// `xdg-open` first on its `PATH` (the browser a click launches: the session's bus has no
/// OpenURI portal). No system bus unless a stand-in's environment is given.
///
/// The session's bus is the daemon's alone besides the server, so every notification signal on
/// it is about the daemon's notifications: `signals` records them all.
final class DaemonOnDesktop: Sendable {
    let session: DesktopSession
    let standin: Standin
    let home: DaemonHome
    let daemon: RunningDaemon
    let browser: OpenerStub
    /// The first account, which `show` adds rows for.
    let account: Account
    /// Every account's token, the first account's first.
    let tokens: [String]
    /// Every `org.freedesktop.Notifications` signal on the bus since the start, in order.
    let signals: Observed<[DBusSignal]>
    private let listener: DBusConnection
    private let listening: Task<Void, Never>

    static let username = "cmc"

    var url: String { account.instance.url }

    /// Starts it all and returns once every account's first poll is answered, so every row
    /// added afterwards is new.
    ///
    /// - Parameters:
    ///   - users: a user on the stand-in and an account in the keyring each.
    ///   - systemBus: the daemon's `DBUS_SYSTEM_BUS_ADDRESS` (a `SystemBusStandin`'s environment).
    static func start(
        on scope: InstalledDesktop.Scope, users: [String] = [username], systemBus: [String: String] = SystemBusStandin.noSystemBus,
        config: String = "poll-interval = 3600\n"
    ) async throws -> DaemonOnDesktop {
        let session = scope.session
        let standin = try await Standin.start()
        do {
            _ = try await session.run(["secret-tool", "clear", "xdg:schema", "org.gitbay.Account"])
            var tokens: [String] = []
            for user in users {
                try await standin.addUser(user)
                tokens.append(try await standin.addToken(for: user))
                let stored = try await session.run(
                    ["secret-tool", "store", "--label=gitbay test", "xdg:schema", "org.gitbay.Account", "instance", standin.url,
                     "user", user],
                    stdin: tokens[tokens.count - 1])
                try #require(stored.status == 0, "secret-tool store: \(stored.stderr)")
            }

            let home = try DaemonHome()
            try home.writeConfig(config)
            let bin = home.directory.appending(path: "bin")
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            let browser = try OpenerStub(at: bin.appending(path: "xdg-open").path)
            var environment = home.environment(on: session.environment).merging(systemBus) { $1 }
            environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            environment["XDG_DATA_DIRS"] = scope.dataDirectory + ":/usr/local/share:/usr/share"

            let listener = try await session.connect()
            let signals = Observed<[DBusSignal]>([])
            let stream = try await listener.signals(matching: DBusMatchRule(interface: "org.freedesktop.Notifications"))
            let listening = Task {
                for await signal in stream { signals.update { $0.append(signal) } }
            }
            let readiness = try NotifySocket(path: home.notifySocket)
            let daemon = try RunningDaemon(environment: environment)
            let instance = try GitbayInstance(parsing: standin.url)
            let started = DaemonOnDesktop(
                session: session, standin: standin, home: home, daemon: daemon, browser: browser,
                account: try Account(instance: instance, username: users[0]), tokens: tokens, signals: signals,
                listener: listener, listening: listening)
            do {
                #expect(try await readiness.receive().hasPrefix("READY=1"))
                for user in users {
                    try await daemon.waitForLine(containing: "\(try Account(instance: instance, username: user).displayName): 200 ok")
                }
            } catch {
                await started.stop()
                throw error
            }
            return started
        } catch {
            await standin.stop()
            throw error
        }
    }

    private init(
        session: DesktopSession, standin: Standin, home: DaemonHome, daemon: RunningDaemon, browser: OpenerStub,
        account: Account, tokens: [String], signals: Observed<[DBusSignal]>, listener: DBusConnection,
        listening: Task<Void, Never>
    ) {
        self.session = session
        self.standin = standin
        self.home = home
        self.daemon = daemon
        self.browser = browser
        self.account = account
        self.tokens = tokens
        self.signals = signals
        self.listener = listener
        self.listening = listening
    }

    /// Runs `body` with a daemon started on the suite's desktop, and stops it however the test
    /// ends.
    static func run(config: String = "poll-interval = 3600\n", _ body: (DaemonOnDesktop) async throws -> Void) async throws {
        let desktop = try await start(on: try InstalledDesktop.scope(), config: config)
        do {
            try await body(desktop)
        } catch {
            await desktop.stop()
            throw error
        }
        await desktop.stop()
    }

    /// A clean stop (SIGTERM: the daemon withdraws its notifications), then the rest.
    func stop() async {
        if daemon.exit.value == nil {
            daemon.send(SIGTERM)
            let status = try? await daemon.waitForExit()
            #expect(status == 0, "gbnotifyd's exit")
        }
        #expect(!daemon.lines.value.contains { line in tokens.contains { line.contains($0) } }, "a token in gbnotifyd's log")
        listening.cancel()
        await listener.close()
        browser.close()
        await standin.stop()
        home.remove()
    }

    /// Polls at once (SIGHUP reloads, and a reload polls every account).
    func poll() {
        daemon.send(SIGHUP)
    }

    /// Adds an inbox row, polls, and returns once the daemon says it is showing it: the row's id
    /// and the notification's.
    @discardableResult
    func show(
        repo: String = "krz/gitbay", actor: String = "eve", summary: String = "opened issue #12",
        path: String = "krz/gitbay/issues/12"
    ) async throws -> (row: Int, notification: UInt32) {
        let row = try await standin.addNotification(
            for: account.username, repo: repo, kind: "issue", actor: actor, summary: summary, path: path)
        poll()
        let line = try await daemon.waitForLine(containing: "showing notice \(row) ").last { $0.contains("showing notice \(row) ") }
        let id = line?.firstMatch(of: /as notification (\d+)/).flatMap { UInt32($0.1) }
        return (row, try #require(id, "no notification id in \(line ?? "")"))
    }

    /// Marks rows read on the server, as the user would on the web.
    func readElsewhere(_ rows: [Int]) async throws {
        let client = GitbayClient(instance: account.instance, token: try APIToken(tokens[0]))
        _ = try await client.send(.notificationsRead(ids: rows.map(Int64.init)))
    }

    /// When the stand-in has the row as read; nil while it is unread.
    func readAt(_ row: Int) async throws -> String? {
        try await standin.state().notifications.first { $0.id == row }?.readAt
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
}

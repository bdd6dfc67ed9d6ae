import DBus
import Daemon
import Foundation
import GitbayClient
import Keyring
import PushCore
import TestSupport
import Testing

/// The desktop presenter against real parts: a supervisor polling a stand-in with the account
/// in the session's keyring, and a notification server (dunst) on a bus of this suite's own,
/// where no other suite shows anything, so "click the top notification" means ours.
///
/// The tests share that session, one after another: starting a bus, an X server and dunst for
/// each would load the machine enough to slow other suites' timing-sensitive tests.
@Suite(.serialized, SharedNotificationSession()) struct DesktopPresenterTests {
    struct World {
        let harness: Harness
        let session: NotificationSession
        let presenter: DesktopPresenter
        let supervisor: Supervisor

        var standin: Standin { harness.instances[0].standin }
        var instanceURL: String { harness.instances[0].account.instance.url }

        /// Adds an inbox row and waits until it is on screen.
        @discardableResult
        func show(
            repo: String = "krz/gitbay", actor: String = "eve", summary: String = "opened issue #12",
            path: String = "krz/gitbay/issues/12"
        ) async throws -> Int {
            let id = try await standin.addNotification(
                for: Harness.username, repo: repo, kind: "issue", actor: actor, summary: summary, path: path)
            try await harness.waitForLog("showing notice \(id) as notification")
            return id
        }

        /// Records every badge count sent for our desktop entry, on a connection of its own,
        /// until `body` returns.
        func watchingBadge(_ body: (DBusConnection, Observed<[Int64]>) async throws -> Void) async throws {
            let watcher = try await session.connect()
            let badges = Observed<[Int64]>([])
            let updates = try await watcher.signals(
                matching: DBusMatchRule(interface: "com.canonical.Unity.LauncherEntry", member: "Update"))
            let listening = Task {
                for await update in updates where update.arguments.first?.stringValue == "application://gbnotify.desktop" {
                    let properties = update.arguments.last?.vardictValue ?? [:]
                    guard let count = properties["count"]?.int64Value,
                          properties["count-visible"]?.boolValue == (count > 0)
                    else { continue }
                    badges.update { $0.append(count) }
                }
            }
            defer { listening.cancel() }
            do {
                try await body(watcher, badges)
            } catch {
                await watcher.close()
                throw error
            }
            await watcher.close()
        }

        /// `gbnotifyctl ARGUMENTS` on this session's bus, launched with `activationToken` as a
        /// desktop launches it (`XDG_ACTIVATION_TOKEN`).
        func gbnotifyctl(_ arguments: [String], activationToken: String? = nil) async throws -> Program.Outcome {
            var environment = session.environment
            environment["XDG_ACTIVATION_TOKEN"] = activationToken
            return try await Program.run([Program.built("gbnotifyctl")] + arguments, environment: environment)
        }
    }

    /// A presenter on the session's bus that opens with the session's opener stub.
    static func presenter(
        on connection: DBusConnection, for harness: Harness, session: NotificationSession, config: Config = .defaults
    ) async throws -> DesktopPresenter {
        try await DesktopPresenter.start(
            on: connection,
            options: DesktopPresenter.Options(config: config, environment: session.environment, browser: [session.opener.path]),
            markRead: ServerMarkRead.through(Keyring(), options: DaemonSettings.forTests.client),
            logger: harness.logger)
    }

    /// The test timings with the config file at `path`, read again on every reload.
    static func testSettings(from path: String) -> @Sendable () throws(ConfigFileError) -> DaemonSettings {
        { () throws(ConfigFileError) in
            var settings = DaemonSettings.forTests
            settings.config = try ConfigFile.load(path).config
            return settings
        }
    }

    /// Runs `body` with the presenter polling one account whose first (empty) poll is done, so
    /// every row added afterwards is new.
    ///
    /// - Parameters:
    ///   - instances: how many stand-ins, each an account in the keyring; the world's `standin`
    ///     is the first.
    ///   - config: the config file the supervisor reads on each reload; `startConfig` at the
    ///     start.
    static func run(
        instances: Int = 1, serverAtStart: Bool = true, config: String? = nil, startConfig: Config = .defaults,
        _ body: (World) async throws -> Void
    ) async throws {
        let session = try #require(SharedNotificationSession.current, "the suite runs in a shared notification session")
        // A test that failed while the server was stopped does not take the next one with it.
        if try await !session.hasServer() { try await session.startServer() }
        // Whatever the last test left on screen is not this test's.
        try await session.dunstctl("close-all")
        try await Harness.run(instances) { harness in
            if !serverAtStart { try await session.killServer() }
            let connection = try await session.connect()
            let presenter = try await presenter(on: connection, for: harness, session: session, config: startConfig)
            // The daemon's desktop methods, under its name on this bus, for gbnotifyctl.
            let accounts = harness.instances.map(\.account)
            try await DesktopService.export(presenter, accounts: { accounts }, on: connection)
            #expect(try await connection.requestName(DaemonInterface.busName))
            let supervisor = harness.supervisor(presenter: presenter, loadSettings: config.map(Self.testSettings))
            func finish() async {
                await supervisor.stop()
                await presenter.stop()
                // Released before the next test asks for it, not whenever the bus notices the
                // connection has gone.
                try? await connection.releaseName(DaemonInterface.busName)
                await connection.close()
            }
            do {
                try await supervisor.start()
                for instance in harness.instances { try await harness.waitForLog("\(instance.account.displayName): 200 ok") }
                try await body(World(harness: harness, session: session, presenter: presenter, supervisor: supervisor))
            } catch {
                await finish()
                throw error
            }
            await finish()
        }
    }

    @Test func aNewRowIsShownWithRepositorySummaryAndEscapedBody() async throws {
        try await Self.run { world in
            try await world.show(actor: "eve", summary: "said <b>hi</b> & left")
            let history = try await world.session.closeAllAndReadHistory()
            #expect(history.first == NotificationSession.HistoryEntry(
                summary: "krz/gitbay", body: "eve said &lt;b&gt;hi&lt;/b&gt; &amp; left", appName: "gitbay",
                category: "x-gitbay.issue"))
        }
    }

    @Test func aClickOpensTheURLRebuiltFromTheInstance() async throws {
        try await Self.run { world in
            try await world.show(path: "krz/gitbay/issues/12")
            try await world.session.dunstctl("action", "0")
            let launch = try await world.session.opener.nextLaunch()
            #expect(launch.arguments == ["\(world.instanceURL)/krz/gitbay/issues/12"])
        }
    }

    @Test func markReadReachesTheServerWithdrawsTheNoticeAndLowersTheBadge() async throws {
        try await Self.run { world in
            try await world.watchingBadge { _, badges in
            let id = try await world.show()
            try await badges.wait(for: "a badge of 1") { $0.last == 1 }
            // dunst's context menu runs the session's stub dmenu, which picks "Mark read".
            try await world.session.dunstctl("context")
            try await world.harness.waitForLog("marked notice \(id) read")
            let reads = try await world.standin.requests().filter { $0.argv?.starts(with: ["notifications", "read"]) == true }
            #expect(reads.map(\.argv) == [["notifications", "read", String(id)]])
            try await badges.wait(for: "the badge at 0") { $0.last == 0 }
            #expect(try await world.session.dunstctl("count", "displayed").trimmingCharacters(in: .whitespacesAndNewlines) == "0")
            }
        }
    }

    @Test func hostilePathsOpenOnlyTheInboxAndLongTextIsCut() async throws {
        try await Self.run { world in
            let paths = ["../../etc/passwd", "javascript:alert(1)", "https://evil.example/krz/gitbay/issues/1", "krz/gitbay/wiki/1"]
            for (index, path) in paths.enumerated() {
                // A repository each: one notice alone is its own notification, not a group.
                try await world.show(repo: "krz/hostile\(index)", summary: String(repeating: "x", count: 10_000), path: path)
                try await world.session.dunstctl("action", "0")
                let launch = try await world.session.opener.nextLaunch()
                #expect(launch.arguments == ["\(world.instanceURL)/notifications"], "path \(path)")
                let history = try await world.session.closeAllAndReadHistory()
                #expect(history.first?.body.count == NotificationContent.maximumBodyLength)
            }
        }
    }

    @Test func theBadgeIsSentAgainWhenADockAppears() async throws {
        try await Self.run { world in
            try await world.watchingBadge { watcher, badges in
                try await world.show()
                try await badges.wait(for: "a badge of 1") { $0 == [1] }
                #expect(try await watcher.requestName("com.canonical.Unity"))
                try await badges.wait(for: "the badge sent again") { $0 == [1, 1] }
            }
        }
    }

    @Test func aCleanStopWithdrawsOurNotifications() async throws {
        try await Self.run { world in
            // Two repositories, so two notifications.
            try await world.show(repo: "krz/gitbay")
            try await world.show(repo: "krz/other", path: "krz/other/issues/13")
            #expect(try await world.session.dunstctl("count", "displayed").trimmingCharacters(in: .whitespacesAndNewlines) == "2")
            await world.presenter.stop()
            #expect(try await world.session.dunstctl("count", "displayed").trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        }
    }

    @Test func noticesWaitForAServerAndSurviveItsRestart() async throws {
        try await Self.run(serverAtStart: false) { world in
            let first = try await world.standin.addNotification(for: Harness.username, repo: "krz/first", path: "krz/first/issues/1")
            try await world.harness.waitForLog("notice \(first) waits for one")
            try await world.session.startServer()
            try await world.harness.waitForLog("showing notice \(first) as notification")
            #expect(try await world.session.closeAllAndReadHistory().first?.summary == "krz/first")

            try await world.session.killServer()
            let second = try await world.standin.addNotification(for: Harness.username, repo: "krz/second", path: "krz/second/issues/2")
            try await world.harness.waitForLog("notice \(second) waits for one")
            try await world.session.startServer()
            try await world.harness.waitForLog("showing notice \(second) as notification")
            #expect(try await world.session.closeAllAndReadHistory().first?.summary == "krz/second")
        }
    }

    @Test func gbnotifyctlOpenOpensAPathTheWayAClickWould() async throws {
        try await Self.run { world in
            let account = world.harness.instances[0].account.displayName
            let opened = try await world.gbnotifyctl(["open", account, "krz/gitbay/mrs/3"], activationToken: "token-42")
            #expect(opened.status == 0, "\(opened.stderr)")
            #expect(try await world.session.opener.nextLaunch() == OpenerStub.Launch(
                arguments: ["\(world.instanceURL)/krz/gitbay/mrs/3"], activationToken: "token-42"))

            let unknown = try await world.gbnotifyctl(["open", "nobody@example.org", "krz/gitbay/mrs/3"], activationToken: "token-42")
            #expect(unknown.status == 1)
            #expect(unknown.stderr.contains("nobody@example.org"))

            // Bare, as the desktop entry runs it: the first account's inbox, and nothing in
            // between (the unknown account opened nothing).
            let bare = try await world.gbnotifyctl(["open"])
            #expect(bare.status == 0, "\(bare.stderr)")
            #expect(try await world.session.opener.nextLaunch().arguments == ["\(world.instanceURL)/notifications"])
        }
    }

    @Test func gbnotifyctlTestShowsASampleNotification() async throws {
        try await Self.run { world in
            let outcome = try await world.gbnotifyctl(["test"])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            try await world.harness.waitForLog("showing the sample notification")
            let history = try await world.session.closeAllAndReadHistory()
            #expect(history.first?.summary == "gbnotify")
            #expect(history.first?.appName == "gitbay")
        }
    }

    @Test func aStartShowsOneSummaryOfWhatIsStillUnread() async throws {
        try await Self.run { world in
            try await world.show(repo: "krz/gitbay")
            try await world.show(repo: "krz/other", path: "krz/other/issues/13")
            // Stopped cleanly, as on logout: the notices are withdrawn, the mark is saved.
            await world.supervisor.stop()
            await world.presenter.stop()
            _ = try await world.session.closeAllAndReadHistory()

            let connection = try await world.session.connect()
            let restarted = try await Self.presenter(on: connection, for: world.harness, session: world.session)
            try await world.harness.supervisor(presenter: restarted).start()
            try await world.harness.waitForLog("showing a summary of 2 as notification")
            let history = try await world.session.closeAllAndReadHistory()
            #expect(history.first?.summary == "2 unread on \(world.harness.instances[0].account.instance.displayName) as cmc")
            await restarted.stop()
            await connection.close()
        }
    }

    @Test func aNoticeReadElsewhereIsWithdrawnAndTheBadgeFalls() async throws {
        try await Self.run { world in
            try await world.watchingBadge { _, badges in
                let id = try await world.show()
                try await badges.wait(for: "a badge of 1") { $0.last == 1 }
                // Read on the web: the next poll no longer lists it.
                let instance = world.harness.instances[0]
                let client = GitbayClient(instance: instance.account.instance, token: try APIToken(instance.token))
                _ = try await client.send(.notificationsRead(ids: [Int64(id)]))
                try await world.harness.waitForLog("notice \(id) was read; withdrawing")
                try await badges.wait(for: "the badge at 0") { $0.last == 0 }
                #expect(try await world.session.dunstctl("count", "displayed").trimmingCharacters(in: .whitespacesAndNewlines) == "0")
            }
        }
    }

    // MARK: - Grouping by repository

    /// Adds a row to a repository that already has a notification on screen, and waits until
    /// that notification shows the group of `size`.
    @discardableResult
    static func join(_ world: World, size: Int, summary: String, number: Int) async throws -> Int {
        let id = try await world.standin.addNotification(
            for: Harness.username, repo: "krz/gitbay", kind: "issue", actor: "ana", summary: summary,
            path: "krz/gitbay/issues/\(number)")
        try await world.harness.waitForLog("showing notice \(id) in a group of \(size) of krz/gitbay as notification")
        return id
    }

    static func displayed(_ session: NotificationSession) async throws -> String {
        try await session.dunstctl("count", "displayed").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func noticesOfOneRepositoryShareOneNotificationThatOpensTheInbox() async throws {
        try await Self.run { world in
            try await world.show(summary: "opened issue #12")
            try await Self.join(world, size: 2, summary: "commented on issue #12", number: 12)
            let replaced = try #require(world.harness.log.value.last { $0.contains("in a group of 2") })
            #expect(replaced.contains(" in place of "), "\(replaced)")
            #expect(try await Self.displayed(world.session) == "1")

            try await world.session.dunstctl("action", "0")
            #expect(try await world.session.opener.nextLaunch().arguments == ["\(world.instanceURL)/notifications"])
            let history = try await world.session.closeAllAndReadHistory()
            #expect(history.first?.summary == "krz/gitbay")
            #expect(history.first?.body == "ana commented on issue #12\neve opened issue #12")
        }
    }

    @Test func markReadMarksEveryNoticeOfTheGroup() async throws {
        try await Self.run { world in
            try await world.watchingBadge { _, badges in
                let first = try await world.show()
                let second = try await Self.join(world, size: 2, summary: "closed issue #12", number: 12)
                try await badges.wait(for: "a badge of 2") { $0.last == 2 }
                try await world.session.dunstctl("context")
                try await world.harness.waitForLog("marked notice \(second), \(first) read")
                let reads = try await world.standin.requests().filter { $0.argv?.starts(with: ["notifications", "read"]) == true }
                #expect(reads.map(\.argv) == [["notifications", "read", String(second), String(first)]])
                try await badges.wait(for: "the badge at 0") { $0.last == 0 }
                #expect(try await Self.displayed(world.session) == "0")
            }
        }
    }

    @Test func aGroupShrinksWhenPartOfItIsReadElsewhereAndGoesWhenAllIs() async throws {
        try await Self.run { world in
            let first = try await world.show(summary: "opened issue #12")
            let second = try await Self.join(world, size: 2, summary: "opened issue #13", number: 13)
            let instance = world.harness.instances[0]
            let client = GitbayClient(instance: instance.account.instance, token: try APIToken(instance.token))
            _ = try await client.send(.notificationsRead(ids: [Int64(first)]))
            try await world.harness.waitForLog("notice \(first) was read; notification")
            try await world.harness.waitForLog("showing notice \(second) as notification")
            #expect(try await Self.displayed(world.session) == "1")

            _ = try await client.send(.notificationsRead(ids: [Int64(second)]))
            try await world.harness.waitForLog("notice \(second) was read; withdrawing notification")
            #expect(try await Self.displayed(world.session) == "0")
            // What was on screen last: the group shrunk to the notice still unread.
            let history = try await world.session.closeAllAndReadHistory()
            #expect(history.first?.body == "ana opened issue #13", "\(history.prefix(3))")
        }
    }

    // MARK: - Reload

    @Test func aReloadChangesWhatTheNextClickOpens() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gbnotify-reload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let configFile = directory.appendingPathComponent("config").path
        try await Self.run(config: configFile) { world in
            try await world.show(repo: "krz/gitbay", path: "krz/gitbay/issues/12")
            try await world.session.dunstctl("action", "0")
            #expect(try await world.session.opener.nextLaunch().arguments == ["\(world.instanceURL)/krz/gitbay/issues/12"])
            try await world.session.dunstctl("close-all")

            try "open-with = terminal\nterminal = \(world.session.opener.path) --run\nterminal-command = gitbay {noun} view {repo} {number}\n"
                .write(toFile: configFile, atomically: true, encoding: .utf8)
            try await world.supervisor.reload()
            try await world.show(repo: "krz/other", path: "krz/other/mrs/3")
            try await world.session.dunstctl("action", "0")
            #expect(try await world.session.opener.nextLaunch().arguments == ["--run", "gitbay", "mr", "view", "krz/other", "3"])
        }
    }

    // MARK: - The terminal view

    /// The notice comes from the second of two instances, where the first has an item of the
    /// same path: the click must show the second's, read with its account's token.
    @Test func aTerminalClickForAnAccountOnASecondInstanceRunsTheViewForThatAccount() async throws {
        let tmux = try await Tmux.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gbnotify-click-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let terminal = directory.appendingPathComponent("terminal").path
        let pane = try tmux.terminal(at: terminal)
        let config = try Config.parse("open-with = terminal\nterminal = \(terminal)\n")
        do {
            try await Self.run(instances: 2, startConfig: config) { world in
                let (first, second) = (world.harness.instances[0], world.harness.instances[1])
                try await first.standin.addItem(.issue, repo: "krz/clicked", data: Self.issue(4, "Wrong: the first instance's"))
                try await second.standin.addItem(.issue, repo: "krz/clicked", data: Self.issue(4, "Right: the second instance's"))
                let id = try await second.standin.addNotification(
                    for: Harness.username, repo: "krz/clicked", kind: "issue", path: "krz/clicked/issues/4")
                try await world.harness.waitForLog("showing notice \(id) as notification")
                try await world.session.dunstctl("action", "0")
                let screen = try await pane.waitFor("the second instance's item") { $0.contains(" Right: the second instance's") }
                #expect(screen[0].hasPrefix(" krz/clicked#4 · \(second.account.displayName)"))
                // gbnotifyctl beside the running program (here the test bundle, in the build
                // directory beside gbnotifyctl), the account by its own reference.
                #expect(try pane.arguments() == [Program.built("gbnotifyctl"), "show", second.account.reference, "krz/clicked/issues/4"])
                #expect(try await second.standin.requests().contains { $0.queryArgv == ["issue", "show", "krz/clicked", "4"] })
                #expect(try await !first.standin.requests().contains { $0.queryArgv?.first == "issue" })
                try await pane.send("q")
                #expect(try await pane.waitForExit().status == 0)
            }
        } catch {
            await tmux.stop()
            throw error
        }
        await tmux.stop()
    }

    static func issue(_ number: Int, _ title: String) -> String {
        #"{"author":"eve","created_at":"2026-09-20T10:00:00.000Z","number":\#(number),"state":"open","title":"\#(title)"}"#
    }

    // MARK: - The OpenURI portal

    /// Runs `body` with a fake OpenURI portal on the session's bus.
    static func withPortal(refusing: Bool, in world: World, _ body: (FakeOpenURIPortal) async throws -> Void) async throws {
        let portal = try await FakeOpenURIPortal(refusing: refusing, on: .address(world.session.busAddress))
        do {
            try await body(portal)
        } catch {
            await portal.service.stop()
            throw error
        }
        await portal.service.stop()
    }

    @Test func aURLGoesToTheOpenURIPortalWhereThereIsOne() async throws {
        try await Self.run { world in
            try await Self.withPortal(refusing: false, in: world) { portal in
                let account = world.harness.instances[0].account.displayName
                let opened = try await world.gbnotifyctl(["open", account, "krz/gitbay/issues/12"], activationToken: "token-7")
                #expect(opened.status == 0, "\(opened.stderr)")
                let url = "\(world.instanceURL)/krz/gitbay/issues/12"
                #expect(opened.stdout.contains("org.freedesktop.portal.OpenURI.OpenURI \(url)"), "\(opened.stdout)")
                #expect(portal.calls.value == [FakeOpenURIPortal.Call(parentWindow: "", uri: url, activationToken: "token-7")])
                // The portal opened it, so nothing was launched (the launch would be logged before
                // gbnotifyctl got its answer).
                #expect(!world.harness.log.value.contains { $0.contains("opened with") })
            }
        }
    }

    @Test func aFailingPortalFallsBackToTheBrowser() async throws {
        try await Self.run { world in
            try await Self.withPortal(refusing: true, in: world) { portal in
                try await world.show(path: "krz/gitbay/issues/12")
                try await world.session.dunstctl("action", "0")
                let url = "\(world.instanceURL)/krz/gitbay/issues/12"
                #expect(try await world.session.opener.nextLaunch().arguments == [url])
                #expect(portal.calls.value.map(\.uri) == [url])
                #expect(world.harness.log.value.contains { $0.hasPrefix("<4>the OpenURI portal did not open \(url)") })
            }
        }
    }
}

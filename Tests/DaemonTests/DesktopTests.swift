import DBus
import Daemon
import Desktop
import Foundation
import GitbayClient
import Logging
import MainLoop
import Opener
import PushCore
import Settings
import StateStore
import TestSupport
import Testing

/// The desktop stage against real parts: a supervisor polling a stand-in with the account in
/// the session's keyring, its news handed to the stage, which shows it on dunst. The stage
/// reaches the session bus of the process, so the suite runs in a copy of the test
/// process in a desktop session of its own (`DesktopSuiteTests`), where nobody else shows
/// anything and "click the top notification" means ours; its tests run one after another.
@Suite(.serialized, .enabled(if: PrivateSession.isRunning(suite: "DesktopTests")))
struct DesktopTests {
    struct World {
        let harness: Harness
        let desktop: Desktop
        let supervisor: Supervisor
        /// The daemon's own connection, where its bus name and the badge live.
        let connection: DBusConnection
        let opener: OpenerStub

        var standin: Standin { harness.instances[0].standin }
        var account: Account { harness.instances[0].account }
        var instanceURL: String { account.instance.url }

        /// Adds an inbox row, polls, and waits until it is on screen.
        @discardableResult
        func show(
            repo: String = "krz/gitbay", actor: String = "eve", summary: String = "opened issue #12",
            path: String = "krz/gitbay/issues/12", instance: Int = 0
        ) async throws -> Int {
            let id = try await harness.instances[instance].standin.addNotification(
                for: Harness.username, repo: repo, kind: "issue", actor: actor, summary: summary, path: path)
            try await harness.waitForShown(row: id, of: harness.instances[instance].account)
            return id
        }

        /// Records every badge count sent for our desktop entry, on a connection of its own,
        /// until `body` returns.
        func watchingBadge(_ body: (DBusConnection, Observed<[Int64]>) async throws -> Void) async throws {
            let watcher = try await DBusConnection.connect()
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
        /// desktop launches it (`XDG_ACTIVATION_TOKEN`), with the opener stub first on its `PATH`
        /// as `xdg-open`.
        func gbnotifyctl(_ arguments: [String], activationToken: String? = nil) async throws -> Program.Outcome {
            let programs = harness.directory.appendingPathComponent("bin")
            if !FileManager.default.fileExists(atPath: programs.path) {
                try FileManager.default.createDirectory(at: programs, withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(atPath: programs.appendingPathComponent("xdg-open").path, withDestinationPath: opener.path)
            }
            var environment = ProcessInfo.processInfo.environment
            environment["PATH"] = programs.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            environment["XDG_ACTIVATION_TOKEN"] = activationToken
            return try await Program.run([Program.built("gbnotifyctl")] + arguments, environment: environment)
        }
    }

    /// The icon every notification names: the source tree's, as a build that is not installed
    /// finds it.
    static let icon = "file://\(Standin.packageRoot)/packaging/gbnotify.svg"

    /// The test timings with the config file at `path`, read again on every reload.
    static func testSettings(from path: String) -> @Sendable () throws(ConfigFileError) -> DaemonSettings {
        { () throws(ConfigFileError) in
            var settings = DaemonSettings.forTests
            settings.config = try ConfigFile.load(path)
            return settings
        }
    }

    /// A desktop stage on this session, with its own log and opener stub; on `clock`, in UTC from
    /// `wallClockAtStart`, when given.
    static func desktop(
        for harness: Harness, on connection: DBusConnection, opener: OpenerStub, config: Config = .defaults,
        clock: ManualClock? = nil, wallClockAtStart: Int64? = nil
    ) async throws -> Desktop {
        var options = Desktop.Options(
            config: config, environment: ProcessInfo.processInfo.environment, icon: icon, browser: [opener.path])
        // The fake portal runs in this process: trusted here as xdg-desktop-portal is.
        options.trustedPortals = [FakeOpenURIPortal.executable]
        options.events = harness.tell
        if let clock { options.timeline = Timeline(clock) }
        if let wallClockAtStart {
            options.wallClockAtStart = wallClockAtStart
            options.zone = ZoneOffsets { _ in 0 }
        }
        return try await Desktop.start(on: connection, state: StateFiles(harness.state), options: options, logger: harness.logger)
    }

    /// Runs `body` with the stage showing what `count` accounts' pollers hand it, each account's
    /// first (empty) poll done, so every row added afterwards is new.
    ///
    /// - Parameter config: the config file the supervisor reads on each reload; the defaults
    ///   at the start.
    ///   - startConfig: the config the stage starts with.
    ///   - clock: the stage's clock, starting at `wallClockAtStart` in UTC.
    static func run(
        _ count: Int = 1, serverAtStart: Bool = true, config: String? = nil, startConfig: Config = .defaults,
        clock: ManualClock? = nil, wallClockAtStart: Int64? = nil, wire: Harness.Wire = .direct,
        _ body: (World) async throws -> Void
    ) async throws {
        // A test that failed while the server was stopped does not take the next one with it.
        if try await !Dunst.isRunning() { try await Dunst.start() }
        // Whatever the last test left on screen is not this test's.
        try await Dunst.ctl("close-all")
        try await Harness.run(count, wire: wire) { harness in
            if !serverAtStart { try await Dunst.kill() }
            try FileManager.default.createDirectory(at: harness.directory, withIntermediateDirectories: true)
            let opener = try OpenerStub(at: harness.directory.appendingPathComponent("opener").path)
            let connection = try await DBusConnection.connect()
            let desktop = try await Self.desktop(
                for: harness, on: connection, opener: opener, config: startConfig, clock: clock, wallClockAtStart: wallClockAtStart)
            var settings = DaemonSettings.forTests
            settings.config = startConfig
            let supervisor = harness.supervisor(settings, desktop: desktop.hand, loadSettings: config.map(Self.testSettings))
            // The stage's requests to the supervisor, as gbnotifyd wires them.
            await desktop.sendRequests(to: supervisor)
            func finish() async {
                await supervisor.stop()
                await desktop.stop()
                // Released before the next test asks for it, not whenever the bus notices the
                // connection has gone.
                try? await connection.releaseName(DaemonInterface.busName)
                await connection.close()
                opener.close()
            }
            do {
                try await supervisor.start()
                for index in 0..<count { try await harness.desktop.waitForUpdates(1, for: harness.instances[index].account) }
                try await harness.waitForListedPolls(count)
                try await body(World(harness: harness, desktop: desktop, supervisor: supervisor, connection: connection, opener: opener))
            } catch {
                await finish()
                throw error
            }
            await finish()
        }
    }

    @Test func aNewRowIsShownWithRepositorySummaryEscapedBodyAndIcon() async throws {
        try await Self.run { world in
            try await world.show(actor: "eve", summary: "said <b>hi</b> & left")
            let history = try await Dunst.closeAllAndReadHistory()
            #expect(history.first == Dunst.HistoryEntry(
                summary: "krz/gitbay", body: "eve said &lt;b&gt;hi&lt;/b&gt; &amp; left", appName: "gitbay",
                category: "x-gitbay.issue", iconPath: "\(Standin.packageRoot)/packaging/gbnotify.svg"))
        }
    }

    @Test func theTitleIsTheRepositoryOfThePathAClickOpens() async throws {
        try await Self.run { world in
            // The row's repo field says one thing, its path another: the path is what opens.
            try await world.show(repo: "bank/login", path: "krz/gitbay/issues/12")
            #expect(try await Dunst.closeAllAndReadHistory().first?.summary == "krz/gitbay")
        }
    }

    @Test func bidiOverridesAndInvisibleCharactersNeverReachTheScreen() async throws {
        try await Self.run { world in
            // "txt.exe" written right to left would read "exe.txt"; zero-width spaces hide words.
            try await world.show(actor: "eve\u{200B}", summary: "uploaded \u{202E}txt.exe\u{202C} and\u{2066} left\u{FEFF}")
            let body = try #require(try await Dunst.closeAllAndReadHistory().first?.body)
            #expect(body == "eve uploaded txt.exe and left")
            #expect(!body.unicodeScalars.contains { $0.properties.generalCategory == .format })
        }
    }

    @Test func aClickOpensTheURLRebuiltFromTheInstance() async throws {
        try await Self.run { world in
            try await world.show(path: "krz/gitbay/issues/12")
            try await Dunst.ctl("action", "0")
            let launch = try await world.opener.nextLaunch()
            #expect(launch.arguments == ["\(world.instanceURL)/krz/gitbay/issues/12"])
        }
    }

    @Test(arguments: [Harness.Wire.direct, .http2Front])
    func markReadGoesThroughTheAccountsPollerWithdrawsTheNoticeAndLowersTheBadge(_ wire: Harness.Wire) async throws {
        try await Self.run(wire: wire) { world in
            try await world.watchingBadge { _, badges in
                let id = try await world.show()
                try await badges.wait(for: "a badge of 1") { $0.last == 1 }
                // dunst's context menu runs the session's stub dmenu, which picks "Mark read".
                try await Dunst.ctl("context")
                try await world.harness.waitForEvents("notice \(id) marked read") { $0 == .markedRead(world.account, [Int64(id)]) }
                let reads = try await world.standin.requests().filter { $0.argv?.starts(with: ["notifications", "read"]) == true }
                #expect(reads.map(\.argv) == [["notifications", "read", String(id)]])
                #expect(try await world.standin.state().notifications.first { $0.id == id }?.readAt != nil)
                try await badges.wait(for: "the badge at 0") { $0.last == 0 }
                #expect(try await Dunst.displayed() == 0)
            }
        }
    }

    @Test func hostilePathsOpenOnlyTheInboxAndLongTextIsCut() async throws {
        try await Self.run { world in
            let paths = ["../../etc/passwd", "javascript:alert(1)", "https://evil.example/krz/gitbay/issues/1", "krz/gitbay/wiki/1"]
            for (index, path) in paths.enumerated() {
                try await world.show(repo: "krz/hostile\(index)", summary: String(repeating: "x", count: 10_000), path: path)
                try await Dunst.ctl("action", "0")
                let launch = try await world.opener.nextLaunch()
                #expect(launch.arguments == ["\(world.instanceURL)/notifications"], "path \(path)")
                let history = try await Dunst.closeAllAndReadHistory()
                #expect(history.first?.summary == world.account.instance.displayName, "path \(path)")
                #expect(history.first?.body.count == NotificationContent.maximumGroupLineLength)
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

    @Test func aCleanStopWithdrawsOurNotificationsAndClearsTheBadge() async throws {
        try await Self.run { world in
            try await world.watchingBadge { _, badges in
                // Two repositories, so two notifications.
                try await world.show(repo: "krz/gitbay")
                try await world.show(repo: "krz/other", path: "krz/other/issues/13")
                #expect(try await Dunst.displayed() == 2)
                try await badges.wait(for: "a badge of 2") { $0.last == 2 }
                await world.supervisor.stop()
                await world.desktop.stop()
                #expect(try await Dunst.displayed() == 0)
                try await badges.wait(for: "the badge cleared") { $0.last == 0 }
                // Nothing left for a next daemon to take over.
                #expect(try world.harness.state.loadScreen().saved == nil)
            }
        }
    }

    @Test func noticesWaitForAServerAndSurviveItsRestart() async throws {
        try await Self.run(serverAtStart: false) { world in
            let first = try await world.standin.addNotification(for: Harness.username, repo: "krz/first", path: "krz/first/issues/1")
            try await world.harness.waitForLog("notice \(first) waits for one")
            try await Dunst.start()
            try await world.harness.waitForShown(row: first, of: world.account)
            #expect(try await Dunst.closeAllAndReadHistory().first?.summary == "krz/first")

            try await Dunst.kill()
            let second = try await world.standin.addNotification(for: Harness.username, repo: "krz/second", path: "krz/second/issues/2")
            try await world.harness.waitForLog("notice \(second) waits for one")
            try await Dunst.start()
            try await world.harness.waitForShown(row: second, of: world.account)
            #expect(try await Dunst.closeAllAndReadHistory().first?.summary == "krz/second")
        }
    }

    @Test func gbnotifyctlOpenOpensAPathTheWayAClickWould() async throws {
        try await Self.run { world in
            let account = world.account.displayName
            let opened = try await world.gbnotifyctl(["open", account, "krz/gitbay/mrs/3"], activationToken: "token-42")
            #expect(opened.status == 0, "\(opened.stderr)")
            #expect(try await world.opener.nextLaunch() == OpenerStub.Launch(
                arguments: ["\(world.instanceURL)/krz/gitbay/mrs/3"], activationToken: "token-42"))

            let unknown = try await world.gbnotifyctl(["open", "nobody@example.org", "krz/gitbay/mrs/3"], activationToken: "token-42")
            #expect(unknown.status == 1)
            #expect(unknown.stderr.contains("nobody@example.org"))

            // Bare, as the desktop entry runs it: the first account's inbox, and nothing in
            // between (the unknown account opened nothing).
            let bare = try await world.gbnotifyctl(["open"])
            #expect(bare.status == 0, "\(bare.stderr)")
            #expect(try await world.opener.nextLaunch().arguments == ["\(world.instanceURL)/notifications"])
        }
    }

    @Test func gbnotifyctlTestShowsASampleNotificationItself() async throws {
        try await Self.run { world in
            let outcome = try await world.gbnotifyctl(["test"])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stdout.hasPrefix("gbnotifyctl: sent a sample notification"))
            let history = try await Dunst.closeAllAndReadHistory()
            #expect(history.first?.summary == "gbnotify")
            #expect(history.first?.appName == "gitbay")
            // The daemon showed nothing: gbnotifyctl did, on its own connection.
            #expect(!world.harness.log.value.contains { $0.contains("sample") })
        }
    }

    @Test func aStartShowsOneSummaryOfWhatIsStillUnread() async throws {
        try await Self.run { world in
            try await world.show(repo: "krz/gitbay")
            try await world.show(repo: "krz/other", path: "krz/other/issues/13")
            // Stopped cleanly, as on logout: the notices are withdrawn, the mark is saved.
            await world.supervisor.stop()
            await world.desktop.stop()
            _ = try await Dunst.closeAllAndReadHistory()

            let restarted = try await Self.desktop(for: world.harness, on: world.connection, opener: world.opener)
            try await world.harness.supervisor(desktop: restarted.hand).start()
            try await world.harness.waitForSummary(of: 2)
            let history = try await Dunst.closeAllAndReadHistory()
            #expect(history.first?.summary == "2 unread on \(world.account.instance.displayName) as cmc")
            await restarted.stop()
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
                try await world.harness.waitForEvents("a withdrawal") { if case .withdrawn = $0 { true } else { false } }
                try await badges.wait(for: "the badge at 0") { $0.last == 0 }
                #expect(try await Dunst.displayed() == 0)
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
        try await world.harness.waitForShown(row: id, of: world.account, inGroupOf: size)
        return id
    }

    @Test func noticesOfOneRepositoryShareOneNotificationThatListsWhatIsNew() async throws {
        try await Self.run { world in
            try await world.show(summary: "opened issue #12")
            try await Self.join(world, size: 2, summary: "commented on issue #12", number: 12)
            let groups = world.harness.events.value.compactMap { event -> (UInt32, UInt32?)? in
                guard case .shown(_, .group(let group), let notification, let replacing) = event, group.items.count == 2 else { return nil }
                return (notification, replacing)
            }
            // In place: the group's notification replaced itself.
            #expect(groups.count == 1 && groups.first?.1 == groups.first?.0, "\(groups)")
            #expect(try await Dunst.displayed() == 1)

            try await Dunst.ctl("action", "0")
            #expect(try await world.opener.nextLaunch().arguments == ["\(world.instanceURL)/notifications"])
            // The new notice, and the one shown before counted, not listed again.
            let history = try await Dunst.closeAllAndReadHistory()
            #expect(history.first?.summary == "krz/gitbay")
            #expect(history.first?.body == "ana commented on issue #12\nand 1 more")
        }
    }

    @Test func markReadMarksEveryNoticeOfTheGroup() async throws {
        try await Self.run { world in
            try await world.watchingBadge { _, badges in
                let first = try await world.show()
                let second = try await Self.join(world, size: 2, summary: "closed issue #12", number: 12)
                try await badges.wait(for: "a badge of 2") { $0.last == 2 }
                try await Dunst.ctl("context")
                try await world.harness.waitForEvents("the group marked read") {
                    $0 == .markedRead(world.account, [Int64(second), Int64(first)])
                }
                let reads = try await world.standin.requests().filter { $0.argv?.starts(with: ["notifications", "read"]) == true }
                #expect(reads.map(\.argv) == [["notifications", "read", String(second), String(first)]])
                try await badges.wait(for: "the badge at 0") { $0.last == 0 }
                #expect(try await Dunst.displayed() == 0)
            }
        }
    }

    @Test func aGroupStaysUntilAllItsNoticesAreReadElsewhere() async throws {
        try await Self.run { world in
            let first = try await world.show(summary: "opened issue #12")
            let second = try await Self.join(world, size: 2, summary: "opened issue #13", number: 13)
            let instance = world.harness.instances[0]
            let client = GitbayClient(instance: instance.account.instance, token: try APIToken(instance.token))
            _ = try await client.send(.notificationsRead(ids: [Int64(first)]))
            try await world.harness.waitForListedPolls(3, of: world.account)
            // Half read: no new banner for a shorter list; the notification stays.
            #expect(try await Dunst.displayed() == 1)
            #expect(!world.harness.events.value.contains { if case .withdrawn = $0 { true } else { false } })

            _ = try await client.send(.notificationsRead(ids: [Int64(second)]))
            try await world.harness.waitForEvents("a withdrawal") { if case .withdrawn = $0 { true } else { false } }
            #expect(try await Dunst.displayed() == 0)
        }
    }

    // MARK: - Never more than the server keeps

    @Test func neverMoreThanMaxNotificationsOpenTheOldestFoldIntoASummary() async throws {
        try await Self.run { world in
            for index in 1...3 {
                try await world.show(repo: "krz/repo\(index)", path: "krz/repo\(index)/issues/\(index)")
            }
            #expect(try await Dunst.displayed() == 3)
            // A fourth repository: the two oldest fold into one summary in krz/repo1's place.
            try await world.show(repo: "krz/repo4", path: "krz/repo4/issues/4")
            try await world.harness.waitForSummary(of: 2)
            #expect(try await Dunst.displayed() == 3)
            // A fifth: krz/repo3 joins that summary, whose count grows in place.
            try await world.show(repo: "krz/repo5", path: "krz/repo5/issues/5")
            try await world.harness.waitForSummary(of: 3)
            #expect(try await Dunst.displayed() == 3)
            let history = try await Dunst.closeAllAndReadHistory().prefix(3).map(\.summary)
            #expect(Set(history) == ["krz/repo4", "krz/repo5", "3 more unread on \(world.account.instance.displayName) as cmc"])
        }
    }

    // MARK: - More than one account

    @Test func withTwoAccountsEachNotificationNamesItsAccount() async throws {
        try await Self.run(2) { world in
            // The same repository and text on two instances: two notifications, each saying whose.
            try await world.show(instance: 0)
            try await world.show(instance: 1)
            let bodies = try await Dunst.closeAllAndReadHistory().prefix(2).map(\.body)
            let names = world.harness.instances.map(\.account.displayName)
            #expect(Set(bodies) == Set(names.map { "\($0)\neve opened issue #12" }))
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
            try await Dunst.ctl("action", "0")
            #expect(try await world.opener.nextLaunch().arguments == ["\(world.instanceURL)/krz/gitbay/issues/12"])
            try await Dunst.ctl("close-all")

            try "open-with = terminal\nterminal = \(world.opener.path) --run\nterminal-command = gitbay {noun} view {repo} {number}\n"
                .write(toFile: configFile, atomically: true, encoding: .utf8)
            try await world.supervisor.reload()
            try await world.show(repo: "krz/other", path: "krz/other/mrs/3")
            try await Dunst.ctl("action", "0")
            #expect(try await world.opener.nextLaunch().arguments == ["--run", "gitbay", "mr", "view", "krz/other", "3"])
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
            try await Self.run(2, startConfig: config) { world in
                let (first, second) = (world.harness.instances[0], world.harness.instances[1])
                try await first.standin.addItem(.issue, repo: "krz/clicked", data: Self.issue(4, "Wrong: the first instance's"))
                try await second.standin.addItem(.issue, repo: "krz/clicked", data: Self.issue(4, "Right: the second instance's"))
                let id = try await second.standin.addNotification(
                    for: Harness.username, repo: "krz/clicked", kind: "issue", path: "krz/clicked/issues/4")
                try await world.harness.waitForShown(row: id, of: second.account)
                try await Dunst.ctl("action", "0")
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
    static func withPortal(refusing: Bool, _ body: (FakeOpenURIPortal) async throws -> Void) async throws {
        let portal = try await FakeOpenURIPortal(refusing: refusing, on: .session)
        do {
            try await body(portal)
        } catch {
            await portal.service.stop()
            throw error
        }
        await portal.service.stop()
    }

    @Test func aClickHandsItsURLToTheOpenURIPortalWhereThereIsOne() async throws {
        try await Self.run { world in
            try await Self.withPortal(refusing: false) { portal in
                try await world.show(path: "krz/gitbay/issues/12")
                try await Dunst.ctl("action", "0")
                let url = "\(world.instanceURL)/krz/gitbay/issues/12"
                try await world.harness.waitForEvents("\(url) opened through the portal") { $0 == .opened([Opener.portalInterface, url]) }
                #expect(portal.calls.value.map(\.uri) == [url])
                #expect(!world.harness.log.value.contains { $0.contains("opened with") })
            }
        }
    }

    /// Where no xdg-desktop-portal runs, any program may own its name: one that is not the
    /// system's portal is handed nothing, and the URL goes to the browser.
    @Test func aPortalNameOwnedByAnotherProgramGetsNoURL() async throws {
        try await Self.run { world in
            try await Self.withPortal(refusing: false) { portal in
                let opened = try await world.gbnotifyctl(["open", world.account.displayName, "krz/gitbay/issues/12"], activationToken: "token-7")
                #expect(opened.status == 0, "\(opened.stderr)")
                let url = "\(world.instanceURL)/krz/gitbay/issues/12"
                #expect(try await world.opener.nextLaunch() == OpenerStub.Launch(arguments: [url], activationToken: "token-7"))
                #expect(portal.calls.value.isEmpty)
                #expect(opened.stderr.contains("org.freedesktop.portal.Desktop is owned by"), "\(opened.stderr)")
                #expect(opened.stderr.contains("not by xdg-desktop-portal"), "\(opened.stderr)")
            }
        }
    }

    /// Debian's xdg-desktop-portal, started as a session starts it, is the portal `Opener`
    /// trusts: the URL call is made to it. With no backend in this session it has no OpenURI
    /// to answer with, so the browser opens instead, saying why.
    @Test func theSystemsPortalIsTrusted() async throws {
        try await Self.run { world in
            let owners = try await world.connection.watchNameOwner(FakeOpenURIPortal.busName)
            // Ended by its deinit (SIGKILL) when the test fails before the end.
            let portal = try Program(["/usr/libexec/xdg-desktop-portal", "--replace"], environment: ProcessInfo.processInfo.environment)
            try await withDeadline(.seconds(20), "xdg-desktop-portal taking its bus name") {
                for await owner in owners where owner != nil { return }
            }
            let opened = try await world.gbnotifyctl(["open", world.account.displayName, "krz/gitbay/issues/12"])
            #expect(opened.status == 0, "\(opened.stderr)")
            let url = "\(world.instanceURL)/krz/gitbay/issues/12"
            #expect(try await world.opener.nextLaunch().arguments == [url])
            #expect(opened.stderr.contains("the OpenURI portal did not open \(url)"), "\(opened.stderr)")
            #expect(!opened.stderr.contains("not by xdg-desktop-portal"), "\(opened.stderr)")
            portal.signal(SIGTERM)
            _ = await portal.finish()
        }
    }

    @Test func aFailingPortalFallsBackToTheBrowser() async throws {
        try await Self.run { world in
            try await Self.withPortal(refusing: true) { portal in
                try await world.show(path: "krz/gitbay/issues/12")
                try await Dunst.ctl("action", "0")
                let url = "\(world.instanceURL)/krz/gitbay/issues/12"
                #expect(try await world.opener.nextLaunch().arguments == [url])
                #expect(portal.calls.value.map(\.uri) == [url])
                // Said once the launch is under way, which the stub may record first.
                let said = try await world.harness.waitForLog("the OpenURI portal did not open \(url)")
                #expect(said.contains { $0.hasPrefix("<4>the OpenURI portal did not open \(url)") })
            }
        }
    }
}

/// Runs `DesktopTests` in a desktop session of its own: a bus with dunst (configured by
/// `Dunst.config`) and a keyring, where the stage and the tests' dunstctl meet.
@Suite struct DesktopSuiteTests {
    @Test func desktopTestsPassInADesktopOfTheirOwn() async throws {
        try await Self.runDesktopTests(on: .debian12)
    }

    /// `DesktopTests` in a session of the given release's dunst (Debian 12's 1.9, Debian 13's 1.12).
    static func runDesktopTests(on release: DesktopSession.Release) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gbnotify-dunst-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let ran = try await PrivateSession.runSuite("DesktopTests", release: release, environment: try Dunst.config(in: directory))
        #expect(ran >= 20)
    }
}

/// The same on dunst 1.12 (Debian 13's, from the root scripts/debian13-root builds), the session's
/// bus and dunst and the tests' dunstctl all the root's.
@Suite struct Dunst112DesktopSuiteTests {
    @Test func desktopTestsPassOnDunst112() async throws {
        try await DesktopSuiteTests.runDesktopTests(on: .debian13)
    }
}

import Foundation
import Glibc
import PushCore
import TestSupport
import Testing

/// The real `gbnotifyd` and `gbnotifyctl`, each test in a desktop session of its own (see
/// `PrivateSession`), driven by signals and read through `gbnotifyctl status`, systemd's
/// readiness protocol and the pollers' debug lines (`NAME: 200 ok, N new`, logged once the poll's
/// notices were handed to the presenter and saved), which say the same whatever presents them.
@Suite struct DaemonBinaryTests {
    @Test func daemonBinaryReportsNothingTwiceAcrossAKillDashNine() async throws {
        try await PrivateSession.run {
            let fixture = try await BinaryFixture.start()
            let (home, standin, token, name) = (fixture.home, fixture.standin, fixture.token, fixture.name)
            try await standin.addNotifications(for: "cmc", count: 2)

            let readiness = try NotifySocket(path: home.notifySocket)
            let first = try RunningDaemon(environment: home.environment)
            #expect(try await readiness.receive() == "READY=1\nSTATUS=Polling 1 account")
            try await first.waitForPoll(of: fixture.account, saying: "200 ok, 2 new")

            let status = try await home.ctl(["status", "--json"])
            #expect(status.status == 0, "\(status.stderr)")
            let report = try JSONDecoder().decode(DaemonStatus.self, from: Data(status.stdout.utf8))
            let account = try #require(report.accounts.first)
            let device = try #require(try await standin.state().devices.first)
            #expect(report.configPath == home.configFile)
            #expect(account.state == .ok)
            #expect(account.unread == 2)
            #expect(account.deviceID == Int64(device.id))
            #expect(account.lastResult == PollResult(.ok, httpStatus: 200, newNotices: 2))
            #expect(account.nextPoll != nil)
            let table = try await home.ctl(["status"])
            #expect(table.stdout.contains("cmc@\(standin.url)  ok     2"), "\(table.stdout)")

            // SIGHUP polls again at once; the new row is reported and saved, then the daemon dies
            // hard. (Killed between the report and the save, it would report the row again after
            // the restart: at least once, by design, never lost.)
            try await standin.addNotification(for: "cmc")
            first.send(SIGHUP)
            try await first.waitForPoll(of: fixture.account, saying: "200 ok, 1 new")
            first.send(SIGKILL)
            #expect(try await first.waitForExit() == 128 + SIGKILL)

            let whileDown = try await standin.addNotifications(for: "cmc", count: 5)
            let second = try RunningDaemon(environment: home.environment)
            #expect(try await readiness.receive() == "READY=1\nSTATUS=Polling 1 account")
            try await second.waitForPoll(of: fixture.account, saying: "200 ok, 5 new")
            // One more poll after a reload: nothing more to report.
            second.send(SIGHUP)
            try await second.waitForPoll(of: fixture.account, saying: "304 not modified")
            #expect(second.lines(containing: "\(name): 200 ok") == ["<7>\(name): 200 ok, 5 new"])
            let after = try JSONDecoder().decode(DaemonStatus.self, from: Data(try await home.ctl(["status", "--json"]).stdout.utf8))
            #expect(after.accounts.first?.unread == 8)
            #expect(after.accounts.first?.lastResult == PollResult(.notModified, httpStatus: 304))
            let saved = try String(contentsOfFile: home.stateDirectory + "/accounts.json", encoding: .utf8)
            #expect(saved.contains("\"highWater\":\(whileDown.last!)"))

            second.send(SIGTERM)
            #expect(try await second.waitForExit() == 0)
            #expect(try await readiness.receive() == "STOPPING=1")
            #expect(!(first.lines.value + second.lines.value).contains { $0.contains(token) })

            let none = try await home.ctl(["status"])
            #expect(none.status == 1)
            #expect(none.stderr.contains("gbnotifyd is not running"))
            await fixture.finish()
        }
    }

    @Test func daemonBinaryRefusesASecondCopyAndABadConfig() async throws {
        try await PrivateSession.run {
            let home = try DaemonHome()
            defer { home.remove() }
            try home.writeConfig("poll-interval = 30\n")
            let readiness = try NotifySocket(path: home.notifySocket)
            let daemon = try RunningDaemon(environment: home.environment)
            #expect(try await readiness.receive() == "READY=1\nSTATUS=Polling 0 accounts")

            let second = try RunningDaemon(environment: home.environment)
            #expect(try await second.waitForExit() == 1)
            #expect(second.lines.value.contains { $0.hasPrefix("<3>another gbnotifyd is already running on this session bus") })

            // What the XDG autostart entry runs: a daemon already there is success, not an error.
            let autostarted = try RunningDaemon(arguments: ["--verbose", "--unless-running"], environment: home.environment)
            #expect(try await autostarted.waitForExit() == 0)
            #expect(autostarted.lines.value.contains("<7>another gbnotifyd already owns org.gitbay.Notify1; nothing to do (--unless-running)"))
            #expect(!autostarted.lines.value.contains { $0.hasPrefix("<3>") || $0.hasPrefix("<4>") })

            // A bad config on reload: reported, and the daemon goes on with the one it has.
            try home.writeConfig("poll-interval = 30\nbackoff-cap = 5\n")
            daemon.send(SIGHUP)
            try await daemon.waitForLine(containing: "config \(home.configFile): line 2: backoff-cap: \"5\" is below the minimum of 30 seconds; keeping the settings in use")
            #expect(try await home.ctl(["status"]).status == 0)

            // The same config at start is fatal, with the same words.
            let refused = try RunningDaemon(environment: home.environment)
            #expect(try await refused.waitForExit() == 1)
            #expect(refused.lines.value == ["<3>config \(home.configFile): line 2: backoff-cap: \"5\" is below the minimum of 30 seconds"])

            daemon.send(SIGINT)
            #expect(try await daemon.waitForExit() == 0)
        }
    }

    /// A FIFO as the config at start (issue 44): refused at once with what it is, not read as
    /// an empty file that would start the daemon on every default.
    @Test func aFIFOAsTheConfigIsAClearErrorAtStart() async throws {
        let home = try DaemonHome()
        defer { home.remove() }
        try home.writeConfig("poll-interval = 40\n")
        unlink(home.configFile)
        try #require(mkfifo(home.configFile, 0o600) == 0)
        let refused = try RunningDaemon(environment: home.environment)
        #expect(try await refused.waitForExit() == 1)
        #expect(refused.lines.value == ["<3>config \(home.configFile): it is a FIFO, not a regular file"])
    }

    /// `--events-fd` names a descriptor the daemon was handed: one it was not is an error at
    /// start, and no number a usage error, rather than events written nowhere.
    @Test func anEventsDescriptorThatIsNotOpenIsRefusedAtStart() async throws {
        let home = try DaemonHome()
        defer { home.remove() }
        try home.writeConfig("poll-interval = 30\n")
        // Nothing past the standard streams reaches a child (`Spawn`): 9 is not open there.
        let closed = try RunningDaemon(argv: [RunningDaemon.executable, "--events-fd", "9"], environment: home.environment)
        #expect(try await closed.waitForExit() == 1)
        #expect(closed.lines.value == ["<3>--events-fd 9: Bad file descriptor"])

        let notANumber = try RunningDaemon(argv: [RunningDaemon.executable, "--events-fd", "three"], environment: home.environment)
        #expect(try await notANumber.waitForExit() == 2)
        #expect(notANumber.lines.value.first == "gbnotifyd: --events-fd takes a descriptor's number")
    }

    @Test func daemonBinaryReloadPicksUpAnAccountAddedWithGbnotifyctl() async throws {
        try await PrivateSession.run {
            let fixture = try await BinaryFixture.start(inKeyring: false)
            let (home, standin) = (fixture.home, fixture.standin)
            try await standin.addNotification(for: "cmc")
            let readiness = try NotifySocket(path: home.notifySocket)
            let daemon = try RunningDaemon(environment: home.environment)
            #expect(try await readiness.receive() == "READY=1\nSTATUS=Polling 0 accounts")

            let added = try await home.ctl(["account", "add", standin.url], input: fixture.token + "\n")
            #expect(added.status == 0, "\(added.stderr)")
            #expect(added.stderr.isEmpty, "the reload was not clean: \(added.stderr)")
            // gbnotifyctl waited for Reload() to finish: the account is there already.
            let reloaded = try JSONDecoder().decode(DaemonStatus.self, from: Data(try await home.ctl(["status", "--json"]).stdout.utf8))
            #expect(reloaded.accounts.map(\.user) == ["cmc"])

            try await daemon.waitForPoll(of: fixture.account, saying: "200 ok, 1 new")
            let polled = try JSONDecoder().decode(DaemonStatus.self, from: Data(try await home.ctl(["status", "--json"]).stdout.utf8))
            let account = try #require(polled.accounts.first)
            #expect(account.state == .ok)
            #expect(account.unread == 1)
            #expect(account.deviceID == Int64(try #require(try await standin.state().devices.first).id))

            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            await fixture.finish()
        }
    }
}

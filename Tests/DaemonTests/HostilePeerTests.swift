import DBus
import Foundation
import Glibc
import PushCore
import StateStore
import TestSupport
import Testing

/// Issue 14's hostile peers against the real gbnotifyd, each test in a session of its own
/// (`PrivateSession`): an instance or a relay sending numbers at Int's edge, a proxy in the
/// environment, a relayed notice and a kill -9, a peer on the session bus sending a huge
/// message, and a process of the same user reading the daemon's memory.
@Suite struct HostilePeerTests {
    static let hugeCount = "9223372036854775807"

    /// Two instances whose `dashboard.unread` is Int.max, and a relay and a local peer whose
    /// payloads carry `aps.badge` Int.max for one account and 1 for the other (as in issue 14,
    /// where either crashed the daemon): each count is clamped where it is parsed, the badge
    /// is the saturated sum of the two, and the payloads' numbers count for nothing.
    @Test func extremeCountsFromTwoInstancesAndARelayCrashNothingAndTheBadgeSaturates() async throws {
        try await PrivateSession.run {
            let relay = try await RelayStandin.start()
            let fixture = try await BinaryFixture.start(config: "poll-interval = 30\nrelay-url = \(relay.url)\n")
            let second = try await Standin.start()
            let secondAccount = try await Self.addAccount(on: second)
            let accounts = [fixture.account, secondAccount]
            // A full first page on each, so each poll asks the dashboard, which answers Int.max.
            for standin in [fixture.standin, second] {
                try await standin.addNotifications(for: "cmc", count: 50)
                try await standin.addFault(.init(
                    .status(200, body: #"{"protocol_version":1,"exit_code":0,"data":{"username":"cmc","unread":\#(Self.hugeCount),"repos":[]}}"#),
                    match: .init(argvPrefix: ["dashboard"]), times: 0))
            }
            let watcher = try await DBusConnection.connect()
            let badges = Observed<[Int64]>([])
            let listening = try await Self.recordBadges(on: watcher, into: badges)
            defer { listening.cancel() }

            let daemon = try RunningDaemon(environment: fixture.home.environment)
            for account in accounts {
                try await daemon.waitForRegistration(of: account)
            }
            let saturated = Int64(2 * OutsideCount.maximum)
            try await badges.wait(for: "the badge of both accounts") { $0.last == saturated }

            // Each account's topic, as `gbnotifyctl account list --json` shows it.
            let listed = try await fixture.home.ctl(["account", "list", "--json"])
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            func topic(of account: Account) throws -> String {
                try #require(rows.first { $0["account"] as? String == account.displayName }?["topic"] as? String)
            }
            let notModified = accounts.map { daemon.polls(of: $0, saying: "304 not modified") }
            for (account, badge) in zip(accounts, [Self.hugeCount, "1"]) {
                let payload = #"{"aps":{"alert":{"title":"x","body":"y"},"badge":\#(badge)},"path":"krz/gitbay/issues/1","instance":"\#(account.instance.url)","user":"cmc"}"#
                let published = try await relay.publish(payload, to: try topic(of: account))
                try await daemon.waitForRelayWake(by: published.id, of: account)
            }
            let delivered = try await fixture.home.ctl(
                ["deliver"], input: #"{"aps":{"badge":\#(Self.hugeCount)},"instance":"\#(secondAccount.instance.url)","user":"cmc"}"#)
            #expect(delivered.status == 0, "\(delivered.stderr)")
            // Each woken poll answered (the inbox is unchanged: 304), and the daemon is still up.
            for (account, earlier) in zip(accounts, notModified) {
                try await daemon.waitForPoll(of: account, saying: "304 not modified", count: earlier + 1)
            }
            #expect(daemon.exit.value == nil)
            let status = try JSONDecoder().decode(DaemonStatus.self, from: Data(try await fixture.home.ctl(["status", "--json"]).stdout.utf8))
            #expect(status.accounts.count == 2)
            #expect(status.accounts.allSatisfy { $0.unread == OutsideCount.maximum }, "\(status.accounts.map(\.unread))")
            #expect(badges.value.allSatisfy { (0...saturated).contains($0) }, "\(badges.value)")
            #expect(badges.value.last == saturated)

            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            await watcher.close()
            await second.stop()
            await relay.stop()
            await fixture.finish()
        }
    }

    /// A proxy in the environment (`http_proxy` and the rest) carries neither the polls of an
    /// instance on this machine nor the relay stream: it would read the bearer token in the
    /// clear. The "proxy" is a gitbay stand-in, which logs whatever reaches it.
    @Test func aProxyInTheEnvironmentCarriesNeitherPollsNorTheRelayStreamToThisMachine() async throws {
        try await PrivateSession.run {
            let proxy = try await Standin.start()
            let relay = try await RelayStandin.start()
            let fixture = try await BinaryFixture.start(config: "poll-interval = 30\nrelay-url = \(relay.url)\n")
            var environment = fixture.home.environment
            for name in ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] {
                environment[name] = proxy.url
            }
            environment["no_proxy"] = nil
            environment["NO_PROXY"] = nil

            let daemon = try RunningDaemon(environment: environment)
            try await daemon.waitForPoll(of: fixture.account)
            try await daemon.waitForRelayConnection()
            #expect(try await relay.waitForSubscriptions(count: 1).count == 1)
            #expect(try await fixture.standin.requests().contains { $0.queryArgv == ["notifications", "list"] })
            #expect(try await proxy.requests().isEmpty, "a request went through the proxy")

            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            await relay.stop()
            await proxy.stop()
            await fixture.finish()
        }
    }

    /// With the relay on, a notice that came while the daemon listened is shown once, by the
    /// poll the relay message woke; a kill -9 after it and a restart do not show it again (the
    /// poll after the restart shows only the row added meanwhile). Before issue 14 the relayed
    /// payload itself was shown and no mark moved, so the first poll after the restart showed it
    /// a second time.
    @Test func aRelayedNoticeIsShownOnceAcrossAKillDashNine() async throws {
        try await PrivateSession.run {
            let server = try await FakeNotificationServer.start(capabilities: ["actions", "body"])
            let relay = try await RelayStandin.start()
            let fixture = try await BinaryFixture.start(config: "poll-interval = 30\nrelay-url = \(relay.url)\n")
            let first = try RunningDaemon(environment: fixture.home.environment)
            try await first.waitForRegistration(of: fixture.account)
            try await first.waitForPoll(of: fixture.account)
            try await first.waitForRelayConnection()

            let relayed = try await fixture.standin.addNotification(for: "cmc", summary: "[relayed]", path: "krz/gitbay/issues/12")
            let topic = try #require(try fixture.savedDeviceToken())
            let message = try await relay.publish(
                #"{"aps":{"alert":{"title":"krz/gitbay","body":"eve [relayed]"}},"path":"krz/gitbay/issues/12","instance":"\#(fixture.account.instance.url)","user":"cmc"}"#,
                to: topic)
            try await first.waitForRelayWake(by: message.id)
            // Logged once the row was handed on and its mark saved.
            try await first.waitForPoll(of: fixture.account, saying: "200 ok, 1 new")
            try await server.shown.wait(for: "the relayed row") { $0.contains { $0.body.contains("[relayed]") } }
            #expect(try fixture.savedHighWater() == Int64(relayed))
            first.send(SIGKILL)
            #expect(try await first.waitForExit() == 128 + SIGKILL)

            try await fixture.standin.addNotification(for: "cmc", summary: "[while down]")
            let second = try RunningDaemon(environment: fixture.home.environment)
            try await second.waitForPoll(of: fixture.account, saying: "200 ok, 1 new")
            try await server.shown.wait(for: "the row added while down") { $0.contains { $0.body.contains("[while down]") } }
            #expect(server.shown.value.count { $0.body.contains("[relayed]") } == 1, "\(server.shown.value.map(\.body))")

            second.send(SIGTERM)
            #expect(try await second.waitForExit() == 0)
            await relay.stop()
            await server.stop()
            await fixture.finish()
        }
    }

    /// A peer on the session bus sends `Deliver` a 16 MiB payload. The daemon's connection takes
    /// at most 64 KiB a message, so libdbus drops it when the header says how long the message
    /// is, not after reading it all: the caller gets no answer (before issue 14 it got "over the
    /// limit of 8192 bytes", the whole message read), the daemon's peak memory does not grow by
    /// anything like the message, and the daemon, connected again, answers the next caller.
    @Test func aDeliverOverSixtyFourKiBIsRefusedBeforeTheDaemonReadsIt() async throws {
        try await PrivateSession.run {
            let home = try DaemonHome()
            defer { home.remove() }
            let daemon = try await Self.startWithoutAccounts(in: home)
            let peakBefore = try Self.peakMemory(of: daemon.pid)
            let peer = try await DBusConnection.connect()
            /// The error `Deliver` answers `payload` with; nil for a success.
            func deliver(_ payload: String) async throws -> DBusError? {
                do {
                    _ = try await peer.call(
                        destination: DaemonInterface.busName, path: DaemonInterface.objectPath,
                        interface: DaemonInterface.interface, member: DaemonInterface.Method.deliver.rawValue, arguments: [.string(payload)])
                    return nil
                } catch let error as DBusError {
                    return error
                }
            }

            let size = 16 << 20
            #expect(try await deliver(String(repeating: "x", count: size))?.name == DBusError.Name.noReply)
            try await daemon.waitForLine(containing: "the session bus dropped gbnotifyd's connection (a peer sent a message over 64 KiB?)")
            let grown = try Self.peakMemory(of: daemon.pid) - peakBefore
            #expect(grown < size / 4, "the daemon's peak memory grew by \(grown) bytes")
            // Back under its name: a payload is answered, refused for naming nobody here.
            let refused = try await deliver(#"{"instance":"https://gitbay.example","user":"cmc"}"#)
            #expect(refused?.name == "org.gitbay.Notify1.Error.PayloadDropped")
            #expect(try await home.ctl(["status"]).status == 0)

            await peer.close()
            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
        }
    }

    /// gbnotifyd holds every account's token in memory: it makes itself undumpable at start, so
    /// a crash writes no core file and no other process of the user (a browser it started, a
    /// compromised tool) may read its memory or its /proc files. Seen from a process of the
    /// same user with no capabilities: a dumpable process's /proc/PID/environ is readable, the
    /// daemon's is not.
    @Test func theDaemonCannotBeDumpedOrReadByOtherProcessesOfTheUser() async throws {
        try await PrivateSession.run {
            let home = try DaemonHome()
            defer { home.remove() }
            // As root, both sides without capabilities, as a user's processes are: root's
            // CAP_SYS_PTRACE would read anything.
            let capless = geteuid() == 0 ? ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--"] : []
            let daemon = try await Self.startWithoutAccounts(in: home, wrapper: capless)
            // A process of the same user that does nothing to itself: dumpable, as every one is.
            // Started by the capless shell that reads it: a bystander started by setpriv could be
            // read while setpriv, with all of root's capabilities, had not yet become it.
            let dumpable = try await Program.run(
                capless + ["sh", "-c", "sleep 60 & cat /proc/$!/environ; status=$?; kill $!; exit $status"],
                environment: home.environment)
            #expect(dumpable.status == 0 && dumpable.stdout.contains("XDG_STATE_HOME="), "\(dumpable.stderr)")
            let daemonEnvironment = try await Program.run(capless + ["cat", "/proc/\(daemon.pid)/environ"], environment: home.environment)
            #expect(daemonEnvironment.status != 0)
            #expect(daemonEnvironment.stderr.contains("Permission denied"), "\(daemonEnvironment.stderr)")

            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
        }
    }

    /// gbnotifyd started in `home` with no account, once it said it is ready.
    static func startWithoutAccounts(in home: DaemonHome, wrapper: [String] = []) async throws -> RunningDaemon {
        try home.writeConfig("poll-interval = 30\n")
        let readiness = try NotifySocket(path: home.notifySocket)
        let daemon = try RunningDaemon(environment: home.environment, wrapper: wrapper)
        #expect(try await readiness.receive() == "READY=1\nSTATUS=Polling 0 accounts")
        return daemon
    }

    /// Stores `cmc`'s new token on `standin` in the session keyring with `secret-tool`, as
    /// `BinaryFixture` does for its own account.
    static func addAccount(on standin: Standin) async throws -> Account {
        try await standin.addUser("cmc")
        let token = try await standin.addToken(for: "cmc")
        let stored = try await Program.run(
            ["secret-tool", "store", "--label=gitbay test", "xdg:schema", "org.gitbay.Account", "instance", standin.url,
             "user", "cmc"],
            environment: ProcessInfo.processInfo.environment, stdin: token)
        try #require(stored.status == 0, "secret-tool store: \(stored.stderr)")
        return try Account(instance: try GitbayInstance(parsing: standin.url), username: "cmc")
    }

    /// Every launcher badge count sent for gbnotify's desktop entry on `connection`'s bus.
    static func recordBadges(on connection: DBusConnection, into badges: Observed<[Int64]>) async throws -> Task<Void, Never> {
        let updates = try await connection.signals(
            matching: DBusMatchRule(interface: "com.canonical.Unity.LauncherEntry", member: "Update"))
        return Task {
            for await update in updates where update.arguments.first?.stringValue == "application://gbnotify.desktop" {
                if let count = update.arguments.last?.vardictValue?["count"]?.int64Value {
                    badges.update { $0.append(count) }
                }
            }
        }
    }

    /// The process's peak resident memory (`VmHWM`), in bytes.
    static func peakMemory(of pid: pid_t) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])) * 1024
    }
}

extension BinaryFixture {
    /// The account's device token (its relay topic) as saved in the state directory; nil
    /// before the daemon made it.
    func savedDeviceToken() throws -> String? {
        let path = home.stateDirectory + "/accounts.json"
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try JSONDecoder().decode(PersistedAccounts.self, from: data).accounts[account.id]?.deviceToken
    }
}

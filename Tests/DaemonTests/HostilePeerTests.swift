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

    /// Calls over the daemon's 64 KiB are refused, and the connection stays: a 12 MiB
    /// `Deliver`, a 200 KiB one, a dbusmenu `GetLayout` with 9,000 property names and an
    /// `AboutToShow` of 150 KiB of the wrong type, each sent to the daemon's unique name by a
    /// peer that then asks for `org.gitbay.Notify1` again and again. The daemon keeps its unique
    /// name and its bus name (libdbus, with a limit of 64 KiB, dropped the connection and the
    /// name went to the peer), the first refusal is logged with the sender once, and the next
    /// caller is answered. (libdbus reads such a message whole before it is refused: the
    /// protocol's 128 MiB at most, and no more than one at a time past its 63 MiB of queued
    /// messages.)
    @Test func callsOverTheDaemonsLimitAreRefusedAndItKeepsItsNames() async throws {
        try await PrivateSession.run {
            let home = try DaemonHome()
            defer { home.remove() }
            let daemon = try await Self.startWithoutAccounts(in: home)
            let peer = try await DBusConnection.connect()
            func owner() async throws -> String? {
                try await peer.call(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                    member: "GetNameOwner", arguments: [.string(DaemonInterface.busName)]).first?.stringValue
            }
            let daemonName = try #require(try await owner())
            /// The error `member` of `interface` at `path` answers; nil for a success.
            func send(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue]) async throws -> DBusError? {
                do {
                    _ = try await peer.call(destination: daemonName, path: path, interface: interface, member: member, arguments: arguments)
                    return nil
                } catch let error as DBusError {
                    return error
                }
            }
            // What a hostile peer does meanwhile: asks for the daemon's name.
            let grab = Task {
                while !Task.isCancelled {
                    _ = try? await peer.call(
                        destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                        member: "RequestName", arguments: [.string(DaemonInterface.busName), .uint32(4)])
                    try? await Task.sleep(for: .milliseconds(5))
                }
            }
            defer { grab.cancel() }

            let deliver = (DaemonInterface.objectPath, DaemonInterface.interface, DaemonInterface.Method.deliver.rawValue)
            let huge = try await send(deliver.0, deliver.1, deliver.2, [.string(String(repeating: "x", count: 12 << 20))])
            #expect(huge?.name == DBusError.Name.limitsExceeded, "\(String(describing: huge))")
            let large = try await send(deliver.0, deliver.1, deliver.2, [.string(String(repeating: "y", count: 200 << 10))])
            #expect(large?.name == DBusError.Name.limitsExceeded, "\(String(describing: large))")
            let names = DBusValue.stringArray((0..<9000).map { "property-name-\($0)" })
            let layout = try await send("/MenuBar", "com.canonical.dbusmenu", "GetLayout", [.int32(0), .int32(-1), names])
            #expect(layout != nil)
            let wrongType = try await send("/MenuBar", "com.canonical.dbusmenu", "AboutToShow", [.string(String(repeating: "z", count: 150 << 10))])
            #expect(wrongType != nil)

            #expect(try await owner() == daemonName)
            try await daemon.waitForLine(containing: "refused Deliver from \(peer.uniqueName): over 84 KiB")
            #expect(daemon.lines(containing: "refused Deliver from").count == 1)
            #expect(daemon.lines(containing: "dropped gbnotifyd's connection").isEmpty)
            let refused = try await send(deliver.0, deliver.1, deliver.2, [.string(#"{"instance":"https://gitbay.example","user":"cmc"}"#)])
            #expect(refused?.name == "org.gitbay.Notify1.Error.PayloadDropped")
            #expect(try await home.ctl(["status"]).status == 0)

            grab.cancel()
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

    /// A crash ends gbnotifyd as the kernel ends a process, with no report of its memory: the
    /// Swift runtime's backtracer, on a standard error that is not a terminal (the journal),
    /// prints the bytes its registers point at, which can be a token. Seen in /proc: the crash
    /// signals are not caught (the runtime catches them in any process that has not let them go).
    @Test func aCrashPrintsNoMemoryOfTheDaemon() async throws {
        try await PrivateSession.run {
            let home = try DaemonHome()
            defer { home.remove() }
            var environment = home.environment
            environment["SWIFT_BACKTRACE"] = nil
            let daemon = try await Self.startWithoutAccounts(in: home, environment: environment)
            let status = try String(contentsOfFile: "/proc/\(daemon.pid)/status", encoding: .utf8)
            let caughtLine = try #require(status.split(separator: "\n").first { $0.hasPrefix("SigCgt:") })
            let caught = try #require(UInt64(caughtLine.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16))
            for crash in [SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGFPE, SIGBUS, SIGSEGV] {
                #expect(caught & (UInt64(1) << (crash - 1)) == 0, "signal \(crash) is caught: \(caughtLine)")
            }
            // What the daemon does catch still is: SIGTERM ends it cleanly.
            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
        }
    }

    /// gbnotifyd started in `home` with no account, once it said it is ready.
    static func startWithoutAccounts(
        in home: DaemonHome, environment: [String: String]? = nil, wrapper: [String] = []
    ) async throws -> RunningDaemon {
        try home.writeConfig("poll-interval = 30\n")
        let readiness = try NotifySocket(path: home.notifySocket)
        let daemon = try RunningDaemon(environment: environment ?? home.environment, wrapper: wrapper)
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

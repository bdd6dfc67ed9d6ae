import DBus
import Foundation
import Glibc
import PushCore
import TestSupport
import Synchronization
import Testing

/// The desktop side fails under the real gbnotifyd, each test in a session of its own (bus,
/// keyring, no notification server unless the test brings one): a notification server without
/// actions, the session bus going away, no Secret Service, a locked keyring, keyring items
/// that are not accounts.
/// One test at a time: each is a test process and a desktop session of its own.
@Suite(.serialized) struct FaultDesktopTests {
    /// Notices still reach a server that shows no actions, offered none (a click then does
    /// whatever that server does).
    @Test func aServerWithoutActionsGetsEveryNoticeAndNoActions() async throws {
        try await PrivateSession.run {
            let server = try await FakeNotificationServer.start(capabilities: ["body"])
            let fixture = try await BinaryFixture.start()
            let daemon = try RunningDaemon(environment: fixture.home.environment)
            try await daemon.waitForPoll(of: fixture.account)

            let id = try await fixture.standin.addNotification(for: "cmc", summary: "[only once]")
            daemon.send(SIGHUP)
            try await daemon.waitForPoll(of: fixture.account, saying: "200 ok, 1 new")
            let shown = try await server.shown.wait(for: "the notice") { $0.contains { $0.body.contains("[only once]") } }
            #expect(shown.allSatisfy { $0.actions.isEmpty }, "\(shown)")
            #expect(shown.count { $0.body.contains("[only once]") } == 1)
            try await daemon.waitForEvent("notice \(id) shown", DaemonEvent.isShown(row: Int64(id), of: fixture.account))

            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            await server.stop()
            await fixture.finish()
        }
    }

    /// The bus goes away under the daemon (killed, as a crashing bus would be): it exits 1, for
    /// systemd's Restart=on-failure, and the daemon started on the new bus shows what came
    /// meanwhile, once, and nothing it had shown before.
    @Test func aSessionBusThatGoesAwayEndsTheDaemonForARestartThatLosesNothing() async throws {
        try await PrivateSession.run {
            let fixture = try await BinaryFixture.start()
            try await fixture.standin.addNotifications(for: "cmc", count: 2)
            let socket = fixture.home.directory.appendingPathComponent("bus").path
            var environment = fixture.home.environment
            environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(socket)"

            let bus = try await SessionBusRelay(at: socket)
            let first = try RunningDaemon(environment: environment)
            try await first.waitForPoll(of: fixture.account, saying: "200 ok, 2 new")
            try await fixture.standin.addNotification(for: "cmc")
            first.send(SIGHUP)
            try await first.waitForPoll(of: fixture.account, saying: "200 ok, 1 new")
            let whileDown = try await fixture.standin.addNotification(for: "cmc")
            await bus.kill()
            #expect(try await first.waitForExit() == 1)
            #expect(first.lines.value.contains {
                $0.hasPrefix("<3>lost the session bus; exiting so that the service manager can start gbnotifyd again")
            }, "\(first.lines.value)")

            let restarted = try await SessionBusRelay(at: socket)
            let second = try RunningDaemon(environment: environment)
            try await second.waitForPoll(of: fixture.account, saying: "200 ok, 1 new")
            #expect(second.lines(containing: " new") == ["<7>\(fixture.name): 200 ok, 1 new"])
            #expect(try fixture.savedHighWater() == Int64(whileDown))
            second.send(SIGTERM)
            #expect(try await second.waitForExit() == 0)
            await restarted.kill()
            await fixture.finish()
        }
    }

    /// The bus drops the daemon's connection while it is still there (the relay the daemon
    /// reaches it through cuts it, as a bus drops a client that broke its rules): the daemon
    /// connects again, with a new unique name and its bus name, and goes on polling with nothing
    /// lost.
    @Test func aConnectionTheBusDropsIsMadeAgainWithItsNameAndPollingGoesOn() async throws {
        try await Self.withADaemonBehindARelay { fixture, relay, daemon, bus in
            let before = try #require(try await bus.nameOwner("org.gitbay.Notify1"))

            try await Self.cutTheDaemonOff(relay, seenFrom: bus)
            relay.resume()
            let line = try await daemon.waitForLine(containing: "the session bus dropped gbnotifyd's connection; connected again as :")
            let after = try #require(try await bus.nameOwner("org.gitbay.Notify1"))
            #expect(after != before)
            #expect(line.last { $0.contains("connected again as") } == "<4>the session bus dropped gbnotifyd's connection; connected again as \(after)")

            // Still serving: gbnotifyctl reaches it by its name, and a new row is polled once.
            let status = try await fixture.home.ctl(["status"])
            #expect(status.status == 0, "\(status.stderr)")
            try await fixture.standin.addNotification(for: "cmc")
            daemon.send(SIGHUP)
            try await daemon.waitForPoll(of: fixture.account, saying: "200 ok, 1 new")
            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            #expect(daemon.lines(containing: " new") == ["<7>\(fixture.name): 200 ok, 2 new", "<7>\(fixture.name): 200 ok, 1 new"])
        }
    }

    /// The bus drops the daemon's connection: the tray item registers again with the tray
    /// host's watcher under its new unique name (a host shows items by their sender), and the
    /// daemon's log says the connection was made again: both hear of the one reconnection.
    @Test func theTrayItemRegistersAgainAfterTheBusDropsTheDaemon() async throws {
        try await Self.withADaemonBehindARelay { _, relay, daemon, bus in
            let registered = Mutex<[String]>([])
            try await bus.export(
                path: "/StatusNotifierWatcher", interface: "org.kde.StatusNotifierWatcher", introspection: "",
                methods: [
                    DBusMethod("RegisterStatusNotifierItem", input: "s") { call in
                        registered.withLock { $0.append(call.sender) }
                        return []
                    }
                ])
            try #require(try await bus.requestName("org.kde.StatusNotifierWatcher"))
            try await waitFor("the tray item to register", timeout: .seconds(30)) { registered.withLock { $0.count } == 1 }
            let before = try #require(try await bus.nameOwner("org.gitbay.Notify1"))
            #expect(registered.withLock { $0 } == [before])

            try await Self.cutTheDaemonOff(relay, seenFrom: bus)
            relay.resume()
            _ = try await daemon.waitForLine(containing: "the session bus dropped gbnotifyd's connection; connected again as :")
            try await waitFor("the tray item to register again", timeout: .seconds(30)) { registered.withLock { $0.count } == 2 }
            let after = try #require(try await bus.nameOwner("org.gitbay.Notify1"))
            #expect(registered.withLock { $0 } == [before, after])
            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
        }
    }

    /// The bus drops the daemon's connection, and another process takes org.gitbay.Notify1
    /// before the daemon is back: the daemon says so, naming that process, and exits, rather
    /// than serve clicks on notifications beside it.
    @Test func anotherProcessHoldingTheNameAfterAReconnectIsSaidClearly() async throws {
        try await Self.withADaemonBehindARelay { _, relay, daemon, peer in
            try await Self.cutTheDaemonOff(relay, seenFrom: peer)
            #expect(try await peer.requestName("org.gitbay.Notify1"))
            relay.resume()
            #expect(try await daemon.waitForExit(timeout: .seconds(30)) == 1)
            #expect(daemon.lines.value.contains("""
                <3>the session bus dropped gbnotifyd's connection, and by the time it was back another process \
                (\(peer.uniqueName)) had taken org.gitbay.Notify1; exiting rather than serve it beside that process
                """), "\(daemon.lines.value)")
            #expect(daemon.lines(containing: "lost the session bus").isEmpty)
            #expect(try await peer.nameOwner("org.gitbay.Notify1") == peer.uniqueName)
        }
    }

    /// Cuts the daemon's connection at the relay, and returns once the bus has freed its name;
    /// the daemon's way back waits at the relay.
    private static func cutTheDaemonOff(_ relay: SessionBusRelay, seenFrom bus: DBusConnection) async throws {
        relay.cutFirstAndHold()
        try await waitFor("the bus to free org.gitbay.Notify1", timeout: .seconds(30)) {
            try await !bus.nameHasOwner("org.gitbay.Notify1")
        }
    }

    /// In a session of the test's own: a daemon that reaches the session bus through a relay,
    /// once it has polled, and a connection of the test's straight to the bus.
    private static func withADaemonBehindARelay(
        test: String = #function, _ body: (BinaryFixture, SessionBusRelay, RunningDaemon, DBusConnection) async throws -> Void
    ) async throws {
        try await PrivateSession.run(test: test) {
            let fixture = try await BinaryFixture.start()
            try await fixture.standin.addNotifications(for: "cmc", count: 2)
            let socket = fixture.home.directory.appendingPathComponent("bus").path
            var environment = fixture.home.environment
            environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(socket)"
            let relay = try await SessionBusRelay(at: socket)
            let daemon = try RunningDaemon(environment: environment)
            try await daemon.waitForPoll(of: fixture.account, saying: "200 ok, 2 new")
            let bus = try await DBusConnection.connect()
            try await body(fixture, relay, daemon, bus)
            await bus.close()
            await relay.kill()
            await fixture.finish()
        }
    }

    /// A peer sends the daemon a message far over anything it takes (the bus itself would carry
    /// a gigabyte): libdbus refuses it before reading it and drops the connection, which is made
    /// again at once, its name kept, and the daemon goes on as before.
    @Test func anOversizedMessageFromAPeerNeitherCrashesTheDaemonNorCostsItsName() async throws {
        try await PrivateSession.run {
            let fixture = try await BinaryFixture.start(config: "poll-interval = 3600\n")
            let daemon = try RunningDaemon(environment: fixture.home.environment)
            try await daemon.waitForPoll(of: fixture.account)

            let call = try await Program.run(
                ["gdbus", "call", "--session", "--dest", "org.gitbay.Notify1", "--object-path", "/org/gitbay/Notify1",
                 "--method", "org.gitbay.Notify1.Deliver", String(repeating: "x", count: 100_000)],
                environment: fixture.home.environment)
            #expect(call.status != 0)
            #expect(call.stderr.contains("org.freedesktop.DBus.Error.LimitsExceeded"), "\(call.stderr)")
            try await daemon.waitForLine(containing: "<4>refused Deliver from")
            #expect(daemon.lines(containing: "dropped gbnotifyd's connection").isEmpty)

            // Still there, under its name, and a wake-up still wakes.
            let woken = try await fixture.home.ctl(["deliver"], input: #"{"instance": "\#(fixture.standin.url)", "user": "cmc"}"#)
            #expect(woken.status == 0, "\(woken.stderr)")
            try await daemon.waitForPoll(of: fixture.account, saying: "304 not modified")
            #expect(try await fixture.home.ctl(["status"]).status == 0)
            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            await fixture.finish()
        }
    }

    /// No Secret Service on the bus: the daemon says why, stays up and answers on the bus.
    @Test func withoutASecretServiceTheDaemonStaysUpAndSaysWhy() async throws {
        try await PrivateSession.run {
            let home = try DaemonHome()
            try home.writeConfig("poll-interval = 30\n")
            let socket = home.directory.appendingPathComponent("bus").path
            let bus = try await PrivateBus(at: socket)
            var environment = home.environment
            environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address

            let readiness = try NotifySocket(path: home.notifySocket)
            let daemon = try RunningDaemon(environment: environment)
            #expect(try await readiness.receive() == "READY=1\nSTATUS=Polling 0 accounts")
            try await daemon.waitForLine(containing: "<4>waiting for the keyring: no Secret Service is running")
            let status = try await Program.run([Program.built("gbnotifyctl"), "status"], environment: environment)
            #expect(status.status == 0, "\(status.stderr)")
            // Not "no accounts": they could not be read.
            #expect(status.stdout.contains("waiting for the keyring: no Secret Service is running"), "\(status.stdout)")
            #expect(!status.stdout.contains("No accounts. Add one"))

            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            await bus.stop()
            home.remove()
        }
    }

    /// A locked keyring that nobody can unlock here (no prompt in a headless session): the
    /// daemon says so, stays up, and polls nothing it cannot read the token of.
    @Test func aLockedKeyringIsReportedAndTheDaemonStaysUp() async throws {
        try await PrivateSession.run {
            let fixture = try await BinaryFixture.start()
            let locked = try await Program.run(
                ["gdbus", "call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", "/org/freedesktop/secrets",
                 "--method", "org.freedesktop.Secret.Service.Lock", "['/org/freedesktop/secrets/collection/login']"],
                environment: ProcessInfo.processInfo.environment)
            try #require(locked.status == 0, "locking the keyring: \(locked.stderr)")

            let readiness = try NotifySocket(path: fixture.home.notifySocket)
            let daemon = try RunningDaemon(environment: fixture.home.environment)
            #expect(try await readiness.receive() == "READY=1\nSTATUS=Polling 0 accounts")
            try await daemon.waitForEvent("a wait for the keyring") { if case .keyringWaiting = $0 { true } else { false } }
            #expect(try await fixture.standin.requests().isEmpty)
            let status = try await fixture.home.ctl(["status"])
            #expect(status.status == 0)
            #expect(status.stdout.contains("waiting for the keyring"), "\(status.stdout)")

            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            #expect(!daemon.lines.value.contains { $0.contains(fixture.token) })
            await fixture.finish()
        }
    }

    /// Items of the account schema that are no accounts: each skipped with a warning that
    /// names it (never its secret), the real account polled as usual.
    @Test func keyringItemsWithGarbageAttributesAreSkippedAndTheRealAccountPolled() async throws {
        try await PrivateSession.run {
            let fixture = try await BinaryFixture.start()
            try await fixture.standin.addNotification(for: "cmc")
            // gnome-keyring replaces an item whose attributes include all of a new one's, so
            // the items with fewer attributes come first and share no attribute set with the
            // account's.
            let garbage: [[String]] = [
                ["user", "someone"],
                ["instance", "not a url at all", "user", "cmc"],
                ["instance", "ftp://gitbay.example", "user", "cmc"],
                ["instance", "https://gitbay.example"],
                ["instance", "https://gitbay.example", "user", "../../etc/passwd"],
                ["instance", "https://gitbay.example", "user", String(repeating: "x", count: 5000)],
            ]
            for attributes in garbage {
                let stored = try await Program.run(
                    ["secret-tool", "store", "--label=garbage", "xdg:schema", "org.gitbay.Account"] + attributes,
                    environment: ProcessInfo.processInfo.environment, stdin: "gb_" + String(repeating: "0", count: 40))
                try #require(stored.status == 0, "secret-tool store: \(stored.stderr)")
            }

            let readiness = try NotifySocket(path: fixture.home.notifySocket)
            let daemon = try RunningDaemon(environment: fixture.home.environment)
            #expect(try await readiness.receive() == "READY=1\nSTATUS=Polling 1 account")
            try await daemon.waitForPoll(of: fixture.account, saying: "200 ok, 1 new")
            let warnings = daemon.lines.value.filter { $0.hasPrefix("<4>") && $0.contains("garbage") }
            #expect(warnings.count == garbage.count, "\(daemon.lines.value)")
            #expect(!daemon.lines.value.contains { $0.contains(String(repeating: "0", count: 40)) })
            #expect(warnings.allSatisfy { $0.utf8.count < 2000 }, "a warning carried the whole attribute")

            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            await fixture.finish()
        }
    }
}

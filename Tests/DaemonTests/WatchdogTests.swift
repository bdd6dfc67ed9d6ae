import Daemon
import Foundation
import Glibc
import MainLoop
import PushCore
import TestSupport
import Testing

/// systemd's watchdog (issue 44): pings from the main loop, riding on its wake-ups and from a
/// timer of its own at half of `WATCHDOG_USEC` when none came, none unless asked, none from a
/// stalled loop, and the unit's `WatchdogSec=` restarting a daemon whose loop stalled, with
/// nothing lost or shown twice.
@Suite struct WatchdogTests {
    private static func socketPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("watchdog-\(UUID().uuidString)").path
    }

    /// An idle loop: nothing wakes it, so the watchdog's own timer pings, every half interval.
    @Test func anIdleLoopIsPingedFromTheWatchdogsTimerEveryHalfIntervalUntilStopped() async throws {
        let path = Self.socketPath()
        let socket = try NotifySocket(path: path)
        let clock = ManualClock()
        let watchdog = try #require(
            Watchdog(environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "7000000"], timeline: Timeline(clock), ridingOn: nil))
        #expect(watchdog.period == .milliseconds(3500))

        watchdog.start()
        #expect(try await socket.receive() == "WATCHDOG=1")
        for _ in 1...3 {
            try await clock.waitForSleepers(1)
            // Not a moment early: the next ping waits out the whole period.
            clock.advance(by: .milliseconds(3499))
            #expect(clock.pendingSleeps == 1)
            clock.advance(by: .milliseconds(1))
            #expect(try await socket.receive() == "WATCHDOG=1")
        }
        try await clock.waitForSleepers(1)
        watchdog.stop()
        try await clock.waitUntilNothingSleeps()
        #expect(await socket.datagram(within: .zero) == nil)
    }

    /// A loop woken more often than the interval: each wake-up a quarter interval or more after
    /// the last ping carries the next, and puts the watchdog's own timer off, so the timer never
    /// comes due; once the wake-ups stop, it pings half an interval after the last.
    @Test func wakeUpsCarryThePingsAndTheWatchdogsTimerNeverFiresWhileTheyCome() async throws {
        let path = Self.socketPath()
        let socket = try NotifySocket(path: path)
        let clock = ManualClock()
        let watchdog = try #require(
            Watchdog(environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "6000000"], timeline: Timeline(clock), ridingOn: nil))
        #expect(watchdog.period == .seconds(3) && watchdog.spacing == .milliseconds(1500))

        watchdog.start()
        #expect(try await socket.receive() == "WATCHDOG=1")
        var last = Duration.zero
        try await clock.waitForSleeps(endingAt: [last + watchdog.period])
        var pings = 1
        // A wake-up every 1.1 s for 22 s: seven periods, and never 3 s without a ping.
        for _ in 1...20 {
            clock.advance(by: .milliseconds(1100))
            // The timer was not due: had it been, the advance would have ended its sleep.
            #expect(clock.pendingSleeps == 1)
            watchdog.loopWoke()
            let now = clock.now.offset
            if now - last >= watchdog.spacing {
                #expect(try await socket.receive() == "WATCHDOG=1")
                pings += 1
                last = now
            }
            // The timer is where the last ping put it: half an interval after it.
            try await clock.waitForSleeps(endingAt: [last + watchdog.period])
        }
        #expect(pings == 11)
        #expect(await socket.datagram(within: .zero) == nil)

        // The wake-ups stop: the timer pings, half an interval after the last ping.
        clock.advance(by: last + watchdog.period - clock.now.offset)
        #expect(try await socket.receive() == "WATCHDOG=1")
        try await clock.waitForSleeps(endingAt: [last + watchdog.period * 2])
        watchdog.stop()
        try await clock.waitUntilNothingSleeps()
        #expect(await socket.datagram(within: .zero) == nil)
    }

    @Test(arguments: [
        ["WATCHDOG_USEC": "4000000"],  // no NOTIFY_SOCKET: nobody to ping
        ["NOTIFY_SOCKET": "/run/x"],  // not asked for
        ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "0"],
        ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "-5"],
        ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "4s"],
        ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "4000000", "WATCHDOG_PID": "1"],  // another process's
        ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "4000000", "WATCHDOG_PID": "me"],
    ])
    func noPingsUnlessThisProcessIsAskedFor(environment: [String: String]) {
        #expect(Watchdog(environment: environment) == nil)
    }

    @Test func thisProcessNamedInWatchdogPIDIsPinged() throws {
        let watchdog = try #require(
            Watchdog(environment: ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "4000000", "WATCHDOG_PID": "\(getpid())"]))
        #expect(watchdog.period == .seconds(2))
    }

    /// The real daemon, with a readiness socket of the test's own: pings come while the loop
    /// runs and stop when it stalls (the debug hook blocks the loop's thread, as a C call that
    /// never returns would), though the process lives on.
    @Test func theDaemonsPingsStopWhenItsLoopStalls() async throws {
        try await PrivateSession.run {
            let home = try DaemonHome()
            defer { home.remove() }
            try home.writeConfig("poll-interval = 30\n")
            let stallFile = home.directory.appendingPathComponent("stall").path
            let readiness = try NotifySocket(path: home.notifySocket)
            var environment = home.environment
            environment["WATCHDOG_USEC"] = "600000"
            environment["GBNOTIFYD_TEST_STALL_FILE"] = stallFile
            let daemon = try RunningDaemon(environment: environment)
            defer { daemon.send(SIGKILL) }
            var heard: [String] = []
            while !heard.contains(where: { $0.hasPrefix("READY=1") }) { heard.append(try await readiness.receive()) }
            #expect(heard.first == "WATCHDOG=1")
            // Pings go on once ready: three more.
            for _ in 1...3 { #expect(try await readiness.receive() == "WATCHDOG=1") }

            #expect(FileManager.default.createFile(atPath: stallFile, contents: nil))
            try await waitFor("the daemon's loop to take the stall file", timeout: .seconds(30)) {
                !FileManager.default.fileExists(atPath: stallFile)
            }
            // What was sent before the stall; then nothing for ten periods.
            while await readiness.datagram(within: .zero) != nil {}
            #expect(await readiness.datagram(within: .seconds(3)) == nil)
            #expect(daemon.exit.value == nil)
        }
    }

    /// The shipped unit under a real systemd user manager (with a shorter `WatchdogSec=` and
    /// `RestartSec=` in a drop-in): the daemon polls, its loop stalls, systemd kills it for the
    /// missed pings and starts it again, and the new one shows what came meanwhile, once, and
    /// nothing from before again.
    @Test func systemdRestartsADaemonWhoseLoopStalledAndNothingIsLostOrShownTwice() async throws {
        try await PrivateSession.run {
            let fixture = try await BinaryFixture.start(config: "poll-interval = 30\nlog-level = debug\n")
            let (home, standin, name) = (fixture.home, fixture.standin, fixture.name)
            try await standin.addNotifications(for: "cmc", count: 2)
            let systemd = try await UserSystemd()
            defer { systemd.stop() }
            let log = home.directory.appendingPathComponent("daemon.log").path
            let stallFile = home.directory.appendingPathComponent("stall").path
            let endings = home.directory.appendingPathComponent("endings").path
            try installUnit(in: systemd, environment: home.environment, stallFile: stallFile, log: log, endings: endings)

            let started = try await systemd.systemctl(["start", "gbnotifyd.service"])
            #expect(started.status == 0, "\(started.stderr)")
            let first = try await systemd.property("MainPID", of: "gbnotifyd.service")
            // The drop-in sets SWIFT_BACKTRACE, as a developer's manager environment may: the
            // unit takes it out, so the runtime's backtracer, which would print the memory at
            // the registers into the journal, catches no crash signal.
            let procStatus = try String(contentsOfFile: "/proc/\(first)/status", encoding: .utf8)
            let caughtLine = try #require(procStatus.split(separator: "\n").first { $0.hasPrefix("SigCgt:") })
            let caught = try #require(UInt64(caughtLine.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16))
            #expect(caught & (UInt64(1) << (SIGSEGV - 1)) == 0, "SIGSEGV is caught: \(caughtLine)")
            try await waitFor("the first poll", timeout: .seconds(60)) { Self.lines(of: log, saying: "\(name): 200 ok, 2 new").count == 1 }

            #expect(FileManager.default.createFile(atPath: stallFile, contents: nil))
            try await waitFor("the daemon's loop to take the stall file", timeout: .seconds(60)) {
                !FileManager.default.fileExists(atPath: stallFile)
            }
            let whileStalled = try await standin.addNotifications(for: "cmc", count: 5)
            try await waitFor("systemd to start gbnotifyd again", timeout: .seconds(90)) {
                let restarts = try await systemd.property("NRestarts", of: "gbnotifyd.service")
                let state = try await systemd.property("ActiveState", of: "gbnotifyd.service")
                return restarts == "1" && state == "active"
            }
            #expect(try await systemd.property("MainPID", of: "gbnotifyd.service") != first)
            // Why the first one ended, as systemd told ExecStopPost=: the watchdog, by SIGKILL.
            #expect(try String(contentsOfFile: endings, encoding: .utf8) == "watchdog killed KILL\n")
            try await waitFor("the new daemon's first poll", timeout: .seconds(60)) {
                Self.lines(of: log, saying: "\(name): 200 ok, 5 new").count == 1
            }
            #expect(try await systemd.systemctl(["reload", "gbnotifyd.service"]).status == 0)
            try await waitFor("a poll after the reload", timeout: .seconds(60)) {
                Self.lines(of: log, saying: "\(name): 304 not modified").count == 1
            }
            #expect(Self.lines(of: log, saying: "\(name): 200 ok") == ["<7>\(name): 200 ok, 2 new", "<7>\(name): 200 ok, 5 new"])
            #expect(try fixture.savedHighWater() == Int64(whileStalled.last!))
            let status = try JSONDecoder().decode(DaemonStatus.self, from: Data(try await home.ctl(["status", "--json"]).stdout.utf8))
            #expect(status.accounts.first?.unread == 7)

            #expect(try await systemd.systemctl(["stop", "gbnotifyd.service"]).status == 0)
            #expect(try String(contentsOfFile: endings, encoding: .utf8) == "watchdog killed KILL\nsuccess exited 0\n")
            await fixture.finish()
        }
    }

    /// The unit as `make install` writes it, and a drop-in that shortens its times, gives it the
    /// test's session (and a SWIFT_BACKTRACE the unit must take out), and writes why each run ended (`SERVICE_RESULT`, `EXIT_CODE`,
    /// `EXIT_STATUS`) to `endings`.
    private func installUnit(
        in systemd: UserSystemd, environment: [String: String], stallFile: String, log: String, endings: String
    ) throws {
        let unit = try String(contentsOfFile: "\(Standin.packageRoot)/systemd-user/gbnotifyd.service", encoding: .utf8)
        let directory = URL(fileURLWithPath: RunningDaemon.executable).deletingLastPathComponent().path
        try unit.replacingOccurrences(of: "@bindir@", with: directory)
            .write(toFile: systemd.unitDirectory + "/gbnotifyd.service", atomically: true, encoding: .utf8)
        var passed = environment.filter { ["DBUS_SESSION_BUS_ADDRESS", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "HOME"].contains($0.key) }
        passed.merge(SystemBusStandin.noSystemBus) { $1 }
        passed["GBNOTIFYD_TEST_STALL_FILE"] = stallFile
        passed["SWIFT_BACKTRACE"] = "enable=yes,interactive=no"
        let dropIn = systemd.unitDirectory + "/gbnotifyd.service.d"
        try FileManager.default.createDirectory(atPath: dropIn, withIntermediateDirectories: true)
        let settings = ["[Service]", "WatchdogSec=10s", "RestartSec=1s", "StandardOutput=append:\(log)", "StandardError=append:\(log)",
                        "ExecStopPost=/bin/sh -c 'echo \"$$SERVICE_RESULT $$EXIT_CODE $$EXIT_STATUS\" >> \(endings)'"]
            + passed.sorted { $0.key < $1.key }.map { "Environment=\"\($0.key)=\($0.value)\"" }
        try (settings.joined(separator: "\n") + "\n").write(toFile: dropIn + "/test.conf", atomically: true, encoding: .utf8)
    }

    private static func lines(of log: String, saying words: String) -> [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init).filter { $0.contains(words) }
    }
}

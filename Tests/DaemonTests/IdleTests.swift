import DesktopSuites
import Foundation
import Glibc
import PushCore
import TestSupport
import Testing

/// gbnotifyd sleeps between polls: no timer of its own, of GLib's (libsecret's main context,
/// GDBus's threads), of libcurl's or of the Swift runtime wakes it. The real binary, after a
/// notice shown and clicked (so the notification server's calls, libsecret and the click's
/// launch have all run), with no poll due, no relay, and a system bus with logind and
/// NetworkManager to watch, over 30 s: a timer of any period up to that wakes it at least once
/// in the window.
@Suite(.desktop(.dunst, installing: .gbnotify))
struct IdleTests {
    /// The voluntary and involuntary context switches of each thread of `pid`, by thread id.
    static func contextSwitches(of pid: pid_t) throws -> [String: Int] {
        try threads(of: pid).mapValues(\.switches)
    }

    /// Each thread of `pid` by id and name: its context switches so far, and whether it sleeps
    /// waiting for an event (state S), rather than running or waiting to (R) or blocked in the
    /// kernel, on a disk write say (D), where it would run again without any new event.
    static func threads(of pid: pid_t) throws -> [String: (switches: Int, isSleeping: Bool)] {
        var threads: [String: (switches: Int, isSleeping: Bool)] = [:]
        for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
            // A thread that ended since the listing (the state writer's, after its last write).
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { continue }
            let name = status.firstMatch(of: /Name:\s*(\S+)/).map { String($0.1) } ?? "?"
            let switches = status.matches(of: /ctxt_switches:\s*(\d+)/).compactMap { Int($0.1) }.reduce(0, +)
            threads["\(task) \(name)"] = (switches, status.contains(/State:\s*S/))
        }
        return threads
    }

    /// Returns once every thread of `pid` sleeps waiting for an event and none has run for
    /// `quiet` (whatever the last events set going, a state file written, a child reaped, has
    /// ended), checking every 100 ms for at most 10 s.
    static func waitUntilQuiet(_ pid: pid_t, for quiet: Duration = .milliseconds(500)) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        var last = try contextSwitches(of: pid)
        var since = clock.now
        while true {
            let sample = try threads(of: pid)
            let now = sample.mapValues(\.switches)
            if now != last || sample.values.contains(where: { !$0.isSleeping }) {
                last = now
                since = clock.now
            } else if clock.now - since >= quiet {
                return
            }
            try #require(clock.now < deadline, "gbnotifyd did not go quiet within 10 s: \(sample)")
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    static let users = ["cmc", "alba", "noor"]

    @Test func anIdleDaemonIsNotWokenIn30Seconds() async throws {
        let systemBus = try await SystemBusStandin.start()
        do {
            try await DaemonOnDesktop.run(users: Self.users, systemBus: systemBus.environment([:])) { desktop in
                try await Self.idleAfterAClick(desktop)
            }
        } catch {
            await systemBus.stop()
            throw error
        }
        await systemBus.stop()
    }

    static func idleAfterAClick(_ desktop: DaemonOnDesktop) async throws {
        let sinceShow = desktop.daemon.events.value.count
        let shown = try await desktop.show()
        // `show` polls with a reload, which polls every account, not all at the same moment: the
        // others' polls must be over before the window (seen: the third account's 304 inside it,
        // on a loaded machine, after a quiet half second).
        let others = try Self.users.dropFirst().map { try Account(instance: desktop.account.instance, username: $0) }
        try await desktop.daemon.events.wait(for: "every account's poll after the reload") { events in
            let since = events.dropFirst(sinceShow)
            return others.allSatisfy { account in since.contains(where: DaemonEvent.isPoll(of: account, saying: "304 not modified")) }
        }
        _ = try await desktop.session.run(["dunstctl", "action", "0"])
        #expect(try await desktop.browser.nextLaunch().arguments == [desktop.url("krz/gitbay/issues/12")])
        // dunst leaves a clicked notification up until it expires: dismissed, as a user would.
        _ = try await desktop.session.run(["dunstctl", "close-all"])
        try await desktop.daemon.waitForServerClosing(shown.notification)

        let pid = desktop.daemon.pid
        try await waitUntilQuiet(pid)
        let before = try contextSwitches(of: pid)
        let logged = desktop.daemon.lines.value.count
        try await Task.sleep(for: .seconds(30))
        let after = try contextSwitches(of: pid)
        let woken = after.filter { before[$0.key] != $0.value }.map { "\($0.key): \($0.value - (before[$0.key] ?? 0))" }
        #expect(woken.isEmpty, """
            threads that ran while idle: \(woken.sorted()); before: \(before.sorted { $0.key < $1.key }); \
            logged meanwhile: \(desktop.daemon.lines.value.dropFirst(logged))
            """)
        #expect(Set(after.keys) == Set(before.keys), "threads came or went while idle")
    }
}

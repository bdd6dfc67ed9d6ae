import DBus
import DesktopSuites
import Foundation
import Glibc
import PushCore
import TestSupport
import Testing

/// The real gbnotifyd on GNOME Shell 48 (Debian 13's, from the root scripts/debian13-root
/// builds), read through the shell's own code (`GnomeShell`), with the default config: what it
/// does there follows what 48 does (`ServerQuirks`): 10 kept open, not 43's 3, and nothing taken
/// over after a kill -9, since 48 withdrew it all as the daemon left the bus.
/// gbnotify is installed in this session, its command on PATH, so that the shell resolves its
/// `desktop-entry` to the application, as on a user's machine: 48 withdraws only an
/// application's notifications as their sender leaves, not those of a sender it resolved to none.
@Suite(.serialized, .desktop(.gnomeShell, release: .debian13, installing: .gbnotifyWithItsCommand))
struct GnomeShell48DaemonTests {
    let session: DesktopSession
    let gnome: GnomeShell

    init() throws {
        session = try SharedDesktop.session()
        gnome = GnomeShell(session)
    }

    /// Adds a row in each of `repos` (krz/rN) and polls once; returns once the poll said so.
    static func poll(_ repos: ClosedRange<Int>, on desktop: DaemonOnDesktop, count: Int) async throws {
        for repo in repos {
            try await desktop.standin.addNotification(for: "cmc", repo: "krz/r\(repo)", path: "krz/r\(repo)/issues/1")
        }
        desktop.poll()
        try await desktop.daemon.waitForPoll(of: desktop.account, saying: "200 ok, \(repos.count) new", count: count)
    }

    /// What GNOME holds of ours once it stands for `count` unread notices.
    static func held(standingFor count: Int, in gnome: GnomeShell) async throws -> [ShownNotification] {
        ShownNotification.ours(in: try await gnome.waitForNotifications { all in
            ShownNotification.ours(in: all).reduce(0) { $0 + $1.notices() } == count
        })
    }

    @Test func eightRepositoriesStayEightNotificationsAndMoreFoldOnlyPastTheShellsTen() async throws {
        try await DaemonOnDesktop.run { desktop in
            // At most 3 a poll: more in one poll are summed up by the burst rule, whatever the server.
            try await Self.poll(1...3, on: desktop, count: 1)
            try await Self.poll(4...6, on: desktop, count: 2)
            try await Self.poll(7...8, on: desktop, count: 1)
            let eight = try await Self.held(standingFor: 8, in: gnome)
            #expect(eight.count == 8, "\(eight)")
            #expect(eight.allSatisfy { $0.notices() == 1 && !$0.title.contains("unread") }, "\(eight)")

            try await Self.poll(9...11, on: desktop, count: 2)
            let eleven = try await Self.held(standingFor: 11, in: gnome)
            #expect(eleven.count == 10, "\(eleven)")
            #expect(eleven.contains { $0.title.hasPrefix("2 more unread on ") }, "\(eleven)")
            // Folded by gbnotifyd, never evicted by the shell.
            #expect(desktop.daemon.lines(containing: "(reason 1)").isEmpty)
        }
    }

    @Test func afterAKillDashNineNothingIsTakenOverAndWhatIsUnreadShowsAsAfterAFirstStart() async throws {
        let monitor = try await BusMonitor(on: session)
        do {
            try await DaemonOnDesktop.run { desktop in
                try await Self.poll(1...3, on: desktop, count: 1)
                let before = try await Self.held(standingFor: 3, in: gnome)
                let oldIDs = Set(before.map(\.id))
                #expect(oldIDs.count == 3)

                desktop.daemon.send(SIGKILL)
                #expect(try await desktop.daemon.waitForExit() == 128 + SIGKILL)
                // GNOME 48 withdraws an application's notifications as its sender leaves the bus.
                try await gnome.waitForNotifications { ShownNotification.ours(in: $0).isEmpty }

                let restarted = try desktop.start()
                let after = try await Self.held(standingFor: 3, in: gnome)
                #expect(after.count == 1 && after[0].title.hasPrefix("3 unread on "), "\(after)")
                #expect(!restarted.lines(containing: "none of the 3 notifications an earlier gbnotifyd left open is taken over").isEmpty)
                #expect(restarted.lines(containing: "took over").isEmpty)

                // No id of the dead daemon's named again: nothing replaced, withdrawn or closed.
                let named = restarted.events.value.compactMap { event -> UInt32? in
                    switch event {
                    case .shown(_, _, _, let replacing): replacing
                    case .withdrawn(let id): id
                    default: nil
                    }
                }
                #expect(named.allSatisfy { !oldIDs.contains($0) }, "\(named)")
                let closes = monitor.messages.filter { $0.member == "CloseNotification" }
                #expect(closes.allSatisfy { !oldIDs.contains($0.firstUInt32 ?? 0) }, "\(closes)")
            }
        } catch {
            await monitor.stop()
            throw error
        }
        await monitor.stop()
    }
}

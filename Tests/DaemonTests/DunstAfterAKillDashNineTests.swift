import DBus
import DesktopSuites
import Foundation
import Glibc
import PushCore
import TestSupport
import Testing

/// What dunst (Debian 12's 1.9) does with gbnotifyd's notifications after a kill -9, beside
/// what GNOME Shell and Plasma do (their suites' kill -9 tests): it keeps them on screen, and a
/// Notify of the restarted daemon replacing one takes it over, but dunst sends ActionInvoked and
/// NotificationClosed to the sender of a notification's last Notify alone, never broadcast. So
/// a click on one the dead daemon showed goes to a bus name nobody owns any more: no restarted
/// gbnotifyd can hear it, nor that it closed.
@Suite(.serialized, .desktop(.dunst))
struct DunstAfterAKillDashNineTests {
    let checks = DunstAfterAKillDashNineChecks()

    @Test func aClickOnWhatTheDeadDaemonShowedReachesNobodyAndOnWhatTheNewOneReplacedReachesIt() async throws {
        try await checks.aClickOnWhatTheDeadDaemonShowedReachesNobodyAndOnWhatTheNewOneReplacedReachesIt()
    }

    @Test func aForgedGnomeShellClickOnAnAdoptedNotificationOpensNothing() async throws {
        try await checks.aForgedGnomeShellClickOnAnAdoptedNotificationOpensNothing()
    }
}

/// The same on dunst 1.12 (Debian 13's, from the root scripts/debian13-root builds), the session's
/// bus, dunst and the test's dunstctl all the root's: it does as 1.9 does.
@Suite(.serialized, .desktop(.dunst, release: .debian13))
struct Dunst112AfterAKillDashNineTests {
    let checks = DunstAfterAKillDashNineChecks()

    /// The server these checks see is the root's dunst, not the host's 1.9.
    @Test func theServerIsDunst112() async throws {
        let reply = try await SharedDesktop.session().withConnection { connection in
            try await connection.call(
                destination: NotificationsInterface.name, path: NotificationsInterface.path,
                interface: NotificationsInterface.name, member: "GetServerInformation")
        }
        #expect(reply.first?.stringValue == "dunst")
        #expect(reply.dropFirst(2).first?.stringValue?.hasPrefix("1.12") == true, "\(reply)")
    }

    @Test func aClickOnWhatTheDeadDaemonShowedReachesNobodyAndOnWhatTheNewOneReplacedReachesIt() async throws {
        try await checks.aClickOnWhatTheDeadDaemonShowedReachesNobodyAndOnWhatTheNewOneReplacedReachesIt()
    }

    @Test func aForgedGnomeShellClickOnAnAdoptedNotificationOpensNothing() async throws {
        try await checks.aForgedGnomeShellClickOnAnAdoptedNotificationOpensNothing()
    }
}

/// The checks of DunstAfterAKillDashNineTests and Dunst112AfterAKillDashNineTests, each on its
/// suite's session.
struct DunstAfterAKillDashNineChecks {
    func aClickOnWhatTheDeadDaemonShowedReachesNobodyAndOnWhatTheNewOneReplacedReachesIt() async throws {
        let session = try SharedDesktop.session()
        let monitor = try await BusMonitor(on: session)
        do {
            try await DaemonOnDesktop.run { desktop in
                let (_, kept) = try await desktop.show(repo: "krz/a", number: 1)
                let (_, replaced) = try await desktop.show(repo: "krz/b", number: 1)
                try await desktop.daemon.waitForPoll(of: desktop.account, saying: "200 ok, 1 new", count: 2)
                // No closure inside a macro's argument here: Swift 6.3 gave one the same name as a
                // closure outside (the filter below ran this lookup's `== "Notify"`).
                let dead = try #require(monitor.messages.named("Notify").first?.sender)
                desktop.daemon.send(SIGKILL)
                #expect(try await desktop.daemon.waitForExit() == 128 + SIGKILL)

                let added = try await desktop.standin.addNotification(for: "cmc", repo: "krz/b", path: "krz/b/issues/2")
                try desktop.start()
                try await desktop.daemon.waitForAdoption(of: 2)
                #expect(try await desktop.shownAs(row: added) == replaced)
                // The dead daemon's two Notifys, then the restarted one's replacement, once the
                // monitor has printed it.
                let notifies = try await monitor.wait(for: "the replacement's Notify") { $0.named("Notify").count == 3 }
                let restarted = try #require(notifies.named("Notify").last?.sender)
                #expect(restarted != dead)

                // A click on each: dunstctl clicks the notification at the top and leaves it
                // there (dunst 1.9 closes it only when it expires, 10 s after it was shown, and
                // its dunstctl reaches no other position), so the test closes it before the next.
                for clicks in 1...2 {
                    let clicked = try await session.run(session.inDesktop(["dunstctl", "action", "0"]))
                    try #require(clicked.status == 0, "dunstctl: \(clicked.stderr)")
                    let messages = try await monitor.wait(for: "click \(clicks)") { $0.named("ActionInvoked").count == clicks }
                    let id = try #require(messages.named("ActionInvoked").last?.firstUInt32)
                    try await session.withConnection { connection in
                        _ = try await connection.call(
                            destination: NotificationsInterface.name, path: NotificationsInterface.path,
                            interface: NotificationsInterface.name, member: "CloseNotification", arguments: [.uint32(id)])
                    }
                }
                let invoked = monitor.messages.named("ActionInvoked")
                let onKept = invoked.about(kept)
                let onReplaced = invoked.about(replaced)
                #expect(onKept.count == 1, "\(invoked)")
                #expect(onReplaced.count == 1, "\(invoked)")
                #expect(onKept.first?.destination == dead)
                #expect(onReplaced.first?.destination == restarted)

                // The new daemon opened the one it replaced, and never heard of the other.
                #expect(try await desktop.browser.nextLaunch().arguments == [desktop.url("notifications")])
                try await desktop.daemon.waitForClick(NotificationContent.openAction, on: replaced)
                #expect(desktop.daemon.lines(containing: "notification \(kept) was").isEmpty)
            }
        } catch {
            await monitor.stop()
            throw error
        }
        await monitor.stop()
    }

    /// A peer that owns `org.gnome.Shell` while dunst serves cannot click for the user: GNOME
    /// Shell's broadcast of a click, the only one a notification adopted after a kill -9 gets
    /// there, counts only while GNOME Shell is the notification server (issue 24, item 5).
    func aForgedGnomeShellClickOnAnAdoptedNotificationOpensNothing() async throws {
        let session = try SharedDesktop.session()
        try await DaemonOnDesktop.run { desktop in
            let (_, adopted) = try await desktop.show(repo: "krz/a", number: 1)
            // Its poll is done, what is on screen saved: the next daemon takes it over.
            try await desktop.daemon.waitForPoll(of: desktop.account, saying: "200 ok, 1 new")
            desktop.daemon.send(SIGKILL)
            #expect(try await desktop.daemon.waitForExit() == 128 + SIGKILL)
            try desktop.start()
            try await desktop.daemon.waitForAdoption(of: 1)

            let forger = try await session.connect()
            #expect(try await forger.requestName("org.gnome.Shell"))
            try forger.emitSignal(
                path: NotificationsInterface.path, interface: NotificationsInterface.name, member: "ActionInvoked",
                arguments: [.uint32(adopted), .string("default")])
            // A click that counted launches within a second here (the test below does).
            #expect(try await !desktop.browser.launchArrives(within: 3))
            #expect(desktop.daemon.lines(containing: "notification \(adopted) was clicked").isEmpty)
            await forger.close()
        }
    }
}

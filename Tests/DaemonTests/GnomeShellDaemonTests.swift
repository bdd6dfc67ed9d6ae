import DBus
import Foundation
import Glibc
import GitbayClient
import PushCore
import TestSupport
import Testing

/// The real gbnotifyd on GNOME Shell 43 (Debian 12's, headless), read and clicked through the
/// shell's own code (`GnomeShell`): one session for the suite, a gbnotifyd per test. No pointer
/// moves here, so GNOME counts its user as idle and keeps the first banner up (real pointer
/// clicks are `GnomeShellPointerDaemonTests`'). gbnotify is not installed in this session, as
/// in a build tree: the `desktop-entry` hint resolves to nothing there.
@Suite(.serialized, .shell(.gnomeShell))
struct GnomeShellDaemonTests {
    let desktop: ShellDesktop
    let gnome: GnomeShell

    init() throws {
        desktop = try ShellDesktop.shared()
        gnome = GnomeShell(desktop.session)
    }

    /// The icon file of a build tree: what `app_icon` names when nothing is installed.
    static let buildTreeIcon = "\(Standin.packageRoot)/packaging/gbnotify.svg"

    @Test func aNoticeIsShownWithOurIconReplacedInPlaceAndWithdrawnWhenReadElsewhere() async throws {
        try await desktop.run { run in
            let (first, id) = try await run.show(actor: "eve", summary: "said <b>hi</b> & left")
            let shown = try #require(try await gnome.notifications().first { $0.id == id })
            #expect(shown.title == "krz/gitbay")
            // Escaped for GNOME's body markup: shown as sent, not bold. One account: no account line.
            #expect(shown.body == "eve said <b>hi</b> & left")
            #expect(shown.appName == "gitbay")
            // Not GNOME's generic icon: ours, though the desktop entry did not resolve.
            #expect(shown.sourceApp == nil)
            #expect(shown.icon.map { $0.hasSuffix(Self.buildTreeIcon) } == true, "\(shown.icon ?? "no icon")")
            #expect(shown.sourceIcon == shown.icon)
            #expect(shown.actions.map(\.key) == ["default", NotificationContent.markReadAction])

            // A second notice of the repository replaces the first in place.
            let (second, replaced) = try await run.show(actor: "ana", summary: "commented on issue #12")
            #expect(replaced == id)
            let ours = try await run.ours()
            #expect(ours.map(\.id) == [id])
            #expect(ours.first?.body == "ana commented on issue #12\nand 1 more")

            // Both read on the web: the next poll withdraws the notification.
            let client = GitbayClient(instance: run.account.instance, token: try APIToken(desktop.token))
            _ = try await client.send(.notificationsRead(ids: [Int64(first), Int64(second)]))
            run.daemon.send(SIGHUP)
            try await run.waitForLine(endingWith: "withdrew notification \(id)")
            #expect(try await run.ours().isEmpty)
        }
    }

    @Test func aClickThroughTheShellOpensTheItemOnceAndAReplacedGroupTheInboxOnce() async throws {
        try await desktop.expectNoOpenURIPortal()
        try await desktop.run { run in
            let (_, single) = try await run.show(repo: "krz/gitbay", number: 12)
            try await desktop.click(single)
            #expect(try await run.browser.nextLaunch().arguments == [run.url("krz/gitbay/issues/12")])
            #expect(try await run.clicksServed(on: single) == 1)

            // Shown, then replaced twice: GNOME 43 connects one more click handler with every
            // Notify of an id, so its click comes three times over; it opens the inbox once.
            let (_, group) = try await run.show(repo: "krz/other", number: 1)
            try await run.show(repo: "krz/other", number: 2)
            try await run.show(repo: "krz/other", number: 3)
            try await desktop.click(group)
            #expect(try await run.browser.nextLaunch().arguments == [run.url("notifications")])
            #expect(try await run.clicksServed(on: group) == 1)
            // The launch is logged after the browser started: wait for the line, then count.
            try await run.daemon.waitForLine(containing: "opened with", occurrence: 2)
            #expect(run.daemon.lines(containing: "opened with").count == 2)
        }
    }

    @Test func markReadMarksTheRowReadOnTheStandinThroughTheAccountsAPI() async throws {
        try await desktop.run { run in
            let (row, id) = try await run.show()
            try await desktop.pressMarkRead(on: id)
            try await run.daemon.waitForLine(containing: "marked notice \(row) read")
            #expect(try await run.markReadRequests() == [["notifications", "read", String(row)]])
            #expect(try await run.standin.state().notifications.first { $0.id == row }?.readAt != nil)
            #expect(try await run.ours().isEmpty)
        }
    }

    /// Issue 19's loss: GNOME keeps 3 notifications per application and evicted the oldest
    /// while still unread. Now the oldest fold into one summary before a fourth would be shown.
    @Test func fiveRepositoriesOverTwoPollsAndTenRelayWakeUpsLoseNothing() async throws {
        let relay = try await RelayStandin.start()
        let monitor = try await BusMonitor(on: desktop.session)
        do {
            try await desktop.run(config: "poll-interval = 30\nrelay-url = \(relay.url)\n") { run in
                let topic = try #require(try await relay.waitForSubscriptions(count: 1).first?.topics.first)
                for repo in 1...3 {
                    try await run.standin.addNotification(for: "cmc", repo: "krz/r\(repo)", path: "krz/r\(repo)/issues/1")
                }
                run.daemon.send(SIGHUP)
                try await run.daemon.waitForLine(containing: "\(run.name): 200 ok, 3 new")
                try await run.show(repo: "krz/r4", number: 1)
                try await run.show(repo: "krz/r5", number: 1)
                try await Self.expectEverythingAccountedFor(5, in: gnome)

                // Ten relay messages, each with a row of a repository of its own: the account
                // polls (at most every 2 s), and each poll folds the oldest group away.
                for repo in 6...15 {
                    try await run.standin.addNotification(for: "cmc", repo: "krz/r\(repo)", path: "krz/r\(repo)/issues/1")
                    try await relay.publish("wake up", to: topic)
                }
                let held = try await Self.expectEverythingAccountedFor(15, in: gnome)
                #expect(held.map(\.title).contains("13 more unread on \(run.account.instance.displayName) as cmc"), "\(held)")

                // Never an eviction: of ours GNOME closed only what gbnotifyd folded away and
                // withdrew (reason 3), none as expired (1).
                let ids = Set(run.daemon.lines(containing: " as notification ").compactMap {
                    $0.firstMatch(of: #/ as notification (\d+)/#).flatMap { UInt32($0.1) }
                })
                let closed = monitor.messages.filter { $0.member == "NotificationClosed" && $0.firstUInt32.map(ids.contains) == true }
                #expect(!closed.isEmpty && closed.allSatisfy { $0.numbers.last == 3 }, "\(closed)")
                #expect(run.daemon.lines(containing: "(reason 1)").isEmpty)
            }
        } catch {
            await monitor.stop()
            await relay.stop()
            throw error
        }
        await monitor.stop()
        await relay.stop()
    }

    /// Waits until what GNOME holds of ours stands for `count` unread notices, and checks it
    /// never holds more than the 3 it keeps per application.
    @discardableResult
    static func expectEverythingAccountedFor(_ count: Int, in gnome: GnomeShell) async throws -> [ShellDesktop.Shown] {
        let held = try await gnome.waitForNotifications { all in
            ShellDesktop.ours(in: all).reduce(0) { $0 + $1.notices() } == count
        }
        let ours = ShellDesktop.ours(in: held)
        #expect(ours.count == 3, "\(ours)")
        return ours
    }

    @Test func afterAKillDashNineTheRestartedDaemonAdoptsWhatItLeftOnScreen() async throws {
        try await desktop.run { run in
            // Four repositories: the two oldest fold into a summary, so three notifications.
            for repo in ["krz/a", "krz/b", "krz/c"] {
                try await run.standin.addNotification(for: "cmc", repo: repo, path: "\(repo)/issues/1")
            }
            run.daemon.send(SIGHUP)
            try await run.daemon.waitForLine(containing: "\(run.name): 200 ok, 3 new")
            try await run.show(repo: "krz/d", number: 1)
            // Its poll is done (the mark saved after what is on screen): killed before that, it
            // would show krz/d again after the restart, at least once by design.
            try await run.daemon.waitForLine(containing: "\(run.name): 200 ok, 1 new")
            let before = try await run.ours()
            let summaryTitle = "2 more unread on \(run.account.instance.displayName) as cmc"
            #expect(before.map(\.title) == [summaryTitle, "krz/c", "krz/d"])

            run.daemon.send(SIGKILL)
            #expect(try await run.daemon.waitForExit() == 128 + SIGKILL)
            // GNOME keeps what the dead daemon showed.
            #expect(try await run.ours() == before)

            // While it is down, a notice of krz/c: the restarted daemon replaces krz/c in place.
            let added = try await run.standin.addNotification(
                for: "cmc", repo: "krz/c", actor: "ana", summary: "closed issue #2", path: "krz/c/issues/2")
            try run.start()
            try await run.daemon.waitForLine(containing: "took over 3 notifications")
            let c = try await run.open(titled: "krz/c")
            #expect(try await run.shownAs(row: added) == c.id)
            try await run.daemon.waitForLine(containing: "\(run.name): 200 ok")
            let after = try await run.ours()
            // The same three: no second summary beside the old one, krz/c changed in place.
            #expect(after.map(\.id) == before.map(\.id))
            #expect(after.filter { $0.title.contains("unread") }.map(\.title) == [summaryTitle])
            #expect(after.first { $0.id == c.id }?.body == "ana closed issue #2\nand 1 more")

            // A click on each reaches the new daemon (krz/d's through gnome-shell's broadcast
            // alone, krz/c's through GNOME's helper too) and opens what it shows, once.
            let d = try await run.open(titled: "krz/d")
            try await desktop.click(d.id)
            #expect(try await run.browser.nextLaunch().arguments == [run.url("krz/d/issues/1")])
            #expect(try await run.clicksServed(on: d.id) == 1)
            try await desktop.click(c.id)
            #expect(try await run.browser.nextLaunch().arguments == [run.url("notifications")])
            #expect(try await run.clicksServed(on: c.id) == 1)
            let summary = try await run.open(titled: summaryTitle)
            try await desktop.click(summary.id)
            #expect(try await run.browser.nextLaunch().arguments == [run.url("notifications")])
            #expect(try await run.clicksServed(on: summary.id) == 1)
        }
    }

    @Test func withTwoAccountsEachNotificationSaysWhichAccount() async throws {
        try await desktop.expectEachNotificationToSayItsAccount()
    }
}

/// Real pointer clicks on gbnotifyd's banners, in a GNOME Shell of their own: after input GNOME
/// counts its user as active and hides a banner 4 s after it came, unless the pointer is on it.
@Suite(.serialized, .shell(.gnomeShell))
struct GnomeShellPointerDaemonTests {
    let desktop: ShellDesktop
    let gnome: GnomeShell

    init() throws {
        desktop = try ShellDesktop.shared()
        gnome = GnomeShell(desktop.session)
    }

    @Test func aRealPointerClickOnTheBannerOpensTheItemOnce() async throws {
        try await desktop.run { run in
            let (_, id) = try await run.show(repo: "krz/gitbay", number: 31, kind: "mr")
            try await gnome.pointerClickBanner(id)
            #expect(try await run.browser.nextLaunch().arguments == [run.url("krz/gitbay/mrs/31")])
            #expect(try await run.clicksServed(on: id) == 1)
        }
    }

    @Test func aRealPointerClickOnMarkReadMarksTheRowRead() async throws {
        try await desktop.run { run in
            let (row, id) = try await run.show()
            try await gnome.pointerClickButton("Mark read", on: id)
            try await run.daemon.waitForLine(containing: "marked notice \(row) read")
            #expect(try await run.markReadRequests() == [["notifications", "read", String(row)]])
            #expect(try await run.clicksServed(on: id) == 1)
        }
    }
}

import DesktopSuites
import PushCore
import TestSupport
import Testing

/// The real gbnotifyd on Cinnamon 5.6, whose shell is the notification server, read through its
/// probe and clicked with a real pointer. Cinnamon shows one banner at a time, closes a
/// notification after any action (so a second action never comes), and a click on a banner
/// dismisses every notification of its source.
@Suite(.serialized, .desktop(.cinnamon, installing: .gbnotify))
struct CinnamonDaemonTests {
    let checks: CinnamonDaemonChecks

    init() throws {
        checks = try CinnamonDaemonChecks()
    }

    @Test func aNoticeIsShownReplacedInPlaceAndWithdrawnWhenReadElsewhere() async throws {
        try await checks.aNoticeIsShownReplacedInPlaceAndWithdrawnWhenReadElsewhere()
    }

    @Test func aClickOpensItsItemOnceAndTheNotificationsItDismissedStayUnreadAndAreNotShownAgain() async throws {
        try await checks.aClickOpensItsItemOnceAndTheNotificationsItDismissedStayUnreadAndAreNotShownAgain()
    }

    @Test func markReadOnTheBannerMarksTheRowReadOnTheServer() async throws {
        try await checks.markReadOnTheBannerMarksTheRowReadOnTheServer()
    }

    @Test func afterAKillDashNineTheNextDaemonReplacesWhatTheLastShowedInPlace() async throws {
        try await checks.afterAKillDashNineTheNextDaemonReplacesWhatTheLastShowedInPlace()
    }
}

/// The same on Cinnamon 6.4 (Debian 13's, from the root scripts/debian13-root builds).
@Suite(.serialized, .desktop(.cinnamon, release: .debian13, installing: .gbnotify))
struct Cinnamon64DaemonTests {
    let checks: CinnamonDaemonChecks

    init() throws {
        checks = try CinnamonDaemonChecks()
    }

    @Test func aNoticeIsShownReplacedInPlaceAndWithdrawnWhenReadElsewhere() async throws {
        try await checks.aNoticeIsShownReplacedInPlaceAndWithdrawnWhenReadElsewhere()
    }

    @Test func aClickOpensItsItemOnceAndTheNotificationsItDismissedStayUnreadAndAreNotShownAgain() async throws {
        try await checks.aClickOpensItsItemOnceAndTheNotificationsItDismissedStayUnreadAndAreNotShownAgain()
    }

    @Test func markReadOnTheBannerMarksTheRowReadOnTheServer() async throws {
        try await checks.markReadOnTheBannerMarksTheRowReadOnTheServer()
    }

    @Test func afterAKillDashNineTheNextDaemonReplacesWhatTheLastShowedInPlace() async throws {
        try await checks.afterAKillDashNineTheNextDaemonReplacesWhatTheLastShowedInPlace()
    }
}

/// The checks of CinnamonDaemonTests and Cinnamon64DaemonTests, each on its suite's session.
struct CinnamonDaemonChecks {
    let cinnamon: Cinnamon

    init() throws {
        cinnamon = Cinnamon(try SharedDesktop.session())
    }

    func aNoticeIsShownReplacedInPlaceAndWithdrawnWhenReadElsewhere() async throws {
        try await DaemonOnDesktop.run { desktop in
            let first = try await desktop.show(actor: "eve", summary: "opened issue #12")
            try await cinnamon.waitForBanner { $0.id == first.notification && $0.title == "krz/gitbay" && $0.body == "eve opened issue #12" }

            let second = try await desktop.show(actor: "ana", summary: "commented on issue #12")
            #expect(second.notification == first.notification)
            try await cinnamon.waitForBanner { $0.id == first.notification && $0.body.hasPrefix("ana commented on issue #12") }

            try await desktop.readElsewhere([first.row, second.row])
            desktop.poll()
            try await desktop.daemon.waitForWithdrawal(of: first.notification)
            #expect(try await desktop.closed(first.notification) == 3)
            try await cinnamon.waitForNotifications { $0.allSatisfy { $0.id != first.notification } }
        }
    }

    /// A click on one banner dismisses both of ours (reason 2): the other is neither opened, nor
    /// marked read, nor shown again by the next poll.
    func aClickOpensItsItemOnceAndTheNotificationsItDismissedStayUnreadAndAreNotShownAgain() async throws {
        try await DaemonOnDesktop.run { desktop in
            // The first is on the banner; the second waits in Cinnamon's queue behind it.
            let clicked = try await desktop.show(repo: "krz/gitbay", number: 12)
            let other = try await desktop.show(repo: "krz/other", number: 3)

            try await cinnamon.pointerClickBanner(clicked.notification)

            #expect(try await desktop.browser.nextLaunch().arguments == [desktop.url("krz/gitbay/issues/12")])
            #expect(try await desktop.clicksServed(on: clicked.notification) == 1)
            #expect(try await desktop.closed(other.notification) == 2)
            try await desktop.daemon.waitForServerClosing(other.notification, reason: 2)
            // The next poll, whatever it says (nothing new: "304 not modified" or "200 ok").
            let polls = desktop.daemon.polls(of: desktop.account, saying: "")
            desktop.poll()
            try await desktop.daemon.waitForPoll(of: desktop.account, saying: "", count: polls + 1)
            #expect(desktop.daemon.events.value.count { if case .shown(_, .group, _, _) = $0 { true } else { false } } == 2)
            #expect(try await desktop.readAt(other.row) == nil)
            #expect(try await desktop.readAt(clicked.row) == nil)
        }
    }

    func markReadOnTheBannerMarksTheRowReadOnTheServer() async throws {
        try await DaemonOnDesktop.run { desktop in
            let (row, id) = try await desktop.show()
            try await cinnamon.pointerClickButton("Mark read", on: id)
            try await desktop.daemon.waitForClick(NotificationContent.markReadAction, on: id)
            try await withDeadline(.seconds(30), "the notice marked read on the server") {
                while try await desktop.readAt(row) == nil { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(try await desktop.markReadRequests() == [["notifications", "read", String(row)]])
        }
    }

    /// Cinnamon keeps what a killed daemon showed; the next daemon takes it over and replaces it
    /// in place.
    func afterAKillDashNineTheNextDaemonReplacesWhatTheLastShowedInPlace() async throws {
        try await DaemonOnDesktop.run { desktop in
            let first = try await desktop.show(actor: "eve", summary: "opened issue #12")
            try await desktop.killDashNineAndRestart(takingOver: 1)
            let second = try await desktop.show(actor: "ana", summary: "commented on issue #12")
            #expect(second.notification == first.notification)
            try await cinnamon.waitForBanner { $0.id == first.notification && $0.body.hasPrefix("ana commented on issue #12") }
            #expect(try await cinnamon.notifications().filter { $0.appName == NotificationContent.appName }.map(\.id) == [first.notification])
        }
    }
}

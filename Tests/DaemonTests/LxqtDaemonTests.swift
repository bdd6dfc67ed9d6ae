import DesktopSuites
import PushCore
import TestSupport
import Testing

/// The real gbnotifyd on lxqt-notificationd 1.2, read over AT-SPI: a replacement there keeps the
/// first `Notify`'s buttons, so a notification whose actions change is closed and shown afresh.
@Suite(.serialized, .desktop(.lxqt, installing: .gbnotify))
struct LxqtDaemonTests {
    let checks: LxqtDaemonChecks

    init() throws {
        checks = try LxqtDaemonChecks()
    }

    @Test func aNotificationWhoseActionsChangeIsShownAfreshWithItsOwnButtons() async throws {
        try await checks.aNotificationWhoseActionsChangeIsShownAfreshWithItsOwnButtons()
    }

    @Test func markReadAfterOpenOnThePopupLxqtKeepsMarksItRead() async throws {
        try await checks.markReadAfterOpenOnThePopupLxqtKeepsMarksItRead()
    }

    @Test func theNextNoticeOfItsRepositoryIsShownAfreshWithTheGroupsButtonsAndWithdrawnWhenRead() async throws {
        try await checks.theNextNoticeOfItsRepositoryIsShownAfreshWithTheGroupsButtonsAndWithdrawnWhenRead()
    }

    @Test func afterAKillDashNineTheNextDaemonShowsTheGroupAfreshWithItsOwnButtons() async throws {
        try await checks.afterAKillDashNineTheNextDaemonShowsTheGroupAfreshWithItsOwnButtons()
    }
}

/// The same on lxqt-notificationd 2.1 (Debian 13's, from the root scripts/debian13-root builds).
@Suite(.serialized, .desktop(.lxqt, release: .debian13, installing: .gbnotify))
struct Lxqt21DaemonTests {
    let checks: LxqtDaemonChecks

    init() throws {
        checks = try LxqtDaemonChecks()
    }

    @Test func aNotificationWhoseActionsChangeIsShownAfreshWithItsOwnButtons() async throws {
        try await checks.aNotificationWhoseActionsChangeIsShownAfreshWithItsOwnButtons()
    }

    @Test func markReadAfterOpenOnThePopupLxqtKeepsMarksItRead() async throws {
        try await checks.markReadAfterOpenOnThePopupLxqtKeepsMarksItRead()
    }

    @Test func theNextNoticeOfItsRepositoryIsShownAfreshWithTheGroupsButtonsAndWithdrawnWhenRead() async throws {
        try await checks.theNextNoticeOfItsRepositoryIsShownAfreshWithTheGroupsButtonsAndWithdrawnWhenRead()
    }

    @Test func afterAKillDashNineTheNextDaemonShowsTheGroupAfreshWithItsOwnButtons() async throws {
        try await checks.afterAKillDashNineTheNextDaemonShowsTheGroupAfreshWithItsOwnButtons()
    }
}

/// The checks of LxqtDaemonTests and Lxqt21DaemonTests, each on its suite's session.
struct LxqtDaemonChecks {
    let screen: OnScreen

    init() throws {
        screen = OnScreen(try SharedDesktop.session())
    }

    func aNotificationWhoseActionsChangeIsShownAfreshWithItsOwnButtons() async throws {
        try await DaemonOnDesktop.run(config: "poll-interval = 3600\nmax-notifications = 1\n") { desktop in
            try await desktop.show(repo: "krz/one", number: 1)
            let single = try await screen.waitForPopup(titled: "krz/one")
            // Two beside Open: past three actions LXQt draws a list with "OK" instead of buttons.
            #expect(single.buttons.map(\.label) == ["x", "Open", "Mark read", "Reply…"])

            // With room for one notification, a second repository folds the first into a
            // summary in its place, which offers other actions.
            try await desktop.standin.addNotification(
                for: desktop.account.username, repo: "krz/two", kind: "issue", actor: "bo", summary: "opened issue #2",
                path: "krz/two/issues/2")
            desktop.poll()
            try await desktop.daemon.waitForSummary(of: 2)
            let summary = try await screen.waitForPopup(titled: "2 more unread on \(desktop.account.instance.displayName) as cmc")
            #expect(summary.buttons.map(\.label) == ["x", "Open the inbox", "Mark all read"])
            try await screen.waitUntilGone(titled: "krz/one")
        }
    }

    /// LXQt keeps a popup after an action: "Mark read" after "Open" on it is a second choice of
    /// the user's, served, not the first click heard again.
    func markReadAfterOpenOnThePopupLxqtKeepsMarksItRead() async throws {
        try await DaemonOnDesktop.run { desktop in
            let (row, id) = try await desktop.show()
            try await screen.pointerClickButton("Open", onPopupTitled: "krz/gitbay")
            #expect(try await desktop.browser.nextLaunch().arguments == [desktop.url("krz/gitbay/issues/12")])
            try await screen.pointerClickButton("Mark read", onPopupTitled: "krz/gitbay")
            try await desktop.daemon.waitForClick(NotificationContent.markReadAction, on: id)
            try await desktop.daemon.waitForMarkedRead([row], of: desktop.account)
            #expect(try await desktop.readAt(row) != nil)
            #expect(try await desktop.markReadRequests() == [["notifications", "read", String(row)]])
        }
    }

    /// A notice's buttons are "Open" and "Mark read", a group's "Open the inbox" and "Mark all
    /// read" under the same keys: LXQt would keep the old labels, so the popup is closed and shown
    /// afresh. One popup, with the new text and buttons.
    func theNextNoticeOfItsRepositoryIsShownAfreshWithTheGroupsButtonsAndWithdrawnWhenRead() async throws {
        try await DaemonOnDesktop.run { desktop in
            let first = try await desktop.show(actor: "eve", summary: "opened issue #12")
            try await screen.waitForPopup(titled: "krz/gitbay", body: "eve opened issue #12")

            let second = try await showsTheGroupAfresh(replacing: first, on: desktop)

            try await desktop.readElsewhere([first.row, second.row])
            desktop.poll()
            try await desktop.daemon.waitForWithdrawal(of: second.notification)
            try await screen.waitUntilGone(titled: "krz/gitbay")
        }
    }

    /// LXQt keeps what a killed daemon showed, and the next daemon takes it over without knowing
    /// which buttons it had: its next notice of that repository (a group) closes the old popup
    /// and shows one afresh, rather than a group's text under a notice's "Mark read".
    func afterAKillDashNineTheNextDaemonShowsTheGroupAfreshWithItsOwnButtons() async throws {
        try await DaemonOnDesktop.run { desktop in
            let first = try await desktop.show(actor: "eve", summary: "opened issue #12")
            try await screen.waitForPopup(titled: "krz/gitbay", body: "eve opened issue #12")
            try await desktop.killDashNineAndRestart(takingOver: 1)

            try await showsTheGroupAfresh(replacing: first, on: desktop)
        }
    }

    /// The next notice of `first`'s repository: `first` is closed (reason 3, by a call) and the
    /// group shown afresh, one popup with the group's own buttons.
    @discardableResult
    private func showsTheGroupAfresh(
        replacing first: (row: Int, notification: UInt32), on desktop: DaemonOnDesktop
    ) async throws -> (row: Int, notification: UInt32) {
        let second = try await desktop.show(actor: "ana", summary: "commented on issue #12")
        #expect(second.notification != first.notification)
        #expect(try await desktop.closed(first.notification) == 3)
        let popup = try await screen.waitForPopup(titled: "krz/gitbay", body: "ana commented on issue #12\nand 1 more")
        #expect(popup.buttons.map(\.label) == ["x", "Open the inbox", "Mark all read", "Mute"])
        #expect(try await screen.popups().count { $0.title == "krz/gitbay" } == 1)
        return second
    }
}

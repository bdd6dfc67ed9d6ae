import DBus
import DesktopSuites
import Foundation
import TestSupport
import Testing

/// The real gbnotifyd on the notification servers of GNOME Flashback (notification-daemon 3.20)
/// and Xfce (xfce4-notifyd 0.7), each in a desktop session of its own with gbnotify installed,
/// seen and clicked the way a user sees and clicks: the bubbles on screen over AT-SPI, clicks
/// with a real pointer (XTest), the icon by the colours on screen.
///
/// The binary rather than the desktop stage in this process: the stage reaches the process's
/// own session bus, and this way every part runs as shipped, from the keyring and the poller to
/// the server and the browser a click starts.
struct FallbackServerChecks {
    /// How a user does things on one server.
    struct Hands: Sendable {
        /// What a click to open is: on the body (notification-daemon), or on the button of the
        /// default action (xfce4-notifyd shows it as one; a click on its body only dismisses).
        let openButton: String?
        /// Dismisses the bubble listed, without acting on it: a click where it was listed, not
        /// a wait for it, since it may expire on its own in between.
        let dismiss: @Sendable (OnScreen, OnScreen.Popup) async throws -> Void
        /// Whether `CloseNotification` takes the bubble off the screen (notification-daemon
        /// answers it with NotificationClosed, reason 3, and leaves the bubble up).
        let closingRemovesTheBubble: Bool
    }

    /// The GTK servers' close button is the one button without an accessible name.
    private static let clickTheCloseButton: @Sendable (OnScreen, OnScreen.Popup) async throws -> Void = { screen, popup in
        try await screen.session.pointerClick(at: popup.button("").area.center)
    }

    static let notificationDaemon = Hands(openButton: nil, dismiss: clickTheCloseButton, closingRemovesTheBubble: false)

    /// A click on the body is the default action.
    static let mate = Hands(openButton: nil, dismiss: clickTheCloseButton, closingRemovesTheBubble: true)

    static let xfce4Notifyd = Hands(
        openButton: "Open", dismiss: { screen, popup in try await screen.session.pointerClick(at: popup.bodyArea.center) },
        closingRemovesTheBubble: true)

    let hands: Hands
    let screen: OnScreen

    init(_ hands: Hands) throws {
        self.hands = hands
        screen = OnScreen(try SharedDesktop.session())
    }

    /// Runs `body` with a daemon on the suite's desktop, and leaves the screen empty for the
    /// next test: notification-daemon shows one bubble at a time, and leaves up the ones the
    /// daemon withdrew as it stopped.
    func run(_ body: (DaemonOnDesktop) async throws -> Void) async throws {
        do {
            try await DaemonOnDesktop.run(body)
        } catch {
            try? await clearScreen()
            throw error
        }
        try await clearScreen()
    }

    private func clearScreen() async throws {
        while let popup = try await screen.popups().first {
            try await hands.dismiss(screen, popup)
            try await screen.waitUntilGone(titled: popup.title)
        }
    }

    func aNoticeIsShownWithTheInstalledIcon() async throws {
        try await run { desktop in
            try await desktop.show(repo: "krz/gitbay", actor: "eve", summary: "said <b>hi</b> & left")
            // The repository as title; the body escaped, so the server shows the text as sent.
            let popup = try await screen.waitForPopup(titled: "krz/gitbay", body: "eve said <b>hi</b> & left")
            let area = try #require(popup.iconArea, "no icon on the bubble: \(popup)")
            // The installed icon (its recoloured fill, with the badge's red), not the source
            // tree's that a daemon finding none installed would fall back to. The bubble is
            // painted a little after the accessibility tree has it: pictures until it is.
            let deadline = ContinuousClock.now + .seconds(10)
            var colours = try await desktop.session.colours(in: area)
            while colours[IconColours.installed, default: 0] * 4 < area.width * area.height,
                  ContinuousClock.now < deadline {
                colours = try await desktop.session.colours(in: area)
            }
            #expect(colours[IconColours.installed, default: 0] * 4 >= area.width * area.height, "\(colours)")
            #expect(colours[IconColours.badge, default: 0] > 0, "\(colours)")
            #expect(colours[IconColours.packaged] == nil, "\(colours)")
        }
    }

    func theNextNoticeOfItsRepositoryReplacesTheBubbleInPlace() async throws {
        try await run { desktop in
            let first = try await desktop.show(summary: "opened issue #12")
            try await screen.waitForPopup(titled: "krz/gitbay", body: "eve opened issue #12")
            let second = try await desktop.show(actor: "ana", summary: "commented on issue #12")
            #expect(second.notification == first.notification)
            #expect(desktop.daemon.lines(containing: "in a group of 2 of krz/gitbay as notification \(first.notification) in place").count == 1)
            // The new notice listed, the one shown before only counted.
            try await screen.waitForPopup(titled: "krz/gitbay", body: "ana commented on issue #12\nand 1 more")
            #expect(try await screen.popups().map(\.title) == ["krz/gitbay"])
        }
    }

    func aClickOpensTheItemOnce() async throws {
        try await run { desktop in
            let shown = try await desktop.show()
            if let button = hands.openButton {
                try await screen.pointerClickButton(button, onPopupTitled: "krz/gitbay")
            } else {
                try await screen.pointerClickBody(ofPopupTitled: "krz/gitbay")
            }
            #expect(try await desktop.browser.nextLaunch().arguments == [desktop.url("krz/gitbay/issues/12")])
            try await screen.waitUntilGone(titled: "krz/gitbay")
            #expect(try await !desktop.browser.launchArrives(within: 1))
            #expect(desktop.signals("ActionInvoked", about: shown.notification).count == 1)
        }
    }

    func markReadMarksTheRowReadOnTheServer() async throws {
        try await run { desktop in
            let shown = try await desktop.show()
            try await screen.pointerClickButton("Mark read", onPopupTitled: "krz/gitbay")
            try await desktop.daemon.waitForMarkedRead([shown.row], of: desktop.account)
            #expect(try await desktop.readAt(shown.row) != nil)
            #expect(try await desktop.markReadRequests() == [["notifications", "read", String(shown.row)]])
            try await screen.waitUntilGone(titled: "krz/gitbay")
        }
    }

    /// notification-daemon keeps a notification whose bubble expired in its tray (it advertises
    /// `persistence`) and sends no NotificationClosed, so the daemon still counts it open, and
    /// the next notice of its repository replaces it (the server shows the same id again):
    /// what was listed before must not be listed again.
    func anExpiredBubbleIsNotListedAgainByTheNextNoticeOfItsRepository() async throws {
        try await run { desktop in
            // Away from the bubbles: the server keeps a bubble under the pointer.
            try await desktop.session.pointerMove(to: ScreenPoint(x: 1, y: 1))
            let first = try await desktop.show(actor: "eve", summary: "opened issue #12")
            try await screen.waitForPopup(titled: "krz/gitbay", body: "eve opened issue #12")
            try await screen.waitUntilGone(titled: "krz/gitbay")
            #expect(desktop.signals("NotificationClosed", about: first.notification).isEmpty)

            let second = try await desktop.show(actor: "ana", summary: "commented on issue #12")
            #expect(second.notification == first.notification)
            try await screen.waitForPopup(titled: "krz/gitbay", body: "ana commented on issue #12\nand 1 more")
        }
    }

    func aNoticeReadElsewhereIsWithdrawn() async throws {
        try await run { desktop in
            let shown = try await desktop.show()
            try await screen.waitForPopup(titled: "krz/gitbay")
            try await desktop.readElsewhere([shown.row])
            desktop.poll()
            try await desktop.daemon.waitForWithdrawal(of: shown.notification)
            #expect(try await desktop.closed(shown.notification) == 3)
            if hands.closingRemovesTheBubble {
                try await screen.waitUntilGone(titled: "krz/gitbay")
            }
        }
    }

    /// The server keeps what a killed daemon showed; the next daemon takes it over and replaces
    /// it in place.
    func afterAKillDashNineTheNextDaemonReplacesWhatTheLastShowedInPlace() async throws {
        try await run { desktop in
            let first = try await desktop.show(summary: "opened issue #12")
            try await desktop.killDashNineAndRestart(takingOver: 1)
            let second = try await desktop.show(actor: "ana", summary: "commented on issue #12")
            #expect(second.notification == first.notification)
            try await screen.waitForPopup(titled: "krz/gitbay", body: "ana commented on issue #12\nand 1 more")
            #expect(try await screen.popups().map(\.title) == ["krz/gitbay"])
        }
    }
}

@Suite(.serialized, .desktop(.notificationDaemon, installing: .gbnotify))
struct NotificationDaemonTests {
    let checks: FallbackServerChecks

    init() throws {
        checks = try FallbackServerChecks(FallbackServerChecks.notificationDaemon)
    }

    @Test func aNoticeIsShownWithTheInstalledIcon() async throws {
        try await checks.aNoticeIsShownWithTheInstalledIcon()
    }

    @Test func theNextNoticeOfItsRepositoryReplacesTheBubbleInPlace() async throws {
        try await checks.theNextNoticeOfItsRepositoryReplacesTheBubbleInPlace()
    }

    @Test func aClickOnTheBodyOpensTheItemOnce() async throws {
        try await checks.aClickOpensTheItemOnce()
    }

    @Test func markReadMarksTheRowReadOnTheServer() async throws {
        try await checks.markReadMarksTheRowReadOnTheServer()
    }

    @Test func aNoticeReadElsewhereIsWithdrawn() async throws {
        try await checks.aNoticeReadElsewhereIsWithdrawn()
    }

    /// notification-daemon keeps a notification whose bubble expired in its tray (it advertises
    /// `persistence`) and sends no NotificationClosed (`FallbackServerChecks`).
    @Test func anExpiredBubbleIsNotListedAgainByTheNextNoticeOfItsRepository() async throws {
        try await checks.anExpiredBubbleIsNotListedAgainByTheNextNoticeOfItsRepository()
    }
}

/// notification-daemon 3.20 as Debian 13 builds it (from the root scripts/debian13-root builds): the same checks.
@Suite(.serialized, .desktop(.notificationDaemon, release: .debian13, installing: .gbnotify))
struct NotificationDaemon13Tests {
    let checks: FallbackServerChecks

    init() throws {
        checks = try FallbackServerChecks(FallbackServerChecks.notificationDaemon)
    }

    @Test func aNoticeIsShownWithTheInstalledIcon() async throws {
        try await checks.aNoticeIsShownWithTheInstalledIcon()
    }

    @Test func theNextNoticeOfItsRepositoryReplacesTheBubbleInPlace() async throws {
        try await checks.theNextNoticeOfItsRepositoryReplacesTheBubbleInPlace()
    }

    @Test func aClickOnTheBodyOpensTheItemOnce() async throws {
        try await checks.aClickOpensTheItemOnce()
    }

    @Test func markReadMarksTheRowReadOnTheServer() async throws {
        try await checks.markReadMarksTheRowReadOnTheServer()
    }

    @Test func aNoticeReadElsewhereIsWithdrawn() async throws {
        try await checks.aNoticeReadElsewhereIsWithdrawn()
    }

    /// notification-daemon keeps a notification whose bubble expired in its tray (it advertises
    /// `persistence`) and sends no NotificationClosed (`FallbackServerChecks`).
    @Test func anExpiredBubbleIsNotListedAgainByTheNextNoticeOfItsRepository() async throws {
        try await checks.anExpiredBubbleIsNotListedAgainByTheNextNoticeOfItsRepository()
    }
}

@Suite(.serialized, .desktop(.xfce4Notifyd, installing: .gbnotify))
struct Xfce4NotifydTests {
    let checks: FallbackServerChecks

    init() throws {
        checks = try FallbackServerChecks(FallbackServerChecks.xfce4Notifyd)
    }

    @Test func aNoticeIsShownWithTheInstalledIcon() async throws {
        try await checks.aNoticeIsShownWithTheInstalledIcon()
    }

    @Test func theNextNoticeOfItsRepositoryReplacesTheBubbleInPlace() async throws {
        try await checks.theNextNoticeOfItsRepositoryReplacesTheBubbleInPlace()
    }

    @Test func aClickOnTheOpenButtonOpensTheItemOnce() async throws {
        try await checks.aClickOpensTheItemOnce()
    }

    @Test func markReadMarksTheRowReadOnTheServer() async throws {
        try await checks.markReadMarksTheRowReadOnTheServer()
    }

    @Test func aNoticeReadElsewhereIsWithdrawn() async throws {
        try await checks.aNoticeReadElsewhereIsWithdrawn()
    }

    @Test func afterAKillDashNineTheNextDaemonReplacesWhatTheLastShowedInPlace() async throws {
        try await checks.afterAKillDashNineTheNextDaemonReplacesWhatTheLastShowedInPlace()
    }
}

/// xfce4-notifyd 0.9 (Debian 13's, from the root scripts/debian13-root builds): the same checks.
@Suite(.serialized, .desktop(.xfce4Notifyd, release: .debian13, installing: .gbnotify))
struct Xfce4Notifyd09Tests {
    let checks: FallbackServerChecks

    init() throws {
        checks = try FallbackServerChecks(FallbackServerChecks.xfce4Notifyd)
    }

    @Test func aNoticeIsShownWithTheInstalledIcon() async throws {
        try await checks.aNoticeIsShownWithTheInstalledIcon()
    }

    @Test func theNextNoticeOfItsRepositoryReplacesTheBubbleInPlace() async throws {
        try await checks.theNextNoticeOfItsRepositoryReplacesTheBubbleInPlace()
    }

    @Test func aClickOnTheOpenButtonOpensTheItemOnce() async throws {
        try await checks.aClickOpensTheItemOnce()
    }

    @Test func markReadMarksTheRowReadOnTheServer() async throws {
        try await checks.markReadMarksTheRowReadOnTheServer()
    }

    @Test func aNoticeReadElsewhereIsWithdrawn() async throws {
        try await checks.aNoticeReadElsewhereIsWithdrawn()
    }

    @Test func afterAKillDashNineTheNextDaemonReplacesWhatTheLastShowedInPlace() async throws {
        try await checks.afterAKillDashNineTheNextDaemonReplacesWhatTheLastShowedInPlace()
    }
}

/// mate-notification-daemon 1.26, started with the session and with its `.service` file on the
/// bus, as on a MATE desktop: it exits about 30 s after its last popup closed (a suite that waits
/// its turn finds it gone), and the daemon's next `Notify` starts it again.
@Suite(.serialized, .desktop(.mate, activation: .activatable, installing: .gbnotify))
struct MateDaemonTests {
    let checks: FallbackServerChecks

    init() throws {
        checks = try FallbackServerChecks(FallbackServerChecks.mate)
    }

    @Test func theNextNoticeOfItsRepositoryReplacesThePopupInPlace() async throws {
        try await checks.theNextNoticeOfItsRepositoryReplacesTheBubbleInPlace()
    }

    @Test func aClickOnTheBodyOpensTheItemOnce() async throws {
        try await checks.aClickOpensTheItemOnce()
    }

    @Test func markReadMarksTheRowReadOnTheServer() async throws {
        try await checks.markReadMarksTheRowReadOnTheServer()
    }

    @Test func aNoticeReadElsewhereIsWithdrawn() async throws {
        try await checks.aNoticeReadElsewhereIsWithdrawn()
    }

    @Test func afterAKillDashNineTheNextDaemonReplacesWhatTheLastShowedInPlace() async throws {
        try await checks.afterAKillDashNineTheNextDaemonReplacesWhatTheLastShowedInPlace()
    }
}

/// mate-notification-daemon 1.26 as Debian 13 builds it (from the root scripts/debian13-root builds): the same checks.
@Suite(.serialized, .desktop(.mate, release: .debian13, activation: .activatable, installing: .gbnotify))
struct Mate13DaemonTests {
    let checks: FallbackServerChecks

    init() throws {
        checks = try FallbackServerChecks(FallbackServerChecks.mate)
    }

    @Test func theNextNoticeOfItsRepositoryReplacesThePopupInPlace() async throws {
        try await checks.theNextNoticeOfItsRepositoryReplacesTheBubbleInPlace()
    }

    @Test func aClickOnTheBodyOpensTheItemOnce() async throws {
        try await checks.aClickOpensTheItemOnce()
    }

    @Test func markReadMarksTheRowReadOnTheServer() async throws {
        try await checks.markReadMarksTheRowReadOnTheServer()
    }

    @Test func aNoticeReadElsewhereIsWithdrawn() async throws {
        try await checks.aNoticeReadElsewhereIsWithdrawn()
    }

    @Test func afterAKillDashNineTheNextDaemonReplacesWhatTheLastShowedInPlace() async throws {
        try await checks.afterAKillDashNineTheNextDaemonReplacesWhatTheLastShowedInPlace()
    }
}

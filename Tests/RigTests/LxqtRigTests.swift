import DBus
import DesktopSuites
import Foundation
import TestSupport
import Testing

/// lxqt-notificationd 1.2 on Xvfb, read over AT-SPI and clicked with XTest. Its popups live in
/// one X window; an action does not close a popup, and a replacement keeps the first Notify's
/// buttons.
@Suite(.serialized, .desktop(.lxqt))
struct LxqtRigTests {
    let checks: LxqtRigChecks

    init() throws {
        checks = try LxqtRigChecks()
    }

    @Test func showsAPopupWithItsAppItsTextAndEveryActionAsAButton() async throws {
        try await checks.showsAPopupWithItsAppItsTextAndEveryActionAsAButton()
    }

    @Test func aReplacementShowsTheNewBodyButKeepsTheFirstNotifysButtons() async throws {
        try await checks.aReplacementShowsTheNewBodyButKeepsTheFirstNotifysButtons()
    }

    @Test func closeNotificationWithdrawsThePopupWithReasonThree() async throws {
        try await checks.closeNotificationWithdrawsThePopupWithReasonThree()
    }

    @Test func everyRealClickInvokesItsActionAndThePopupStays() async throws {
        try await checks.everyRealClickInvokesItsActionAndThePopupStays()
    }

    @Test func afterAKillDashNineThePopupsAreGoneAndNobodyServes() async throws {
        try await checks.afterAKillDashNineThePopupsAreGoneAndNobodyServes()
    }
}

/// The same on lxqt-notificationd 2.1 (Debian 13's, from the root scripts/debian13-root builds).
@Suite(.serialized, .desktop(.lxqt, release: .debian13))
struct Lxqt21RigTests {
    let checks: LxqtRigChecks

    init() throws {
        checks = try LxqtRigChecks()
    }

    @Test func showsAPopupWithItsAppItsTextAndEveryActionAsAButton() async throws {
        try await checks.showsAPopupWithItsAppItsTextAndEveryActionAsAButton()
    }

    @Test func aReplacementShowsTheNewBodyButKeepsTheFirstNotifysButtons() async throws {
        try await checks.aReplacementShowsTheNewBodyButKeepsTheFirstNotifysButtons()
    }

    @Test func closeNotificationWithdrawsThePopupWithReasonThree() async throws {
        try await checks.closeNotificationWithdrawsThePopupWithReasonThree()
    }

    @Test func everyRealClickInvokesItsActionAndThePopupStays() async throws {
        try await checks.everyRealClickInvokesItsActionAndThePopupStays()
    }

    @Test func afterAKillDashNineThePopupsAreGoneAndNobodyServes() async throws {
        try await checks.afterAKillDashNineThePopupsAreGoneAndNobodyServes()
    }
}

/// The checks of LxqtRigTests and Lxqt21RigTests, each on its suite's session.
struct LxqtRigChecks {
    let session: DesktopSession
    let screen: OnScreen

    init() throws {
        session = try SharedDesktop.session()
        screen = OnScreen(session)
    }

    func showsAPopupWithItsAppItsTextAndEveryActionAsAButton() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(
            title: "Shown", body: "A <b>bold</b> &amp; plain body", actions: [("default", "Open"), ("read", "Mark read")], timeout: 0)

        let popup = try await screen.waitForPopup(titled: "Shown")
        #expect(popup.server == "lxqt-notificationd")
        #expect(popup.app == "Rig Test")
        #expect(popup.body == "A bold & plain body")
        // "x" closes; the default action is a button of its own.
        #expect(popup.buttons.map(\.label) == ["x", "Open", "Mark read"])
        try await client.closeNotification(id)
        try await screen.waitUntilGone(titled: "Shown")
    }

    /// LXQt's bug, which gbnotifyd works around by closing and showing again: the replacement's
    /// text is shown, but the first Notify's buttons stay, and a click on one sends the first
    /// Notify's key.
    func aReplacementShowsTheNewBodyButKeepsTheFirstNotifysButtons() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Replaced", body: "first", actions: [("default", "Open"), ("read", "Mark read")], timeout: 0)
        try await screen.waitForPopup(titled: "Replaced")

        let replaced = try await client.notify(title: "Replaced", body: "second", actions: [("later", "Later")], timeout: 0, replacing: id)

        #expect(replaced == id)
        let popup = try await screen.waitForPopup(titled: "Replaced", body: "second")
        #expect(popup.buttons.map(\.label) == ["x", "Open", "Mark read"])
        try await screen.pointerClickButton("Mark read", onPopupTitled: "Replaced")
        #expect(try await client.next("ActionInvoked", id: id).arguments == [.uint32(id), .string("read")])
        try await client.closeNotification(id)
        #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(3)])
        try await screen.waitUntilGone(titled: "Replaced")
    }

    func closeNotificationWithdrawsThePopupWithReasonThree() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        try await expectWithdrawnWithReasonThree("Withdrawn", by: client, from: screen)
    }

    /// The facts behind de-duplicating clicks by (id, action): every click is sent, the popup
    /// stays, and a second action (or the same one again) comes after the first.
    func everyRealClickInvokesItsActionAndThePopupStays() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Clicked", body: "its body", actions: [("default", "Open"), ("read", "Mark read")], timeout: 0)

        try await screen.pointerClickButton("Open", onPopupTitled: "Clicked")
        #expect(try await client.next("ActionInvoked", id: id).arguments == [.uint32(id), .string("default")])
        try await screen.pointerClickButton("Mark read", onPopupTitled: "Clicked")
        #expect(try await client.next("ActionInvoked", id: id).arguments == [.uint32(id), .string("read")])
        try await screen.pointerClickBody(ofPopupTitled: "Clicked")
        #expect(try await client.next("ActionInvoked", id: id).arguments == [.uint32(id), .string("default")])

        #expect(try await screen.popups().contains { $0.title == "Clicked" })
        try await screen.pointerClickButton("x", onPopupTitled: "Clicked")
        // No click closed it: the first close is the "x" button's, a dismissal.
        #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(2)])
        try await screen.waitUntilGone(titled: "Clicked")
    }

    /// lxqt-notificationd ships no `.service` file: once it is gone nobody serves, and its
    /// popups are gone with it. On a session of its own.
    func afterAKillDashNineThePopupsAreGoneAndNobodyServes() async throws {
        try await DesktopSession.withSession(.lxqt) { session in
            let screen = OnScreen(session)
            let client = try await NotificationsClient.connect(to: session)
            defer { Task { await client.close() } }
            try await client.notify(title: "Of the killed one", timeout: 0)
            try await screen.waitForPopup(titled: "Of the killed one")
            #expect(try await !session.isActivatable())

            try await session.kill(owner: NotificationsInterface.name)

            try await screen.waitUntilGone(titled: "Of the killed one")
            let refusal = await #expect(throws: DBusError.self) { try await client.notify(title: "To nobody") }
            #expect(refusal?.name == DBusError.Name.serviceUnknown)
        }
    }
}

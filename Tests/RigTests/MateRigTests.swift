import DBus
import DesktopSuites
import Foundation
import TestSupport
import Testing

/// mate-notification-daemon 1.26 on Xvfb, read over AT-SPI and clicked with XTest. The suite's
/// session has MATE's `.service` file on the bus, as every MATE desktop does: MATE exits about
/// 30 s after its last popup closed, and the next Notify starts it again.
@Suite(.serialized, .desktop(.mate, activation: .activatable))
struct MateRigTests {
    let session: DesktopSession
    let screen: OnScreen

    init() throws {
        session = try SharedDesktop.session()
        screen = OnScreen(session)
    }

    @Test func showsAPopupWithItsTitleItsBodyAsRenderedAndItsButtonsButTheDefault() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(
            title: "Shown", body: "A <b>bold</b> &amp; plain body", actions: [("default", "Open"), ("read", "Mark read")], timeout: 0)

        let popup = try await screen.waitForPopup(titled: "Shown")
        #expect(popup.server == "mate-notification-daemon")
        #expect(popup.body == "A bold & plain body")
        // The close button has no accessible name.
        #expect(popup.buttons.map(\.label) == ["", "Mark read"])
        try await client.closeNotification(id)
        try await screen.waitUntilGone(titled: "Shown")
    }

    /// Unlike LXQt, MATE takes the replacement's buttons.
    @Test func aReplacementKeepsTheIdAndShowsTheNewBodyAndButtons() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Replaced", body: "first", actions: [("read", "Mark read")], timeout: 0)
        try await screen.waitForPopup(titled: "Replaced")

        let replaced = try await client.notify(title: "Replaced", body: "second", actions: [("open", "Open")], timeout: 0, replacing: id)

        #expect(replaced == id)
        let popup = try await screen.waitForPopup(titled: "Replaced", body: "second")
        #expect(popup.buttons.map(\.label) == ["", "Open"])
        #expect(try await screen.popups().count { $0.title == "Replaced" } == 1)
        try await client.closeNotification(id)
        // The replacement closed nothing: the first close is the sender's.
        #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(3)])
    }

    @Test func closeNotificationWithdrawsThePopupWithReasonThree() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        try await expectWithdrawnWithReasonThree("Withdrawn", by: client, from: screen)
    }

    @Test func aRealClickOnTheBodyIsTheDefaultActionThenTheCloseWithReasonTwo() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Body clicked", body: "its body", actions: [("default", "Open")], timeout: 0)

        try await screen.pointerClickBody(ofPopupTitled: "Body clicked")

        #expect(try await client.next("ActionInvoked", id: id).arguments == [.uint32(id), .string("default")])
        #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(2)])
        try await screen.waitUntilGone(titled: "Body clicked")
    }

    @Test func aRealClickOnAButtonInvokesItsActionThenClosesWithReasonTwo() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Button clicked", actions: [("default", "Open"), ("read", "Mark read")], timeout: 0)

        try await screen.pointerClickButton("Mark read", onPopupTitled: "Button clicked")

        #expect(try await client.next("ActionInvoked", id: id).arguments == [.uint32(id), .string("read")])
        #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(2)])
        #expect(client.received(about: id).count { $0.member == "ActionInvoked" } == 1)
        try await screen.waitUntilGone(titled: "Button clicked")
    }

    /// MATE reports a popup its user closed as expired (reason 1), not dismissed (2).
    @Test func aRealClickOnTheCloseButtonClosesItAsExpiredWithNoAction() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Dismissed", actions: [("default", "Open")], timeout: 0)

        try await screen.pointerClickButton("", onPopupTitled: "Dismissed")

        #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(1)])
        #expect(!client.received(about: id).contains { $0.member == "ActionInvoked" })
        try await screen.waitUntilGone(titled: "Dismissed")
    }

    /// Its popups go with it, without a NotificationClosed; with the `.service` file on the bus,
    /// the next Notify starts a new MATE, whose ids begin again at 1.
    @Test func afterAKillDashNineThePopupsAreGoneAndTheNextNotifyStartsItAgain() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        try await client.notify(title: "Of the killed one", timeout: 0)
        try await screen.waitForPopup(titled: "Of the killed one")
        let killed = try await session.kill(owner: NotificationsInterface.name)

        try await screen.waitUntilGone(titled: "Of the killed one")
        let id = try await client.notify(title: "Of the next one", timeout: 0)

        let started = try #require(try await session.owner())
        #expect(started.pid != killed)
        #expect(started.executable == DesktopSession.mateExecutable)
        #expect(id == 1)
        try await screen.waitForPopup(titled: "Of the next one")
        try await client.closeNotification(id)
        try await screen.waitUntilGone(titled: "Of the next one")
    }
}

/// MATE as every MATE desktop runs it: started by the bus for the first Notify, and gone again
/// about 30 s after its last popup closed. Each test has a session of its own.
@Suite(.serialized)
struct MateOnDemandRigTests {
    @Test func nothingServesUntilANotifyStartsIt() async throws {
        try await DesktopSession.withSession(.mate, activation: .onDemand) { session in
            #expect(try await session.owner() == nil)
            #expect(try await session.isActivatable())

            let client = try await NotificationsClient.connect(to: session)
            defer { Task { await client.close() } }
            let id = try await client.notify(title: "Started on demand", timeout: 0)

            #expect(try await session.owner()?.executable == DesktopSession.mateExecutable)
            try await OnScreen(session).waitForPopup(titled: "Started on demand")
            #expect(id == 1)
        }
    }

    /// The one real-time wait of these rigs: MATE's idle exit is its own timer (30 s after the
    /// last popup closed, in mate-notification-daemon itself), which no clock of ours can move.
    @Test(.timeLimit(.minutes(2)))
    func itExitsAboutThirtySecondsAfterItsLastPopupClosedAndTheNextNotifyStartsItAgain() async throws {
        try await DesktopSession.withSession(.mate, activation: .onDemand) { session in
            let screen = OnScreen(session)
            let client = try await NotificationsClient.connect(to: session)
            defer { Task { await client.close() } }
            let first = try await client.notify(title: "Before the idle exit", timeout: 0)
            try await screen.waitForPopup(titled: "Before the idle exit")
            let before = try #require(try await session.owner())

            try await client.closeNotification(first)
            try await client.next("NotificationClosed", id: first)
            let closed = ContinuousClock.now
            try await session.waitUntilUnowned(timeout: .seconds(90))
            let idle = ContinuousClock.now - closed

            #expect(idle > .seconds(25) && idle < .seconds(60), "exited \(idle) after its last popup closed")
            let id = try await client.notify(title: "After the idle exit", timeout: 0)
            let after = try #require(try await session.owner())
            #expect(after.pid != before.pid)
            #expect(id == 1)
            try await screen.waitForPopup(titled: "After the idle exit")
        }
    }
}

extension DesktopSession {
    static let mateExecutable = "/usr/lib/mate-notification-daemon/mate-notification-daemon"
}

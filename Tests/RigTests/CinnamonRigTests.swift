import DBus
import DesktopSuites
import Foundation
import TestSupport
import Testing

/// Cinnamon 5.6 on Xvfb, read through its probe and clicked with a real pointer. It shows one
/// banner at a time and queues the rest, so every test closes what it showed.
@Suite(.serialized, .desktop(.cinnamon))
struct CinnamonRigTests {
    let checks: CinnamonRigChecks

    init() throws {
        checks = try CinnamonRigChecks()
    }

    @Test func showsABannerWithItsTitleItsBodyAsRenderedAndItsButtonsButTheDefault() async throws {
        try await checks.showsABannerWithItsTitleItsBodyAsRenderedAndItsButtonsButTheDefault()
    }

    @Test func aReplacementKeepsTheIdAndShowsTheNewTextAndButtons() async throws {
        try await checks.aReplacementKeepsTheIdAndShowsTheNewTextAndButtons()
    }

    @Test func closeNotificationWithdrawsItWithReasonThree() async throws {
        try await checks.closeNotificationWithdrawsItWithReasonThree()
    }

    @Test func aRealClickOnTheBodyIsTheDefaultActionThenTheCloseWithReasonTwo() async throws {
        try await checks.aRealClickOnTheBodyIsTheDefaultActionThenTheCloseWithReasonTwo()
    }

    @Test func aRealClickOnAButtonInvokesItsActionThenClosesWithReasonTwo() async throws {
        try await checks.aRealClickOnAButtonInvokesItsActionThenClosesWithReasonTwo()
    }

    @Test func aRealClickOnTheDismissButtonClosesWithReasonZeroAndNoAction() async throws {
        try await checks.aRealClickOnTheDismissButtonClosesWithReasonZeroAndNoAction()
    }

    @Test func aClickOnAReplacedNotificationIsSentOnce() async throws {
        try await checks.aClickOnAReplacedNotificationIsSentOnce()
    }

    @Test func oneClickDismissesAllOfTheSendingProcesssNotifications() async throws {
        try await checks.oneClickDismissesAllOfTheSendingProcesssNotifications()
    }

    @Test func aReplacementWithAnEmptyBodyIsNeverAnswered() async throws {
        try await checks.aReplacementWithAnEmptyBodyIsNeverAnswered()
    }

    @Test func afterAKillDashNineNobodyServes() async throws {
        try await checks.afterAKillDashNineNobodyServes()
    }
}

/// The same on Cinnamon 6.4 (Debian 13's, from the root scripts/debian13-root builds).
@Suite(.serialized, .desktop(.cinnamon, release: .debian13))
struct Cinnamon64RigTests {
    let checks: CinnamonRigChecks

    init() throws {
        checks = try CinnamonRigChecks()
    }

    @Test func showsABannerWithItsTitleItsBodyAsRenderedAndItsButtonsButTheDefault() async throws {
        try await checks.showsABannerWithItsTitleItsBodyAsRenderedAndItsButtonsButTheDefault()
    }

    @Test func aReplacementKeepsTheIdAndShowsTheNewTextAndButtons() async throws {
        try await checks.aReplacementKeepsTheIdAndShowsTheNewTextAndButtons()
    }

    @Test func closeNotificationWithdrawsItWithReasonThree() async throws {
        try await checks.closeNotificationWithdrawsItWithReasonThree()
    }

    @Test func aRealClickOnTheBodyIsTheDefaultActionThenTheCloseWithReasonTwo() async throws {
        try await checks.aRealClickOnTheBodyIsTheDefaultActionThenTheCloseWithReasonTwo()
    }

    @Test func aRealClickOnAButtonInvokesItsActionThenClosesWithReasonTwo() async throws {
        try await checks.aRealClickOnAButtonInvokesItsActionThenClosesWithReasonTwo()
    }

    @Test func aRealClickOnTheDismissButtonClosesWithReasonZeroAndNoAction() async throws {
        try await checks.aRealClickOnTheDismissButtonClosesWithReasonZeroAndNoAction()
    }

    @Test func aClickOnAReplacedNotificationIsSentOnce() async throws {
        try await checks.aClickOnAReplacedNotificationIsSentOnce()
    }

    @Test func oneClickDismissesAllOfTheSendingProcesssNotifications() async throws {
        try await checks.oneClickDismissesAllOfTheSendingProcesssNotifications()
    }

    @Test func aReplacementWithAnEmptyBodyIsNeverAnswered() async throws {
        try await checks.aReplacementWithAnEmptyBodyIsNeverAnswered()
    }

    @Test func afterAKillDashNineNobodyServes() async throws {
        try await checks.afterAKillDashNineNobodyServes()
    }
}

/// The checks of CinnamonRigTests and Cinnamon64RigTests, each on its suite's session.
struct CinnamonRigChecks {
    let session: DesktopSession
    let cinnamon: Cinnamon

    init() throws {
        session = try SharedDesktop.session()
        cinnamon = Cinnamon(session)
    }

    func showsABannerWithItsTitleItsBodyAsRenderedAndItsButtonsButTheDefault() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(
            title: "Shown", body: "A <b>bold</b> &amp; plain body", actions: [("default", "Open"), ("read", "Mark read")], timeout: 0)

        let banner = try await cinnamon.waitForBanner { $0.id == id && $0.isShown }
        #expect(banner.title == "Shown")
        #expect(banner.body == "A bold & plain body")
        #expect(banner.buttons.map(\.label) == ["Mark read"])
        let held = try #require(try await cinnamon.notifications().first { $0.id == id })
        #expect(held.appName == "Rig Test")
        #expect(held.actions.map(\.key) == ["default", "read"])
        try await client.closeNotification(id)
        try await client.next("NotificationClosed", id: id)
    }

    func aReplacementKeepsTheIdAndShowsTheNewTextAndButtons() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Before", body: "first", actions: [("read", "Mark read")], timeout: 0)
        try await cinnamon.waitForBanner { $0.id == id && $0.isShown }

        let replaced = try await client.notify(title: "After", body: "second", actions: [("open", "Open")], timeout: 0, replacing: id)

        #expect(replaced == id)
        let banner = try await cinnamon.waitForBanner { $0.id == id && $0.isShown && $0.title == "After" }
        #expect(banner.body == "second")
        #expect(banner.buttons.map(\.label) == ["Open"])
        try await client.closeNotification(id)
        // The replacement closed nothing: the first close is the sender's.
        #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(3)])
    }

    func closeNotificationWithdrawsItWithReasonThree() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Withdrawn", body: "soon gone", timeout: 0)
        try await cinnamon.waitForBanner { $0.id == id && $0.isShown }

        try await client.closeNotification(id)

        #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(3)])
        try await cinnamon.waitForNotifications { $0.allSatisfy { $0.id != id } }
        #expect(try await cinnamon.banner()?.id != id)
    }

    func aRealClickOnTheBodyIsTheDefaultActionThenTheCloseWithReasonTwo() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Body clicked", body: "its body", actions: [("default", "Open")], timeout: 0)

        try await cinnamon.pointerClickBanner(id)

        #expect(try await client.next("ActionInvoked", id: id).arguments == [.uint32(id), .string("default")])
        #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(2)])
        #expect(client.received(about: id).count { $0.member == "ActionInvoked" } == 1)
    }

    func aRealClickOnAButtonInvokesItsActionThenClosesWithReasonTwo() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Button clicked", body: "its body", actions: [("default", "Open"), ("read", "Mark read")], timeout: 0)

        try await cinnamon.pointerClickButton("Mark read", on: id)

        #expect(try await client.next("ActionInvoked", id: id).arguments == [.uint32(id), .string("read")])
        #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(2)])
        #expect(client.received(about: id).count { $0.member == "ActionInvoked" } == 1)
    }

    /// The dismiss button's handler is destroy() itself, which takes the button for its reason:
    /// the daemon knows no such reason and sends 0, which the specification does not define.
    func aRealClickOnTheDismissButtonClosesWithReasonZeroAndNoAction() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Dismissed", body: "its body", actions: [("default", "Open")], timeout: 0)

        try await cinnamon.pointerClickClose(id)

        #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(0)])
        #expect(!client.received(about: id).contains { $0.member == "ActionInvoked" })
    }

    /// Cinnamon connects the default action's handler once more at each Notify of the id, as
    /// GNOME does, but the click's first handler closes the notification, which disconnects the
    /// rest: ActionInvoked comes once.
    func aClickOnAReplacedNotificationIsSentOnce() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Replaced, then clicked", body: "first", actions: [("default", "Open")], timeout: 0)
        try await client.notify(title: "Replaced, then clicked", body: "second", actions: [("default", "Open")], timeout: 0, replacing: id)
        try await cinnamon.waitForBanner { $0.id == id && $0.isShown && $0.body == "second" }

        try await cinnamon.pointerClickBanner(id)

        #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(2)])
        #expect(client.received(about: id).filter { $0.member == "ActionInvoked" }.map(\.arguments)
            == [[.uint32(id), .string("default")]])
    }

    /// A click on a banner's body closes every notification of its source, as dismissed (reason
    /// 2). A source is the sender's process, whatever the app name (Cinnamon's lookup matches
    /// any source of the same process that has no tray icon): every notification of one
    /// gbnotifyd goes with one click. Another process's stays.
    func oneClickDismissesAllOfTheSendingProcesssNotifications() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let clicked = try await client.notify(app: "One app", title: "Clicked one", body: "its body", actions: [("default", "Open")], timeout: 0)
        let sibling = try await client.notify(app: "One app", title: "Its sibling", body: "queued", actions: [("default", "Open")], timeout: 0)
        let renamed = try await client.notify(app: "Another name", title: "Same process", body: "queued", timeout: 0)
        let sent = try await session.run(["notify-send", "--print-id", "--expire-time=0", "Another process's", "queued"])
        let other = try #require(UInt32(sent.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "notify-send: \(sent.stderr)")

        try await cinnamon.pointerClickBanner(clicked)

        #expect(try await client.next("ActionInvoked", id: clicked).arguments == [.uint32(clicked), .string("default")])
        for id in [clicked, sibling, renamed] {
            #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(2)])
        }
        #expect(!client.received(about: sibling).contains { $0.member == "ActionInvoked" })
        let held = try await cinnamon.waitForNotifications { $0.allSatisfy { ![clicked, sibling, renamed].contains($0.id) } }
        #expect(held.map(\.id) == [other])
        try await client.closeNotification(other)
        #expect(try await client.next("NotificationClosed", id: other).arguments == [.uint32(other), .uint32(3)])
    }

    /// Cinnamon's JavaScript throws on a replacement with an empty body (of a notification that
    /// had one), and the Notify is never answered: it is dispatched, throws, and every later
    /// call of the same sender is answered while it is not. The banner keeps the new title and
    /// loses its body; the server is not stuck.
    func aReplacementWithAnEmptyBodyIsNeverAnswered() async throws {
        let traffic = try await BusTraffic.watch(session, matching: [
            "type='method_call',interface='org.freedesktop.Notifications'", "type='method_return'", "type='error'",
        ])
        defer { Task { await traffic.stop() } }
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "With a body", body: "then none", timeout: 0)
        let thrownBefore = try await cinnamon.thrownNotifies().count

        let unanswered = Task { try await client.notify(title: "Without a body", body: "", timeout: 0, replacing: id) }
        defer { unanswered.cancel() }
        let thrown = try await cinnamon.waitForThrownNotifies { $0.count > thrownBefore }
        let threw = try #require(thrown.last)
        #expect(threw.replacesId == id && threw.title == "Without a body" && threw.body == "")
        #expect(threw.error == "TypeError: this._bodyUrlHighlighter.destroy is not a function")
        // Answered in order after the Notify, which it dispatched first: had that been answered,
        // its answer would be on the bus before this one's.
        _ = try await client.connection.call(
            destination: NotificationsInterface.name, path: NotificationsInterface.path,
            interface: NotificationsInterface.name, member: "GetServerInformation")

        let me = client.connection.uniqueName
        let messages = try await traffic.wait("the answer to GetServerInformation") { messages in
            messages.contains { $0.answering?.member == "GetServerInformation" && $0.destination == me } ? messages : nil
        }
        let replacement = try #require(messages.last { $0.kind == .methodCall && $0.member == "Notify" && $0.sender == me })
        #expect(!messages.contains { $0.answers(replacement) })
        let banner = try await cinnamon.waitForBanner { $0.id == id && $0.isShown }
        #expect(banner.title == "Without a body" && banner.body == "")

        // Not stuck: a replacement with a body is answered and shown.
        #expect(try await client.notify(title: "A body again", body: "back", timeout: 0, replacing: id) == id)
        try await cinnamon.waitForBanner { $0.id == id && $0.body == "back" }
        try await client.closeNotification(id)
        try await client.next("NotificationClosed", id: id)
    }

    /// Cinnamon's shell is the server: a kill -9 takes the whole shell, and with it every
    /// notification; nothing can start another. On a session of its own.
    func afterAKillDashNineNobodyServes() async throws {
        try await DesktopSession.withSession(.cinnamon) { session in
            let client = try await NotificationsClient.connect(to: session)
            defer { Task { await client.close() } }
            try await client.notify(title: "Of the killed shell", timeout: 0)
            #expect(try await session.owner()?.executable == "/usr/bin/cinnamon")
            #expect(try await !session.isActivatable())

            try await session.kill(owner: NotificationsInterface.name)

            let refusal = await #expect(throws: DBusError.self) { try await client.notify(title: "To nobody") }
            #expect(refusal?.name == DBusError.Name.serviceUnknown)
        }
    }
}

import DBus
import DesktopSuites
import Foundation
import TestSupport
import Testing

/// The Plasma rig against plain clients: plasmashell's own model, popups, clicks and badges.
@Suite(.serialized, .desktop(.plasma, installing: .rigEntry))
struct PlasmaRigTests {
    let checks: PlasmaRigChecks

    init() throws {
        checks = try PlasmaRigChecks()
    }

    @Test func listsANotificationWithItsTitleAndItsBodyAsRendered() async throws {
        try await checks.listsANotificationWithItsTitleAndItsBodyAsRendered()
    }

    @Test func aClickThroughThePopupsCodeSendsATokenThenTheDefaultAction() async throws {
        try await checks.aClickThroughThePopupsCodeSendsATokenThenTheDefaultAction()
    }

    @Test func theManagersInvokeActionSendsTheActionAlone() async throws {
        try await checks.theManagersInvokeActionSendsTheActionAlone()
    }

    @Test func aRealPointerClickOnThePopupSendsATokenThenTheDefaultAction() async throws {
        try await checks.aRealPointerClickOnThePopupSendsATokenThenTheDefaultAction()
    }

    @Test func anActionButtonOnThePopupInvokesItsAction() async throws {
        try await checks.anActionButtonOnThePopupInvokesItsAction()
    }

    @Test func aScreenshotOfThePopupIsAPictureOfIt() async throws {
        try await checks.aScreenshotOfThePopupIsAPictureOfIt()
    }

    @Test func aPopupExpiresAfterAboutFiveSecondsAndStaysInTheHistoryWithoutItsActions() async throws {
        try await checks.aPopupExpiresAfterAboutFiveSecondsAndStaysInTheHistoryWithoutItsActions()
    }

    @Test func anIdenticalNotifyWithinASecondIsRefused() async throws {
        try await checks.anIdenticalNotifyWithinASecondIsRefused()
    }

    @Test func theBadgeIsWhatTheLastLauncherEntryUpdateSaidEvenAfterItsSenderLeft() async throws {
        try await checks.theBadgeIsWhatTheLastLauncherEntryUpdateSaidEvenAfterItsSenderLeft()
    }
}

/// The same on KDE Plasma 6.3 (Debian 13's, from the root scripts/debian13-root builds, its probe
/// ported: scripts/desktop-servers/plasma-6/).
@Suite(.serialized, .desktop(.plasma, release: .debian13, installing: .rigEntry))
struct Plasma6RigTests {
    let checks: PlasmaRigChecks

    init() throws {
        checks = try PlasmaRigChecks()
    }

    @Test func listsANotificationWithItsTitleAndItsBodyAsRendered() async throws {
        try await checks.listsANotificationWithItsTitleAndItsBodyAsRendered()
    }

    @Test func aClickThroughThePopupsCodeSendsATokenThenTheDefaultAction() async throws {
        try await checks.aClickThroughThePopupsCodeSendsATokenThenTheDefaultAction()
    }

    @Test func theManagersInvokeActionSendsTheActionAlone() async throws {
        try await checks.theManagersInvokeActionSendsTheActionAlone()
    }

    @Test func aRealPointerClickOnThePopupSendsATokenThenTheDefaultAction() async throws {
        try await checks.aRealPointerClickOnThePopupSendsATokenThenTheDefaultAction()
    }

    @Test func anActionButtonOnThePopupInvokesItsAction() async throws {
        try await checks.anActionButtonOnThePopupInvokesItsAction()
    }

    @Test func aScreenshotOfThePopupIsAPictureOfIt() async throws {
        try await checks.aScreenshotOfThePopupIsAPictureOfIt()
    }

    @Test func aPopupExpiresAfterAboutFiveSecondsAndStaysInTheHistoryWithoutItsActions() async throws {
        try await checks.aPopupExpiresAfterAboutFiveSecondsAndStaysInTheHistoryWithoutItsActions()
    }

    @Test func anIdenticalNotifyWithinASecondIsRefused() async throws {
        try await checks.anIdenticalNotifyWithinASecondIsRefused()
    }

    @Test func theBadgeIsWhatTheLastLauncherEntryUpdateSaidEvenAfterItsSenderLeft() async throws {
        try await checks.theBadgeIsWhatTheLastLauncherEntryUpdateSaidEvenAfterItsSenderLeft()
    }
}

/// The checks of PlasmaRigTests and Plasma6RigTests, each on its suite's session.
struct PlasmaRigChecks {
    let session: DesktopSession
    let plasma: PlasmaShell
    let screen: OnScreen

    init() throws {
        session = try SharedDesktop.session()
        plasma = PlasmaShell(session)
        screen = OnScreen(session)
    }

    func listsANotificationWithItsTitleAndItsBodyAsRendered() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(
            app: "Listed", title: "Listed title", body: "A <b>bold</b> &amp; <i>plain</i> body",
            actions: [("default", "Open"), ("read", "Mark read")], timeout: 0)

        let held = try #require(try await plasma.notifications().first { $0.id == id })
        #expect(held.title == "Listed title")
        #expect(held.body == "A bold & plain body")
        #expect(held.appName == "Listed")
        #expect(held.actions.map(\.key) == ["default", "read"])
        #expect(held.actions.map(\.label) == ["Open", "Mark read"])
        #expect(!held.expired)

        let popup = try await screen.waitForPopup(titled: "Listed title")
        #expect(popup.body == "A bold & plain body")
        // Plasma 6.3's popup header has no named label but its buttons' over AT-SPI, so
        // on-screen finds no application name there: the model's, above, is the check.
        #expect(popup.app == (session.release == .debian12 ? "Listed" : nil))
        #expect(popup.buttons.map(\.label).contains("Mark read"))
        try await client.closeNotification(id)
        try await screen.waitUntilGone(titled: "Listed title")
    }

    func aClickThroughThePopupsCodeSendsATokenThenTheDefaultAction() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Activated", actions: [("default", "Open")], timeout: 0)

        try await plasma.activate(id)

        let token = try await client.next("ActivationToken", id: id)
        let invoked = try await client.next("ActionInvoked", id: id)
        #expect(invoked.arguments == [.uint32(id), .string("default")])
        let plasmashell = try await owner(of: NotificationsInterface.name, on: client.connection)
        #expect(invoked.sender == plasmashell && invoked.destination == nil)
        #expect(token.arguments.last?.stringValue?.isEmpty == false)
        // The popup closes: reason 3, as if the sender had closed it.
        #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(3)])
    }

    func theManagersInvokeActionSendsTheActionAlone() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Invoked over D-Bus", actions: [("default", "Open"), ("read", "Mark read")], timeout: 0)

        try await plasma.managerInvokeAction("read", on: id)

        #expect(try await client.next("ActionInvoked", id: id).arguments == [.uint32(id), .string("read")])
        #expect(!client.received(about: id).contains { $0.member == "ActivationToken" })
        try await client.closeNotification(id)
    }

    func aRealPointerClickOnThePopupSendsATokenThenTheDefaultAction() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Clicked by pointer", body: "on the popup", actions: [("default", "Open")], timeout: 0)

        try await screen.pointerClickBody(ofPopupTitled: "Clicked by pointer")

        try await client.next("ActivationToken", id: id)
        #expect(try await client.next("ActionInvoked", id: id).arguments == [.uint32(id), .string("default")])
        try await screen.waitUntilGone(titled: "Clicked by pointer")
    }

    func anActionButtonOnThePopupInvokesItsAction() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let pressed = try await client.notify(title: "Pressed", actions: [("default", "Open"), ("read", "Mark read")], timeout: 0)
        try await screen.waitForPopup(titled: "Pressed")

        try await screen.pressButton("Mark read", onPopupTitled: "Pressed")

        #expect(try await client.next("ActionInvoked", id: pressed).arguments == [.uint32(pressed), .string("read")])

        let clicked = try await client.notify(title: "Pointer on a button", actions: [("default", "Open"), ("read", "Mark read")], timeout: 0)

        try await screen.pointerClickButton("Mark read", onPopupTitled: "Pointer on a button")

        #expect(try await client.next("ActionInvoked", id: clicked).arguments == [.uint32(clicked), .string("read")])
    }

    func aScreenshotOfThePopupIsAPictureOfIt() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Pictured", body: "A popup worth a picture", timeout: 0)
        let popup = try await screen.waitForPopup(titled: "Pictured")
        let path = FileManager.default.temporaryDirectory.appending(path: "plasma-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }

        try await session.screenshot(to: path, area: popup.area)

        try await expectPicture(path, width: popup.area.width, height: popup.area.height, on: session)
        try await client.closeNotification(id)
    }

    func aPopupExpiresAfterAboutFiveSecondsAndStaysInTheHistoryWithoutItsActions() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        // Not over the popup (where an earlier test's click may have left it): Plasma expires no
        // popup while it is hovered. The middle of the desktop is far from every popup.
        try await session.pointerMove(to: ScreenPoint(x: 640, y: 400))
        let sent = ContinuousClock.now
        let id = try await client.notify(title: "Expiring", actions: [("default", "Open"), ("read", "Mark read")])

        #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(1)])
        let lived = ContinuousClock.now - sent
        // Plasma's default popup timeout, not a speed measurement: well over the time a Notify takes.
        #expect(lived > .seconds(3), "expired after \(lived)")

        let held = try #require(try await plasma.notifications().first { $0.id == id })
        #expect(held.expired)
        #expect(held.actions.isEmpty)
    }

    /// Plasma times the second against the first by its own clock, as each call reaches it: on a
    /// loaded machine two calls sent back to back may reach it more than a second apart (a
    /// fresh-clone run saw the second accepted). What is certain is a call answered less than a
    /// second after the one before it was sent: both reached Plasma within that second, so it
    /// must be refused. Identical calls are sent until one is; each accepted one must have taken
    /// a second or more.
    func anIdenticalNotifyWithinASecondIsRefused() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        var accepted: [UInt32] = []
        var previousSent = ContinuousClock.now
        accepted.append(try await client.notify(app: "Twice", title: "The same", body: "twice", timeout: 0))
        var refused = false
        for _ in 0..<5 where !refused {
            let sent = ContinuousClock.now
            do {
                accepted.append(try await client.notify(app: "Twice", title: "The same", body: "twice", timeout: 0))
                let sincePrevious = ContinuousClock.now - previousSent
                #expect(sincePrevious >= .seconds(1), "an identical Notify was accepted \(sincePrevious) after the one before")
                previousSent = sent
            } catch let error as DBusError where error.name == "org.freedesktop.Notifications.Error.ExcessNotificationGeneration" {
                refused = true
            }
        }
        #expect(refused, "\(accepted.count) identical Notify calls in a row were all accepted")
        for id in accepted { try await client.closeNotification(id) }
    }

    func theBadgeIsWhatTheLastLauncherEntryUpdateSaidEvenAfterItsSenderLeft() async throws {
        let entry = DesktopData.rigEntryName
        let sender = try await session.connect()
        try sender.emitSignal(
            path: "/com/canonical/unity/launcherentry/1", interface: "com.canonical.Unity.LauncherEntry", member: "Update",
            arguments: [.string("application://\(entry).desktop"), .vardict(["count": .int64(7), "count-visible": .bool(true)])])
        // Messages from one connection reach plasmashell in order, and it handles them in order:
        // once this call is answered, the signal has been handled too.
        _ = try await sender.call(
            destination: NotificationsInterface.name, path: NotificationsInterface.path,
            interface: NotificationsInterface.name, member: "GetCapabilities")
        await sender.close()

        let badge = try await plasma.badge(for: entry)
        #expect(badge.count == 7)
        #expect(badge.countVisible)
        let none = try await plasma.badge(for: "no-such-application")
        #expect(none.count == 0 && !none.countVisible)
    }
}

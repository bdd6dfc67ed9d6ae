import DBus
import DesktopSuites
import Foundation
import TestSupport
import Testing

/// mako 1.7 on a headless sway 1.7, read and acted on with makoctl, as its users do: what each
/// Notify, close, action and dismissal was seen to do.
@Suite(.serialized, .desktop(.mako))
struct MakoRigTests {
    let checks: MakoRigChecks

    init() throws {
        checks = try MakoRigChecks()
    }

    @Test func showsANotificationWithItsTextAndActionsAsMakoctlListsIt() async throws {
        try await checks.showsANotificationWithItsTextAndActionsAsMakoctlListsIt()
    }

    @Test func aReplacementKeepsTheIdAndShowsTheNewTextAndActions() async throws {
        try await checks.aReplacementKeepsTheIdAndShowsTheNewTextAndActions()
    }

    @Test func closeNotificationWithdrawsItWithReasonThree() async throws {
        try await checks.closeNotificationWithdrawsItWithReasonThree()
    }

    @Test func everyInvokedActionIsSignalledAndTheNotificationStays() async throws {
        try await checks.everyInvokedActionIsSignalledAndTheNotificationStays()
    }

    @Test func aDismissalClosesItWithReasonTwo() async throws {
        try await checks.aDismissalClosesItWithReasonTwo()
    }

    @Test func getCapabilitiesIsAnsweredTwiceFirstWithTheCapabilities() async throws {
        try await checks.getCapabilitiesIsAnsweredTwiceFirstWithTheCapabilities()
    }

    @Test func waitingForTheListWakesOnMakosOwnAnswers() async throws {
        try await checks.waitingForTheListWakesOnMakosOwnAnswers()
    }

    @Test func aScreenshotIsAPictureOfTheWholeOutput() async throws {
        try await checks.aScreenshotIsAPictureOfTheWholeOutput()
    }
}

/// The same on mako 1.10 on sway 1.10 (Debian 13's, from the root scripts/debian13-root builds).
@Suite(.serialized, .desktop(.mako, release: .debian13))
struct Mako110RigTests {
    let checks: MakoRigChecks

    init() throws {
        checks = try MakoRigChecks()
    }

    @Test func showsANotificationWithItsTextAndActionsAsMakoctlListsIt() async throws {
        try await checks.showsANotificationWithItsTextAndActionsAsMakoctlListsIt()
    }

    @Test func aReplacementKeepsTheIdAndShowsTheNewTextAndActions() async throws {
        try await checks.aReplacementKeepsTheIdAndShowsTheNewTextAndActions()
    }

    @Test func closeNotificationWithdrawsItWithReasonThree() async throws {
        try await checks.closeNotificationWithdrawsItWithReasonThree()
    }

    @Test func everyInvokedActionIsSignalledAndTheNotificationStays() async throws {
        try await checks.everyInvokedActionIsSignalledAndTheNotificationStays()
    }

    @Test func aDismissalClosesItWithReasonTwo() async throws {
        try await checks.aDismissalClosesItWithReasonTwo()
    }

    @Test func getCapabilitiesIsAnsweredTwiceFirstWithTheCapabilities() async throws {
        try await checks.getCapabilitiesIsAnsweredTwiceFirstWithTheCapabilities()
    }

    @Test func waitingForTheListWakesOnMakosOwnAnswers() async throws {
        try await checks.waitingForTheListWakesOnMakosOwnAnswers()
    }

    @Test func aScreenshotIsAPictureOfTheWholeOutput() async throws {
        try await checks.aScreenshotIsAPictureOfTheWholeOutput()
    }
}

/// The checks of MakoRigTests and Mako110RigTests, each on its suite's session.
struct MakoRigChecks {
    let session: DesktopSession
    let mako: Mako

    init() throws {
        session = try SharedDesktop.session()
        mako = Mako(session)
    }

    func showsANotificationWithItsTextAndActionsAsMakoctlListsIt() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(
            title: "Shown", body: "A <b>bold</b> &amp; plain body", actions: [("default", "Open"), ("read", "Mark read")])

        // mako holds it once Notify has returned.
        let shown = try #require(try await mako.notifications().first { $0.id == id })
        #expect(shown.appName == "Rig Test")
        #expect(shown.title == "Shown")
        #expect(shown.body == "A <b>bold</b> &amp; plain body")
        #expect(shown.actions == ["default": "Open", "read": "Mark read"])
        let information = try await client.connection.call(
            destination: NotificationsInterface.name, path: NotificationsInterface.path,
            interface: NotificationsInterface.name, member: "GetServerInformation")
        #expect(information.first?.stringValue == "mako")
        try await mako.dismiss(id)
    }

    func aReplacementKeepsTheIdAndShowsTheNewTextAndActions() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Before", body: "first", actions: [("read", "Mark read")])

        let replaced = try await client.notify(title: "After", body: "second", actions: [("open", "Open")], replacing: id)

        #expect(replaced == id)
        let listed = try await mako.notifications().filter { $0.id == id }
        #expect(listed.map(\.title) == ["After"])
        #expect(listed.first?.body == "second")
        #expect(listed.first?.actions == ["open": "Open"])
        try await mako.dismiss(id)
        // The replacement closed nothing: the first close is the dismissal's.
        #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(2)])
    }

    func closeNotificationWithdrawsItWithReasonThree() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Withdrawn")

        try await client.closeNotification(id)

        #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(3)])
        #expect(try await mako.notifications().allSatisfy { $0.id != id })
    }

    /// The facts behind de-duplicating clicks by (id, action), not by id: mako keeps the
    /// notification after an action, and sends every invocation, a repeated one included.
    func everyInvokedActionIsSignalledAndTheNotificationStays() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Acted on", actions: [("default", "Open"), ("read", "Mark read")])

        try await mako.invoke("default", on: id)
        #expect(try await client.next("ActionInvoked", id: id).arguments == [.uint32(id), .string("default")])
        #expect(try await mako.notifications().contains { $0.id == id })

        try await mako.invoke("read", on: id)
        #expect(try await client.next("ActionInvoked", id: id).arguments == [.uint32(id), .string("read")])
        try await mako.invoke("read", on: id)
        #expect(try await client.next("ActionInvoked", id: id).arguments == [.uint32(id), .string("read")])
        #expect(try await mako.notifications().contains { $0.id == id })
        try await mako.dismiss(id)
        // No action closed it: the first close is the dismissal's.
        #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(2)])
    }

    func aDismissalClosesItWithReasonTwo() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Dismissed", actions: [("default", "Open")])

        try await mako.dismiss(id)

        #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(2)])
        #expect(!client.received(about: id).contains { $0.member == "ActionInvoked" })
        #expect(try await mako.notifications().allSatisfy { $0.id != id })
    }

    /// mako answers GetCapabilities with its list, then once more with an UnknownMethod error
    /// (sd-bus's fallback after its handler already replied): a client takes the first answer.
    func getCapabilitiesIsAnsweredTwiceFirstWithTheCapabilities() async throws {
        let traffic = try await BusTraffic.watch(session, matching: [
            "type='method_call',member='GetCapabilities'", "type='method_return'", "type='error'",
        ])
        defer { Task { await traffic.stop() } }
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }

        let capabilities = try await client.connection.call(
            destination: NotificationsInterface.name, path: NotificationsInterface.path,
            interface: NotificationsInterface.name, member: "GetCapabilities")

        #expect(capabilities.first?.stringArrayValue == [
            "body", "body-markup", "actions", "icon-static", "x-canonical-private-synchronous", "x-dunst-stack-tag",
        ])
        let me = client.connection.uniqueName
        let answers = try await traffic.wait("both answers to GetCapabilities") { messages in
            let answers = messages.filter { $0.answering?.member == "GetCapabilities" && $0.destination == me }
            return answers.count == 2 ? answers : nil
        }
        #expect(answers.map(\.kind) == [.methodReturn, .error])
        #expect(answers.last?.errorName == DBusError.Name.unknownMethod)
    }

    /// What its expiry and every makoctl action above rest on: mako's list changes and the wait
    /// sees it, woken by mako's answer to the call that changed it.
    func waitingForTheListWakesOnMakosOwnAnswers() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        async let listed = mako.waitForNotifications { $0.contains { $0.title == "Waited for" } }
        // The wait may begin after the Notify has been answered: it checks at once.
        let id = try await client.notify(title: "Waited for")

        #expect(try await listed.map(\.id).contains(id))
        try await mako.dismiss(id)
        #expect(try await mako.waitForNotifications { !$0.contains { $0.id == id } }.allSatisfy { $0.id != id })
    }

    func aScreenshotIsAPictureOfTheWholeOutput() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Pictured", body: "A notification worth a picture")
        let path = FileManager.default.temporaryDirectory.appending(path: "mako-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }

        try await session.screenshot(to: path)

        try await expectPicture(path, width: 1280, height: 800, on: session)
        try await mako.dismiss(id)
    }
}

/// mako as sway users usually run it: not started by the session, only its D-Bus `.service`
/// file on the bus, so that the first Notify starts it; and what a kill -9 leaves. Each test has
/// a session of its own (sway and mako start in well under a second).
@Suite(.serialized)
struct MakoOnDemandRigTests {
    @Test func nothingServesUntilANotifyStartsMako() async throws {
        try await DesktopSession.withSession(.mako, activation: .onDemand) { session in
            #expect(try await session.owner() == nil)
            #expect(try await session.isActivatable())

            let client = try await NotificationsClient.connect(to: session)
            defer { Task { await client.close() } }
            let id = try await client.notify(title: "Started on demand")

            #expect(try await session.owner()?.executable == "/usr/bin/mako")
            #expect(try await Mako(session).notifications().map(\.title) == ["Started on demand"])
            #expect(id == 1)
        }
    }

    /// Whatever mako held is gone with it, and the next Notify starts a fresh
    /// one, whose ids begin again at 1: an id of the old mako may name a new notification.
    @Test func afterAKillDashNineTheNextNotifyStartsAFreshMakoWithNothingOfTheOld() async throws {
        try await DesktopSession.withSession(.mako, activation: .onDemand) { session in
            let client = try await NotificationsClient.connect(to: session)
            defer { Task { await client.close() } }
            try await client.notify(title: "Of the first mako")
            try await client.notify(title: "Also of the first mako")
            let first = try #require(try await session.owner())

            try await session.kill(owner: NotificationsInterface.name)

            let id = try await client.notify(title: "Of the second mako")
            let started = try #require(try await session.owner())
            #expect(started.pid != first.pid)
            #expect(id == 1)
            #expect(try await Mako(session).notifications().map(\.title) == ["Of the second mako"])
        }
    }

    /// Without the `.service` file (a sway that runs mako from its config, say), nobody serves
    /// once mako is gone.
    @Test func withoutItsServiceFileAKillDashNineLeavesNobodyToServe() async throws {
        try await DesktopSession.withSession(.mako) { session in
            #expect(try await !session.isActivatable())

            try await session.kill(owner: NotificationsInterface.name)

            let client = try await NotificationsClient.connect(to: session)
            defer { Task { await client.close() } }
            let refusal = await #expect(throws: DBusError.self) { try await client.notify(title: "To nobody") }
            #expect(refusal?.name == DBusError.Name.serviceUnknown)
        }
    }
}

import DBus
import Foundation
import TestSupport
import Testing

/// notification-daemon (GNOME Flashback's server) and xfce4-notifyd, read and clicked on screen
/// over AT-SPI and XTest: what a user of each would see and get.
@Suite(.serialized, .desktop(.notificationDaemon))
struct NotificationDaemonRigTests {
    let session: DesktopSession
    let screen: OnScreen

    init() throws {
        session = try SharedDesktop.session()
        screen = OnScreen(session)
    }

    /// A pointer click on the bubble's close button, the one button without an accessible name.
    /// notification-daemon shows one bubble at a time and keeps one with no timeout until the
    /// user closes it, so every test closes what it showed.
    private func dismiss(_ title: String) async throws {
        try await screen.pointerClickButton("", onPopupTitled: title)
        try await screen.waitUntilGone(titled: title)
    }

    @Test func showsAPopupWithItsTitleAndItsBodyAsRendered() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Shown", body: "A <b>bold</b> &amp; plain body", actions: [("read", "Mark read")], timeout: 0)

        let popup = try await screen.waitForPopup(titled: "Shown")
        #expect(popup.server == "notification-daemon")
        #expect(popup.body == "A bold & plain body")
        #expect(popup.buttons.map(\.label) == ["Mark read", ""])

        try await dismiss("Shown")
        #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(2)])
    }

    @Test func aRealPointerClickOnTheBodyIsTheDefaultAction() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Clicked", body: "its body", actions: [("default", "Open")], timeout: 0)

        try await screen.pointerClickBody(ofPopupTitled: "Clicked")

        let invoked = try await client.next("ActionInvoked", id: id)
        #expect(invoked.arguments == [.uint32(id), .string("default")])
        #expect(invoked.destination == nil)
        try await screen.waitUntilGone(titled: "Clicked")
    }

    @Test func aRealPointerClickOnAnActionButtonInvokesItsAction() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Button", body: "with a button", actions: [("read", "Mark read")], timeout: 0)

        try await screen.pointerClickButton("Mark read", onPopupTitled: "Button")

        #expect(try await client.next("ActionInvoked", id: id).arguments == [.uint32(id), .string("read")])
        try await screen.waitUntilGone(titled: "Button")
    }

    @Test func aScreenshotOfThePopupIsAPictureOfIt() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        try await client.notify(title: "Pictured", body: "A bubble worth a picture", timeout: 0)
        let popup = try await screen.waitForPopup(titled: "Pictured")
        let path = FileManager.default.temporaryDirectory.appending(path: "nd-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }

        try await session.screenshot(to: path, area: popup.area)

        try await expectPicture(path, width: popup.area.width, height: popup.area.height, on: session)
        try await dismiss("Pictured")
    }

    @Test func anIconItCanLoadIsDrawnAndOneItCannotIsNot() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        try await client.notify(title: "With an icon", icon: "file://\(Standin.packageRoot)/packaging/gbnotify.svg", timeout: 0)
        let area = try #require(try await screen.waitForPopup(titled: "With an icon").iconArea)
        // The icon's own blue fill, at any size.
        #expect(try await session.colours(in: area)["#2F5D8A", default: 0] * 4 >= area.width * area.height)
        try await dismiss("With an icon")

        try await client.notify(title: "No icon", icon: "no-such-icon-anywhere", timeout: 0)
        #expect(try await screen.waitForPopup(titled: "No icon").iconArea == nil)
        try await dismiss("No icon")
    }

    @Test func showsOneBubbleAtATimeAndLeavesItOnScreenWhenTheSenderClosesIt() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let first = try await client.notify(title: "First of two", timeout: 0)
        try await client.notify(title: "Second of two", timeout: 0)
        try await screen.waitForPopup(titled: "First of two")
        #expect(try await screen.popups().map(\.title) == ["First of two"])

        try await client.closeNotification(first)

        #expect(try await client.next("NotificationClosed", id: first).arguments == [.uint32(first), .uint32(3)])
        #expect(try await screen.popups().map(\.title) == ["First of two"])
        try await dismiss("First of two")
        try await screen.waitForPopup(titled: "Second of two")
        try await dismiss("Second of two")
    }
}

@Suite(.serialized, .desktop(.xfce4Notifyd))
struct Xfce4NotifydRigTests {
    let session: DesktopSession
    let screen: OnScreen

    init() throws {
        session = try SharedDesktop.session()
        screen = OnScreen(session)
    }

    @Test func showsAPopupWithItsTitleItsBodyAndTheDefaultActionAsAButton() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Shown", body: "A <b>bold</b> &amp; plain body", actions: [("default", "Open"), ("read", "Mark read")], timeout: 0)

        let popup = try await screen.waitForPopup(titled: "Shown")
        #expect(popup.server == "xfce4-notifyd")
        #expect(popup.body == "A bold & plain body")
        #expect(popup.buttons.map(\.label) == ["Open", "Mark read"])
        try await client.closeNotification(id)
        try await screen.waitUntilGone(titled: "Shown")
    }

    @Test func anActionButtonPressedOrClickedInvokesItsAction() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let pressed = try await client.notify(title: "Pressed", actions: [("read", "Mark read")], timeout: 0)
        try await screen.waitForPopup(titled: "Pressed")

        try await screen.pressButton("Mark read", onPopupTitled: "Pressed")

        #expect(try await client.next("ActionInvoked", id: pressed).arguments == [.uint32(pressed), .string("read")])

        let clicked = try await client.notify(title: "Clicked", actions: [("default", "Open")], timeout: 0)

        try await screen.pointerClickButton("Open", onPopupTitled: "Clicked")

        #expect(try await client.next("ActionInvoked", id: clicked).arguments == [.uint32(clicked), .string("default")])
    }

    @Test func aRealPointerClickOnTheBodyOnlyDismisses() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Body clicked", body: "its body", actions: [("default", "Open")], timeout: 0)

        try await screen.pointerClickBody(ofPopupTitled: "Body clicked")

        #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(2)])
        #expect(!client.received(about: id).contains { $0.member == "ActionInvoked" })
    }

    @Test func aScreenshotOfThePopupIsAPictureOfIt() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Pictured", body: "A bubble worth a picture", timeout: 0)
        let popup = try await screen.waitForPopup(titled: "Pictured")
        let path = FileManager.default.temporaryDirectory.appending(path: "xfce-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }

        try await session.screenshot(to: path, area: popup.area)

        try await expectPicture(path, width: popup.area.width, height: popup.area.height, on: session)
        try await client.closeNotification(id)
    }
}

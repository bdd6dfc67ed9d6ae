import DBus
import DesktopSuites
import Foundation
import TestSupport
import Testing

/// The GNOME Shell rig against plain clients: what it lists, clicks and pictures is GNOME's own.
/// No pointer moves in this session: GNOME counts its user as idle, so banners stay up.
@Suite(.serialized, .desktop(.gnomeShell, installing: .rigEntry))
struct GnomeShellRigTests {
    let session: DesktopSession
    let gnome: GnomeShell

    init() throws {
        session = try SharedDesktop.session()
        gnome = GnomeShell(session)
    }

    /// No app_icon and no desktop-entry: GNOME 43 gives it its generic icon.
    @Test func listsANotificationWithItsTitleAndItsBodyAsRendered() async throws {
        try await Self.expectListedWithItsTitleAndItsBodyAsRendered(on: session, gnome, icon: "dialog-information")
    }

    /// The same on GNOME Shell 43 and 48 (`GnomeShell48RigTests`); `icon` is the notification's
    /// own without app_icon or desktop-entry.
    static func expectListedWithItsTitleAndItsBodyAsRendered(
        on session: DesktopSession, _ gnome: GnomeShell, icon: String?
    ) async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(
            app: "Listed", title: "Listed title", body: "A <b>bold</b> &amp; <i>plain</i> body",
            actions: [("default", "Open"), ("read", "Mark read")])

        let listed = try #require(try await gnome.notifications().first { $0.id == id })
        #expect(listed.title == "Listed title")
        #expect(listed.body == "A bold & plain body")
        #expect(listed.bodyMarkup == "A <b>bold</b> &amp; <i>plain</i> body")
        #expect(listed.appName == "Listed")
        #expect(listed.actions.map(\.key) == ["default", "read"])
        #expect(listed.actions.map(\.label) == ["Open", "Mark read"])
        #expect(listed.icon == icon)
    }

    @Test func theDesktopEntryHintResolvesAnInstalledApplication() async throws {
        try await Self.expectTheDesktopEntryHintResolved(on: session, gnome)
    }

    /// The same on GNOME Shell 43 and 48 (`GnomeShell48RigTests`).
    static func expectTheDesktopEntryHintResolved(on session: DesktopSession, _ gnome: GnomeShell) async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(
            app: "Whatever", title: "With an entry", hints: ["desktop-entry": .string(DesktopData.rigEntryName)])

        let listed = try #require(try await gnome.notifications().first { $0.id == id })
        #expect(listed.sourceApp == "\(DesktopData.rigEntryName).desktop")
        #expect(listed.source == "Rig Test")
    }

    @Test func aClickThroughTheShellIsSentByGnomeShellToAllAndByItsHelperToTheSender() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Activated", actions: [("default", "Open")])

        try await gnome.activate(id)

        let first = try await client.next("ActionInvoked", id: id)
        let second = try await client.next("ActionInvoked", id: id)
        let shell = try await owner(of: "org.gnome.Shell", on: client.connection)
        let helper = try await owner(of: "org.freedesktop.Notifications", on: client.connection)
        #expect(Set([first.sender, second.sender]) == [shell, helper])
        for signal in [first, second] {
            #expect(signal.arguments == [.uint32(id), .string("default")])
            // gnome-shell broadcasts; the gjs helper sends to the caller of Notify alone.
            #expect(signal.destination == (signal.sender == shell ? nil : client.connection.uniqueName))
        }
        // Then it is gone, dismissed.
        #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(2)])
    }

    @Test func anActionButtonOnTheBannerInvokesItsAction() async throws {
        try await gnome.clear()
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Pressed", actions: [("default", "Open"), ("read", "Mark read")])
        let banner = try await gnome.waitForBanner { $0.id == id && $0.isShown }
        #expect(banner.title == "Pressed")

        try await gnome.pressButton("Mark read", on: id)

        #expect(try await client.next("ActionInvoked", id: id).arguments == [.uint32(id), .string("read")])
    }

    @Test func aScreenshotOfTheBannerIsAPictureOfIt() async throws {
        try await gnome.clear()
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Pictured", body: "A banner worth a picture")
        let area = try #require(try await gnome.waitForBanner { $0.id == id && $0.isShown }.area)
        let path = FileManager.default.temporaryDirectory.appending(path: "gnome-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }

        try await gnome.screenshot(to: path, area: area)

        try await expectPicture(path, width: area.width, height: area.height, on: session)
    }

    @Test func aFourthNotificationOfOneSenderEvictsItsOldestAsExpired() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        var ids: [UInt32] = []
        for n in 1...4 {
            ids.append(try await client.notify(app: "Evicting", title: "Evicting \(n)"))
        }

        #expect(try await client.next("NotificationClosed", id: ids[0]).arguments == [.uint32(ids[0]), .uint32(1)])
        let kept = try await gnome.notifications().filter { $0.appName == "Evicting" }
        #expect(kept.map(\.id) == Array(ids[1...]))
    }

    @Test func notificationsOfOneAppFromDifferentProcessesGoToSourcesOfTheirOwn() async throws {
        // GNOME keys its sources by app name and the sender's process: four notify-send
        // processes make four sources of one notification each, and nothing is evicted.
        for n in 1...4 {
            let sent = try await session.run(["notify-send", "--app-name=Four processes", "Process \(n)"])
            try #require(sent.status == 0, "notify-send: \(sent.stderr)")
        }

        let held = try await gnome.notifications().filter { $0.appName == "Four processes" }
        #expect(held.map(\.title) == (1...4).map { "Process \($0)" })
    }
}

extension GnomeShellRigTests {
    @Test func afterItsHelperIsKilledGnomeShellKeepsTheNotificationsButNobodyServesUntilTheHelperIsStartedAgain() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let before = try await client.notify(app: "Surviving", title: "Before the crash")

        try await session.kill(owner: NotificationsInterface.name)

        #expect(try await gnome.notifications().contains { $0.id == before })
        // Only org.gnome.Shell.Notifications is D-Bus activatable; gnome-shell starts it once,
        // at its own start, and not again after a crash.
        await #expect {
            try await client.notify(app: "Surviving", title: "Nobody to show it")
        } throws: { error in
            (error as? DBusError)?.name == DBusError.Name.serviceUnknown
        }
        _ = try await client.connection.call(
            destination: "org.gnome.Shell.Notifications", path: NotificationsInterface.path,
            interface: NotificationsInterface.name, member: "GetServerInformation")
        let owners = try await client.connection.watchNameOwner(NotificationsInterface.name)
        try await withDeadline(.seconds(15), "the helper to own \(NotificationsInterface.name) again") {
            for await owner in owners where owner != nil { return }
        }
        let after = try await client.notify(app: "Surviving", title: "After the crash")
        #expect(try await gnome.notifications().filter { $0.appName == "Surviving" }.map(\.id) == [before, after])
    }
}

extension GnomeShellRigTests {
    @Test func anotherSenderMayReplaceANotificationOnlyOnceItsSenderHasLeftTheBus() async throws {
        let first = try await NotificationsClient.connect(to: session)
        let id = try await first.notify(app: "Adopted", title: "First sender's")
        let second = try await NotificationsClient.connect(to: session)
        defer { Task { await second.close() } }

        // GNOME's helper remembers which connection sent each id while it is on the bus.
        await #expect {
            try await second.notify(app: "Adopted", title: "Taken over", replacing: id)
        } throws: { error in
            (error as? DBusError)?.name == DBusError.Name.invalidArgs
        }
        await first.close()
        let owners = try await second.connection.watchNameOwner(first.connection.uniqueName)
        try await withDeadline(.seconds(15), "the first sender to leave") {
            for await owner in owners where owner == nil { return }
        }

        #expect(try await second.notify(app: "Adopted", title: "Taken over", replacing: id) == id)
        #expect(try await gnome.notifications().filter { $0.appName == "Adopted" }.map(\.title) == ["Taken over"])
    }
}

/// Real pointer clicks, in a GNOME Shell of their own: after input GNOME counts its user as
/// active, and a banner shown then hides after 4 s unless the pointer is on it.
@Suite(.serialized, .desktop(.gnomeShell, installing: .rigEntry))
struct GnomeShellPointerRigTests {
    let checks: GnomeShellPointerRigChecks

    init() throws {
        checks = try GnomeShellPointerRigChecks()
    }

    @Test func aRealPointerClickOnTheBannerActivatesIt() async throws {
        try await checks.aRealPointerClickOnTheBannerActivatesIt()
    }

    @Test func aRealPointerClickOnAnActionButtonInvokesItsAction() async throws {
        try await checks.aRealPointerClickOnAnActionButtonInvokesItsAction()
    }
}

/// The same on GNOME Shell 48 (Debian 13's, from the root scripts/debian13-root builds): Clutter's
/// virtual pointer through 48's probe.
@Suite(.serialized, .desktop(.gnomeShell, release: .debian13, installing: .rigEntry))
struct GnomeShell48PointerRigTests {
    let checks: GnomeShellPointerRigChecks

    init() throws {
        checks = try GnomeShellPointerRigChecks()
    }

    @Test func aRealPointerClickOnTheBannerActivatesIt() async throws {
        try await checks.aRealPointerClickOnTheBannerActivatesIt()
    }

    @Test func aRealPointerClickOnAnActionButtonInvokesItsAction() async throws {
        try await checks.aRealPointerClickOnAnActionButtonInvokesItsAction()
    }
}

/// The checks of GnomeShellPointerRigTests and GnomeShell48PointerRigTests, each on its suite's session.
struct GnomeShellPointerRigChecks {
    let session: DesktopSession
    let gnome: GnomeShell

    init() throws {
        session = try SharedDesktop.session()
        gnome = GnomeShell(session)
    }

    func aRealPointerClickOnTheBannerActivatesIt() async throws {
        try await gnome.clear()
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Clicked by pointer", body: "on the banner", actions: [("default", "Open")])

        try await gnome.pointerClickBanner(id)

        #expect(try await client.next("ActionInvoked", id: id).arguments == [.uint32(id), .string("default")])
    }

    func aRealPointerClickOnAnActionButtonInvokesItsAction() async throws {
        try await gnome.clear()
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let id = try await client.notify(title: "Pointer on a button", actions: [("default", "Open"), ("read", "Mark read")])

        try await gnome.pointerClickButton("Mark read", on: id)

        #expect(try await client.next("ActionInvoked", id: id).arguments == [.uint32(id), .string("read")])
    }
}

import DBus
import DesktopSuites
import Foundation
import TestSupport
import Testing

/// GNOME Shell 48 (Debian 13, from the root `scripts/debian13-root` builds) against plain
/// clients, through the same probe as 43's (its ES-module port). The two behaviours gbnotifyd's
/// table of servers (`ServerQuirks`) holds for 48 are proven here: 10 kept per application, and
/// every notification of a sender withdrawn when it leaves the bus. (43's: 3 kept,
/// `GnomeShellRigTests.aFourthNotificationOfOneSenderEvictsItsOldestAsExpired`; and kept after
/// its sender left, `anotherSenderMayReplaceANotificationOnlyOnceItsSenderHasLeftTheBus`.)
@Suite(.serialized, .desktop(.gnomeShell, release: .debian13, installing: .rigEntry))
struct GnomeShell48RigTests {
    let session: DesktopSession
    let gnome: GnomeShell

    init() throws {
        session = try SharedDesktop.session()
        gnome = GnomeShell(session)
    }

    @Test func namesItselfGnomeShell48() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        let reply = try await client.connection.call(
            destination: NotificationsInterface.name, path: NotificationsInterface.path,
            interface: NotificationsInterface.name, member: "GetServerInformation")
        #expect(reply.first?.stringValue == "gnome-shell")
        #expect(reply.dropFirst(2).first?.stringValue?.hasPrefix("48.") == true)
    }

    /// No app_icon and no desktop-entry: 48 gives it no icon of its own (the source's shows).
    @Test func listsANotificationWithItsTitleAndItsBodyAsRendered() async throws {
        try await GnomeShellRigTests.expectListedWithItsTitleAndItsBodyAsRendered(on: session, gnome, icon: nil)
    }

    @Test func theDesktopEntryHintResolvesAnInstalledApplication() async throws {
        try await GnomeShellRigTests.expectTheDesktopEntryHintResolved(on: session, gnome)
    }

    @Test func anEleventhNotificationOfOneApplicationEvictsItsOldestAsExpired() async throws {
        let client = try await NotificationsClient.connect(to: session)
        defer { Task { await client.close() } }
        var ids: [UInt32] = []
        for n in 1...11 {
            ids.append(try await client.notify(app: "Evicting", title: "Evicting \(n)"))
        }

        #expect(try await client.next("NotificationClosed", id: ids[0]).arguments == [.uint32(ids[0]), .uint32(1)])
        let kept = try await gnome.notifications().filter { $0.appName == "Evicting" }
        #expect(kept.map(\.id) == Array(ids[1...]))
        #expect(kept.count == 10)
    }

    @Test func aSenderLeavingTheBusTakesItsApplicationsNotificationsAlong() async throws {
        let watcher = try await NotificationsClient.connect(to: session)
        defer { Task { await watcher.close() } }
        let leaving = try await NotificationsClient.connect(to: session)
        let entry: [String: DBusValue] = ["desktop-entry": .string(DesktopData.rigEntryName)]
        let ids = [
            try await leaving.notify(app: "Leaving", title: "Leaving 1", hints: entry),
            try await leaving.notify(app: "Leaving", title: "Leaving 2", hints: entry),
        ]
        try await gnome.waitForNotifications { found in ids.allSatisfy { id in found.contains { $0.id == id } } }

        await leaving.close()

        try await gnome.waitForNotifications { found in !found.contains { $0.appName == "Leaving" } }
        // Gone for good: replacing one shows a new notification under a new id.
        let again = try await watcher.notify(app: "Leaving", title: "Replacing a gone one", hints: entry, replacing: ids[0])
        #expect(!ids.contains(again))
    }

    /// Only an application's: a sender the shell resolved to none (no entry on its PATH, as a
    /// build tree's) leaves its notifications behind, as 43 did.
    @Test func aSenderOfNoApplicationLeavesItsNotificationsBehind() async throws {
        let leaving = try await NotificationsClient.connect(to: session)
        let id = try await leaving.notify(app: "No such application", title: "Left behind")
        try await gnome.waitForNotifications { found in found.contains { $0.id == id } }
        let owners = try await session.connect()
        defer { Task { await owners.close() } }
        let gone = try await owners.watchNameOwner(leaving.connection.uniqueName)

        await leaving.close()
        try await withDeadline(.seconds(15), "the sender to leave") {
            for await owner in gone where owner == nil { return }
        }

        // Told by a Notify after the leaving, which the shell handles after its name watch.
        let watcher = try await NotificationsClient.connect(to: session)
        defer { Task { await watcher.close() } }
        let later = try await watcher.notify(app: "Later", title: "After the leaving")
        let found = try await gnome.waitForNotifications { found in found.contains { $0.id == later } }
        #expect(found.contains { $0.id == id && $0.title == "Left behind" })
    }
}

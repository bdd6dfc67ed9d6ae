import DesktopSuites
import TestSupport
import Testing

/// The tray rigs (`TrayWatcher`, `TrayHost`) against a plain item written out by hand: each
/// host's watcher takes it, and the host draws it where the rig looks.
enum TrayRigTests {
    static func theHostShowsAPlainItem(_ session: DesktopSession) async throws {
        let item = try await PlainTrayItem.register(on: session)
        let service = item.connection.uniqueName
        try await TrayWatcher(session).waitForItem(of: service)
        let shown = try await TrayHost(session).waitForItem(
            of: service, titled: session.server == .xfce4Notifyd ? nil : PlainTrayItem.title, colour: PlainTrayItem.colour)
        #expect(shown.area.width > 0 && shown.area.height > 0)
        await item.connection.close()
        try await TrayWatcher(session).waitUntilGone(service)
    }

    @Suite(.serialized, .desktop(.plasma, tray: true))
    struct Plasma {
        @Test func theSystemTrayShowsAPlainItem() async throws {
            try await TrayRigTests.theHostShowsAPlainItem(try SharedDesktop.session())
        }
    }

    @Suite(.serialized, .desktop(.xfce4Notifyd, tray: true))
    struct Xfce {
        @Test func thePanelsStatusTrayShowsAPlainItem() async throws {
            try await TrayRigTests.theHostShowsAPlainItem(try SharedDesktop.session())
        }
    }

    @Suite(.serialized, .desktop(.gnomeShell, tray: true))
    struct Gnome {
        @Test func theAppIndicatorExtensionShowsAPlainItem() async throws {
            try await TrayRigTests.theHostShowsAPlainItem(try SharedDesktop.session())
        }
    }
}

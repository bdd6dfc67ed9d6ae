import DesktopSuites
import TestSupport
import Testing

/// The tray item on Xfce's panel 4.18 with its Status Tray plugin: read from the host, chosen from through its own menu.
@Suite(.serialized, .desktop(.xfce4Notifyd, tray: true))
struct XfceTrayTests {
    let scenarios: TrayScenarios

    init() throws {
        scenarios = TrayScenarios(try SharedDesktop.session())
    }

    @Test func theItemAppears() async throws {
        try await scenarios.theItemAppears()
    }

    @Test func theCountChanges() async throws {
        try await scenarios.theCountChanges()
    }

    @Test func choosingANoticeOpensIt() async throws {
        try await scenarios.choosingANoticeOpensIt()
    }

    @Test func markAllReadMarksTheListedRows() async throws {
        try await scenarios.markAllReadMarksTheListedRows()
    }

    @Test func aNewNoticeIsShownInTheMenuTheHostFetchesAgain() async throws {
        try await scenarios.aNewNoticeIsShownInTheMenuTheHostFetchesAgain()
    }

    @Test func theItemSurvivesTheHostsRestart() async throws {
        try await scenarios.theItemSurvivesTheHostsRestart()
    }
}

extension XfceTrayTests {
    @Test func openingTheMenuEndsTheAttention() async throws {
        try await scenarios.openingTheMenuEndsTheAttention()
    }
}

extension XfceTrayTests {
    @Test func doctorNamesTheHost() async throws {
        // The Status Tray runs in a wrapper process of its own, named for the plugin.
        try await scenarios.doctorNamesTheHost("panel-1-systray")
    }
}

extension XfceTrayTests {
    @Test func theREADMEPicture() async throws {
        // The menu opens below the item.
        try await scenarios.theREADMEPicture("screenshot-tray-xfce.png") { item in
            ScreenArea(x: max(0, item.x), y: 0, width: 460, height: 320)
        }
    }
}

/// The tray item on Xfce's panel 4.20 (Debian 13's, from the root scripts/debian13-root builds),
/// whose plugins run in a wrapper process named for the wrapper, not the plugin.
@Suite(.serialized, .desktop(.xfce4Notifyd, release: .debian13, tray: true))
struct Xfce420TrayTests {
    let scenarios: TrayScenarios

    init() throws {
        scenarios = TrayScenarios(try SharedDesktop.session())
    }

    @Test func theItemAppears() async throws {
        try await scenarios.theItemAppears()
    }

    @Test func theCountChanges() async throws {
        try await scenarios.theCountChanges()
    }

    @Test func choosingANoticeOpensIt() async throws {
        try await scenarios.choosingANoticeOpensIt()
    }

    @Test func markAllReadMarksTheListedRows() async throws {
        try await scenarios.markAllReadMarksTheListedRows()
    }

    @Test func aNewNoticeIsShownInTheMenuTheHostFetchesAgain() async throws {
        try await scenarios.aNewNoticeIsShownInTheMenuTheHostFetchesAgain()
    }

    @Test func theItemSurvivesTheHostsRestart() async throws {
        try await scenarios.theItemSurvivesTheHostsRestart()
    }

    @Test func openingTheMenuEndsTheAttention() async throws {
        try await scenarios.openingTheMenuEndsTheAttention()
    }

    @Test func doctorNamesTheHost() async throws {
        try await scenarios.doctorNamesTheHost("wrapper-2.0")
    }
}

extension XfceTrayTests {
    @Test func aBacklogIsListed() async throws {
        try await scenarios.aBacklogIsListed()
    }
}

extension Xfce420TrayTests {
    @Test func aBacklogIsListed() async throws {
        try await scenarios.aBacklogIsListed()
    }
}

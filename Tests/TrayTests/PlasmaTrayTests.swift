import DesktopSuites
import TestSupport
import Testing

/// The tray item on Plasma 5.27's system tray (plasmashell, kded5's watcher): read from the host, chosen from through its own menu.
@Suite(.serialized, .desktop(.plasma, tray: true))
struct PlasmaTrayTests {
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

extension PlasmaTrayTests {
    /// Plasma's watcher is kded5's, apart from plasmashell: it can go alone.
    @Test func theItemRegistersWithANewWatcher() async throws {
        try await scenarios.theItemRegistersWithANewWatcher()
    }
}

extension PlasmaTrayTests {
    @Test func openingTheMenuEndsTheAttention() async throws {
        try await scenarios.openingTheMenuEndsTheAttention()
    }
}

extension PlasmaTrayTests {
    @Test func doctorNamesTheHost() async throws {
        try await scenarios.doctorNamesTheHost("kded5")
    }
}

extension PlasmaTrayTests {
    @Test func theREADMEPicture() async throws {
        // The menu opens above the item, its right edge at the screen's.
        try await scenarios.theREADMEPicture("screenshot-tray-plasma.png") { item in
            ScreenArea(x: 820, y: max(0, item.y - 364), width: 460, height: 400)
        }
    }
}

/// The tray item on Plasma 6.3's system tray (Debian 13's, from the root scripts/debian13-root
/// builds; the watcher is kded6's).
@Suite(.serialized, .desktop(.plasma, release: .debian13, tray: true))
struct Plasma6TrayTests {
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
        try await scenarios.doctorNamesTheHost("kded6")
    }
}

extension PlasmaTrayTests {
    @Test func aBacklogIsListed() async throws {
        try await scenarios.aBacklogIsListed()
    }
}

extension Plasma6TrayTests {
    @Test func aBacklogIsListed() async throws {
        try await scenarios.aBacklogIsListed()
    }
}

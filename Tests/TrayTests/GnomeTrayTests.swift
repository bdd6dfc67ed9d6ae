import DesktopSuites
import TestSupport
import Testing

/// The tray item on GNOME Shell 43 with the AppIndicator extension: read from the host, chosen from through its own menu.
@Suite(.serialized, .desktop(.gnomeShell, tray: true))
struct GnomeTrayTests {
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

extension GnomeTrayTests {
    /// The labels as the extension shows them: an underscore is a mnemonic in dbusmenu, so the
    /// tray doubles it, and the host shows one. (The extension, version 46, takes out only the
    /// first underscore of a label that stands before another character, so from a second
    /// doubled one on it shows two: a host's quirk, pinned here.)
    @Test func theMenuShowsLabelsAsWritten() async throws {
        let session = scenarios.session
        try await TrayOnDesktop.with(on: session) { tray in
            let service = tray.connection.uniqueName
            await tray.tray.show(TrayOnDesktop.state(unread: 1, [TrayOnDesktop.row(5, repo: "krz/my_repo", actor: "a_b")]))
            let item = try await scenarios.host.waitForItem(of: service, titled: "1 unread on cmc@gitbay.org")
            try await scenarios.host.openMenu(of: item, service: service)
            let labels = try await scenarios.host.menuLabels(of: service, atLeast: 6)
            #expect(labels.first == "krz/my_repo — a__b opened issue #5")
            #expect(labels.filter { !$0.isEmpty } == [
                "krz/my_repo — a__b opened issue #5", "Mark all read", "Snooze for 1 hour", "Snooze until tomorrow 08:00",
                "Resume notifications", "Open inbox",
            ])
            try await scenarios.host.closeMenu(service: service)
        }
    }

    /// The extension holds the item's status: NeedsAttention while a notice is new, Active once
    /// the menu was opened.
    @Test func aNewNoticeNeedsAttentionUntilTheMenuOpens() async throws {
        let session = scenarios.session
        try await TrayOnDesktop.with(on: session) { tray in
            let service = tray.connection.uniqueName
            await tray.tray.show(TrayOnDesktop.state(unread: 3, []))
            let active = try await scenarios.host.waitForItem(of: service, titled: "3 unread on cmc@gitbay.org")
            #expect(active.status == "Active")
            await tray.tray.show(TrayScenarios.seven)
            let attention = try await scenarios.host.waitForItem(of: service, titled: "7 unread on cmc@gitbay.org")
            try await scenarios.host.waitForStatus("NeedsAttention", of: service)
            try await scenarios.host.openMenu(of: attention, service: service)
            try await scenarios.host.waitForStatus("Active", of: service)
            try await scenarios.host.closeMenu(service: service)
        }
    }
}

extension GnomeTrayTests {
    @Test func openingTheMenuEndsTheAttention() async throws {
        try await scenarios.openingTheMenuEndsTheAttention()
    }
}

extension GnomeTrayTests {
    @Test func doctorNamesTheHost() async throws {
        try await scenarios.doctorNamesTheHost("gnome-shell")
    }
}

extension GnomeTrayTests {
    @Test func theREADMEPicture() async throws {
        // The menu drops from the top bar under the item.
        try await scenarios.theREADMEPicture("screenshot-tray-gnome.png") { item in
            ScreenArea(x: max(0, min(item.x + item.width + 78, 1280) - 460), y: 0, width: 460, height: 540)
        }
    }
}

/// The tray item on GNOME Shell 48 with Debian 13's AppIndicator extension (from the root
/// scripts/debian13-root builds).
@Suite(.serialized, .desktop(.gnomeShell, release: .debian13, tray: true))
struct Gnome48TrayTests {
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

extension GnomeTrayTests {
    @Test func aBacklogIsListed() async throws {
        try await scenarios.aBacklogIsListed()
    }
}

extension Gnome48TrayTests {
    @Test func aBacklogIsListed() async throws {
        try await scenarios.aBacklogIsListed()
    }
}

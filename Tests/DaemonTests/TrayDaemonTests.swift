import DBus
import DesktopSuites
import Foundation
import PushCore
import TestSupport
import Testing

/// The real gbnotifyd's tray item on Xfce's panel (its Status Tray plugin).
@Suite(.serialized, .desktop(.xfce4Notifyd, tray: true))
struct XfceTrayDaemonTests {
    @Test func aNoticeChosenInTheMenuOpensAndMarkAllReadMarksThemOnTheServer() async throws {
        try await TrayDaemonScenarios.aNoticeChosenInTheMenuOpensAndMarkAllReadMarksThemOnTheServer()
    }

    @Test func aSnoozeFromTheMenuHoldsPopupsUntilResumeThenOneSummaryShows() async throws {
        try await TrayDaemonScenarios.aSnoozeFromTheMenuHoldsPopupsUntilResumeThenOneSummaryShows()
    }

    @Test func whatWasUnreadBeforeTheStartIsListedInTheMenu() async throws {
        try await TrayDaemonScenarios.whatWasUnreadBeforeTheStartIsListedInTheMenu()
    }

    /// When the last snooze runs out, the menu's Resume greys out by itself: no poll, no
    /// choice in the menu, only the time.
    @Test func resumeIsOfferedWhileSnoozedAndGreysOutWhenTheSnoozeRunsOut() async throws {
        try await DaemonOnDesktop.run { desktop in
            try await desktop.show(repo: "krz/gitbay", number: 12)
            let service = try await TrayDaemonScenarios.daemonService(on: desktop.session)
            // A snooze of every account ending 3 s from now, as `gbnotifyctl snooze` writes it,
            // read at the reload.
            var record = NoiseRecord()
            record.snooze(nil, until: Int64(Date().timeIntervalSince1970) + 3, now: Int64(Date().timeIntervalSince1970))
            try JSONEncoder().encode(record).write(to: URL(fileURLWithPath: desktop.home.stateDirectory + "/noise.json"))
            desktop.poll()
            try await desktop.daemon.waitForEvent("a reload") { $0 == .reloading }
            try await Self.waitForResume(enabled: true, of: service, on: desktop.session)
            try await Self.waitForResume(enabled: false, of: service, on: desktop.session)
        }
    }

    /// A program in a Flatpak sandbox that finds the item cannot click it or choose in its menu
    /// for the user: `Activate` and `Event` are refused, and nothing opens.
    @Test func aCallerInAFlatpakSandboxCanNeitherClickTheItemNorChooseInItsMenu() async throws {
        try await DaemonOnDesktop.run { desktop in
            try await desktop.show(repo: "krz/gitbay", number: 12)
            let service = try await TrayDaemonScenarios.daemonService(on: desktop.session)
            let scratch = URL(fileURLWithPath: desktop.home.directory.path).appendingPathComponent("sandbox")
            let activate = try await SandboxedCall.gdbus(
                ["--dest", service, "--object-path", "/StatusNotifierItem", "--method", "org.kde.StatusNotifierItem.Activate", "0", "0"],
                environment: desktop.session.environment, scratch: scratch)
            // The menu's first item is the notice: what a host's click on it sends.
            let event = try await SandboxedCall.gdbus(
                ["--dest", service, "--object-path", "/MenuBar", "--method", "com.canonical.dbusmenu.Event", "1", "clicked", "<0>", "0"],
                environment: desktop.session.environment, scratch: scratch)
            for refused in [activate, event] {
                #expect(refused.status != 0)
                #expect(refused.stderr.contains("org.freedesktop.DBus.Error.AccessDenied"), "\(refused.stderr)")
                #expect(refused.stderr.contains("the caller runs in a Flatpak sandbox"), "\(refused.stderr)")
            }
            try await desktop.daemon.waitForLine(containing: "refused Activate from")
            #expect(try await !desktop.browser.launchArrives(within: 2))
        }
    }

    /// Asks the menu's layout, as a host does, until "Resume notifications" is `enabled`.
    static func waitForResume(enabled: Bool, of service: String, on session: DesktopSession) async throws {
        try await session.withConnection { client in
            try await withDeadline(.seconds(15), "Resume notifications \(enabled ? "enabled" : "greyed out")") {
                while true {
                    let reply = try await client.call(
                        destination: service, path: "/MenuBar", interface: "com.canonical.dbusmenu", member: "GetLayout",
                        arguments: [.int32(0), .int32(-1), .stringArray([])])
                    let children = reply.last?.structValue?[2].arrayValue?.compactMap { $0.variantValue?.structValue } ?? []
                    let resume = children.map { $0[1].vardictValue ?? [:] }.first { $0["label"] == .string("Resume notifications") }
                    if let resume, (resume["enabled"] != .bool(false)) == enabled { return }
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
        }
    }
}

/// The real gbnotifyd's tray item in Plasma 5.27's system tray.
@Suite(.serialized, .desktop(.plasma, tray: true))
struct PlasmaTrayDaemonTests {
    @Test func aNoticeChosenInTheMenuOpensAndMarkAllReadMarksThemOnTheServer() async throws {
        try await TrayDaemonScenarios.aNoticeChosenInTheMenuOpensAndMarkAllReadMarksThemOnTheServer()
    }

    @Test func aSnoozeFromTheMenuHoldsPopupsUntilResumeThenOneSummaryShows() async throws {
        try await TrayDaemonScenarios.aSnoozeFromTheMenuHoldsPopupsUntilResumeThenOneSummaryShows()
    }
}

/// The tray item fed by the daemon's own polls, its menu's choices carried out by the daemon: a
/// notice opened as a click on its notification opens it, Mark all read on the server, a snooze
/// that holds popups and a resume that ends it.
enum TrayDaemonScenarios {
    static func aNoticeChosenInTheMenuOpensAndMarkAllReadMarksThemOnTheServer() async throws {
        try await DaemonOnDesktop.run { desktop in
            let first = try await desktop.show(repo: "krz/gitbay", number: 12)
            let second = try await desktop.show(repo: "krz/docs", actor: "bo", summary: "opened issue #11", number: 11)
            let (host, service) = (TrayHost(desktop.session), try await daemonService(on: desktop.session))
            let title = self.title("2 unread on \(desktop.name)", on: desktop.session)
            let item = try await host.waitForItem(of: service, titled: title)

            try await host.openMenu(of: item, service: service)
            try await host.choose(position: 1, label: "krz/docs — bo opened issue #11", service: service)
            #expect(try await desktop.browser.nextLaunch().arguments == [desktop.url("krz/docs/issues/11")])

            try await host.openMenu(of: item, service: service)
            try await host.choose(position: 3, label: "Mark all read", service: service)
            try await desktop.daemon.waitForMarkedRead([second.row, first.row], of: desktop.account)
            #expect(try await desktop.readAt(first.row) != nil)
            #expect(try await desktop.readAt(second.row) != nil)
            // Nothing unread: the item is tucked away.
            try await host.waitUntilNotShown(service, titled: title)
        }
    }

    static func aSnoozeFromTheMenuHoldsPopupsUntilResumeThenOneSummaryShows() async throws {
        try await DaemonOnDesktop.run { desktop in
            try await desktop.show(repo: "krz/gitbay", number: 12)
            let (host, service) = (TrayHost(desktop.session), try await daemonService(on: desktop.session))
            let item = try await host.waitForItem(of: service, titled: title("1 unread on \(desktop.name)", on: desktop.session))

            try await host.openMenu(of: item, service: service)
            try await host.choose(position: 3, label: "Snooze for 1 hour", service: service)
            try await desktop.daemon.waitForEvent("every account snoozed") { if case .snoozed(until: _?) = $0 { true } else { false } }

            try await desktop.standin.addNotification(
                for: desktop.account.username, repo: "krz/docs", kind: "issue", actor: "bo", summary: "opened issue #11",
                path: "krz/docs/issues/11")
            desktop.poll()
            try await desktop.daemon.waitForEvent("1 held") { $0 == .held(desktop.account, count: 1) }

            // Snoozed, the menu offers Resume between the snoozes and Open inbox.
            let snoozed = try await host.waitForItem(of: service, titled: title("2 unread on \(desktop.name)", on: desktop.session))
            try await host.openMenu(of: snoozed, service: service)
            try await host.choose(position: 6, label: "Resume notifications", service: service)
            try await desktop.daemon.waitForEvent("the snooze ended") { $0 == .snoozed(until: nil) }
            try await desktop.daemon.waitForSummary(of: 1)
        }
    }

    /// Five notices come at once (one summary notification), then the daemon restarts on the
    /// unchanged inbox: its first poll reads the list whole rather than a 304, and the menu
    /// lists all five, each opening its item, not a count.
    static func whatWasUnreadBeforeTheStartIsListedInTheMenu() async throws {
        try await DaemonOnDesktop.run { desktop in
            var rows: [Int] = []
            for number in 1...5 {
                rows.append(try await desktop.standin.addNotification(
                    for: desktop.account.username, repo: "krz/gitbay", kind: "issue", actor: "eve", summary: "opened issue #\(number)",
                    path: "krz/gitbay/issues/\(number)"))
            }
            desktop.poll()
            try await desktop.daemon.waitForPoll(of: desktop.account, saying: "200 ok, 5 new")
            // News: the item asks for attention.
            #expect(try await status(of: try await daemonService(on: desktop.session), on: desktop.session) == "NeedsAttention")
            let first = desktop.daemon
            first.send(SIGTERM)
            #expect(try await first.waitForExit() == 0)

            let again = try desktop.start()
            try await again.waitForPoll(of: desktop.account, saying: "200 ok")
            let (host, service) = (TrayHost(desktop.session), try await daemonService(on: desktop.session))
            let item = try await host.waitForItem(of: service, titled: title("5 unread on \(desktop.name)", on: desktop.session))
            // Unread before this start: listed, but no news.
            #expect(try await status(of: service, on: desktop.session) == "Active")
            try await host.openMenu(of: item, service: service)
            // Newest first: the fifth row down is the oldest.
            try await host.choose(position: 5, label: "krz/gitbay — eve opened issue #1", service: service)
            #expect(try await desktop.browser.nextLaunch().arguments == [desktop.url("krz/gitbay/issues/1")])
            #expect(again.lines(containing: "304 not modified").isEmpty)
        }
    }

    /// The item's `Status` as a host reads it.
    static func status(of service: String, on session: DesktopSession) async throws -> String? {
        try await session.withConnection { connection in
            try await connection.call(
                destination: service, path: "/StatusNotifierItem", interface: "org.freedesktop.DBus.Properties", member: "Get",
                arguments: [.string("org.kde.StatusNotifierItem"), .string("Status")]
            ).first?.variantValue?.stringValue
        }
    }

    /// The daemon's unique name on the desktop's bus, which its tray item is registered under.
    static func daemonService(on session: DesktopSession) async throws -> String {
        try await session.connect().closing { connection in
            try #require(try await connection.nameOwner(DaemonInterface.busName))
        }
    }

    /// The item's title where the host shows one (not Xfce's X11 panel).
    static func title(_ text: String, on session: DesktopSession) -> String? {
        session.server == .xfce4Notifyd ? nil : text
    }
}

import DBus
import Foundation
import PushCore
import TestSupport
import Testing
import Tray

/// What every tray host is asked, in one place: each host's suite runs these on its session.
struct TrayScenarios {
    let session: DesktopSession
    let host: TrayHost

    init(_ session: DesktopSession) {
        self.session = session
        host = TrayHost(session)
    }

    static let cmc = TrayOnDesktop.cmc
    static let rows = [TrayOnDesktop.row(12), TrayOnDesktop.row(11, repo: "krz/docs", actor: "bo")]
    static let seven = TrayOnDesktop.state(unread: 7, rows)

    /// What the host shows as the title: the X11 Xfce panel shows it nowhere AT-SPI reaches.
    var showsTitles: Bool { session.server != .xfce4Notifyd }

    func title(_ text: String) -> String? { showsTitles ? text : nil }

    /// The item appears with its title, its icon drawn by the host from our pixmaps.
    func theItemAppears() async throws {
        try await TrayOnDesktop.with(on: session) { tray in
            await tray.tray.show(Self.seven)
            let item = try await host.waitForItem(of: tray.connection.uniqueName, titled: title("7 unread on cmc@gitbay.org"))
            // The icon's flat blue, the badge's red, and the white of the bell and the digits.
            _ = try await waitForPixels(in: item.area) { colours in
                ["#2F5D8A", "#E8563F", "#FFFFFF"].allSatisfy { Self.pixels(near: $0, in: colours) > 0 }
            }
        }
    }

    /// A new count redraws the icon and retitles the item; at 0 the item is Passive, and the
    /// host tucks it away.
    func theCountChanges() async throws {
        try await TrayOnDesktop.with(on: session) { tray in
            let service = tray.connection.uniqueName
            await tray.tray.show(Self.seven)
            let seven = try await host.waitForItem(of: service, titled: title("7 unread on cmc@gitbay.org"))
            let drawnSeven = try await session.colours(in: seven.area)

            await tray.tray.show(TrayOnDesktop.state(unread: 8, Self.rows))
            let eight = try await host.waitForItem(of: service, titled: title("8 unread on cmc@gitbay.org"))
            let drawnEight = try await waitForPixels(in: eight.area) { $0 != drawnSeven }
            #expect(drawnEight != drawnSeven)

            await tray.tray.show(TrayOnDesktop.state(unread: 0, []))
            try await host.waitUntilNotShown(service, titled: "8 unread on cmc@gitbay.org")
            // Not shown under its new title either: tucked away, not merely retitled.
            #expect(try await host.item(of: service, titled: "Nothing unread") == nil)
        }
    }

    /// Choosing a notice in the host's menu asks to open exactly that notice.
    func choosingANoticeOpensIt() async throws {
        try await TrayOnDesktop.with(on: session) { tray in
            let service = tray.connection.uniqueName
            await tray.tray.show(Self.seven)
            let item = try await host.waitForItem(of: service, titled: title("7 unread on cmc@gitbay.org"))
            try await host.openMenu(of: item, service: service)
            try await host.choose(position: 2, label: "krz/docs — bo opened issue #11", service: service)
            let request = try await tray.request(after: 0)
            guard case .open(let target, _) = request else {
                Issue.record("asked for \(request), not to open a notice")
                return
            }
            #expect(target == PushTarget(account: Self.cmc, destination: NotificationDestination(path: "krz/docs/issues/11")))
        }
    }

    /// "Mark all read" in the host's menu (below the rows, and the line counting the 5 more
    /// unread) asks to mark the rows it listed.
    func markAllReadMarksTheListedRows() async throws {
        try await TrayOnDesktop.with(on: session) { tray in
            let service = tray.connection.uniqueName
            await tray.tray.show(Self.seven)
            let item = try await host.waitForItem(of: service, titled: title("7 unread on cmc@gitbay.org"))
            try await host.openMenu(of: item, service: service)
            try await host.choose(position: 4, label: "Mark all read", service: service)
            #expect(try await tray.request(after: 0) == .markAllRead(Self.cmc, rowIDs: [12, 11]))
        }
    }

    /// A notice that came while the menu was shut makes the item ask for attention, until the
    /// host opens the menu; then the menu shows the new notice too.
    func aNewNoticeIsShownInTheMenuTheHostFetchesAgain() async throws {
        try await TrayOnDesktop.with(on: session) { tray in
            let service = tray.connection.uniqueName
            await tray.tray.show(Self.seven)
            let item = try await host.waitForItem(of: service, titled: title("7 unread on cmc@gitbay.org"))
            await tray.tray.show(TrayOnDesktop.state(unread: 8, [TrayOnDesktop.row(13, actor: "cy")] + Self.rows))
            _ = try await host.waitForItem(of: service, titled: title("8 unread on cmc@gitbay.org"))
            try await host.openMenu(of: item, service: service)
            try await host.choose(position: 1, label: "krz/gitbay — cy opened issue #13", service: service)
            guard case .open(let target, _) = try await tray.request(after: 0) else {
                Issue.record("asked for \(tray.requests), not to open a notice")
                return
            }
            #expect(target.destination?.number == 13)
        }
    }

    /// The host restarts (a crash and a new start): the item is back, and its menu works.
    func theItemSurvivesTheHostsRestart() async throws {
        try await TrayOnDesktop.with(on: session) { tray in
            let service = tray.connection.uniqueName
            await tray.tray.show(Self.seven)
            _ = try await host.waitForItem(of: service, titled: title("7 unread on cmc@gitbay.org"))
            try await host.restart()
            await tray.tray.show(TrayOnDesktop.state(unread: 9, Self.rows))
            let item = try await host.waitForItem(of: service, titled: title("9 unread on cmc@gitbay.org"), timeout: .seconds(240))
            try await host.openMenu(of: item, service: service)
            try await host.choose(position: 4, label: "Mark all read", service: service)
            #expect(try await tray.request(after: 0) == .markAllRead(Self.cmc, rowIDs: [12, 11]))
        }
    }

    /// The watcher leaves and a new one comes: the tray registers with it by itself.
    func theItemRegistersWithANewWatcher() async throws {
        try await TrayOnDesktop.with(on: session) { tray in
            let service = tray.connection.uniqueName
            await tray.tray.show(Self.seven)
            _ = try await host.waitForItem(of: service, titled: title("7 unread on cmc@gitbay.org"))
            let before = try await TrayWatcher(session).owner()
            try await host.restartWatcher()
            try await TrayWatcher(session).waitForItem(of: service, timeout: .seconds(240))
            #expect(try await TrayWatcher(session).owner() != before)
            _ = try await host.waitForItem(of: service, titled: title("7 unread on cmc@gitbay.org"), timeout: .seconds(240))
        }
    }

    /// The pixels within 24 of `colour` in each channel: GNOME Shell draws panel icons a little
    /// darker (#2F5D8A as #2C5882), the X11 hosts as they are.
    static func pixels(near colour: String, in colours: [String: Int]) -> Int {
        func channels(_ hex: String) -> [Int] {
            let digits = Array(hex.dropFirst())
            return stride(from: 0, to: 6, by: 2).map { Int(String(digits[$0...$0 + 1]), radix: 16) ?? -999 }
        }
        let target = channels(colour)
        return colours.filter { entry in zip(channels(entry.key), target).allSatisfy { abs($0 - $1) <= 24 } }.values.reduce(0, +)
    }

    /// The host redraws on its own schedule, and says nothing when it has: the picture is
    /// taken again every 100 ms until it changes.
    private func waitForPixels(
        in area: ScreenArea, _ done: @escaping @Sendable ([String: Int]) -> Bool
    ) async throws -> [String: Int] {
        let session = session
        return try await withDeadline(.seconds(60), "the pixels of \(area) to change") {
            while true {
                let colours = try await session.colours(in: area)
                if done(colours) { return colours }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}

extension TrayScenarios {
    /// The host's opening of the menu (its `opened` event) ends the attention a new notice
    /// asked for: the item says so with `NewStatus`.
    func openingTheMenuEndsTheAttention() async throws {
        try await TrayOnDesktop.with(on: session) { tray in
            let service = tray.connection.uniqueName
            let statuses = try await session.connect()
            defer { Task { await statuses.close() } }
            let news = try await statuses.signals(matching: DBusMatchRule(
                sender: service, path: "/StatusNotifierItem", interface: "org.kde.StatusNotifierItem", member: "NewStatus"))
            await tray.tray.show(Self.seven)
            let item = try await host.waitForItem(of: service, titled: title("7 unread on cmc@gitbay.org"))
            try await host.openMenu(of: item, service: service)
            // Throws unless it comes.
            try await withDeadline(.seconds(60), "NewStatus(Active) after the menu opened") {
                for await signal in news where signal.arguments.first?.stringValue == "Active" { return }
                throw CancellationError()
            }
            try await host.closeMenu(service: service)
        }
    }
}

extension TrayScenarios {
    /// `gbnotifyctl doctor` names the program that owns the watcher.
    func doctorNamesTheHost(_ program: String) async throws {
        var environment = session.environment
        // A config of its own: doctor reads `tray` from it, and nothing of the user's.
        let config = FileManager.default.temporaryDirectory.appending(path: "tray-doctor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: config) }
        environment["XDG_CONFIG_HOME"] = config.path
        let run = try await Program.run([Program.built("gbnotifyctl"), "doctor", "--json"], environment: environment)
        struct Report: Decodable {
            struct Finding: Decodable {
                let check: String
                let verdict: String
                let finding: String
            }

            let findings: [Finding]
        }
        let report = try JSONDecoder().decode(Report.self, from: Data(run.stdout.utf8))
        let tray = try #require(report.findings.first { $0.check == "tray" }, "\(run.stdout)")
        #expect(tray.verdict == "ok")
        #expect(tray.finding.hasPrefix("a tray host is present: org.kde.StatusNotifierWatcher is owned by \(program) (:1."), "\(tray.finding)")
    }
}

extension TrayScenarios {
    /// The README's picture of the host: the item with its count and its menu open, two
    /// accounts' notices in it, cropped to the area `around` gives for the item's. Kept in $TRAY_SCREENSHOT_DIR as NAME when
    /// set (`scripts/screenshot --tray`), else in a temporary directory; either way it must show
    /// the icon with its badge, and the menu drawn beside it.
    func theREADMEPicture(_ name: String, around: @escaping @Sendable (ScreenArea) -> ScreenArea) async throws {
        try await TrayOnDesktop.with(on: session) { tray in
            let service = tray.connection.uniqueName
            let state = TrayState(shelves: [
                TrayState.Shelf(account: Self.cmc, unread: .exact(5), newest: [
                    TrayOnDesktop.row(42, actor: "ann"), TrayOnDesktop.row(41, repo: "krz/gitbay-docs", actor: "bo"),
                ]),
                TrayState.Shelf(account: TrayOnDesktop.bob, unread: .exact(2), newest: [TrayOnDesktop.row(7, repo: "bob/site", actor: "cy")]),
            ])
            await tray.tray.show(state)
            let item = try await host.waitForItem(of: service, titled: title("7 unread on 2 accounts"))
            // Where the host put the item (a restarted plasmashell lays its tray out anew).
            let area = around(item.area)
            // Away from the item, which an earlier test's click left under the pointer: Plasma
            // draws a hovered item lighter (#E8563F as #F28F7A), and its badge would never show.
            try await session.pointerMove(to: ScreenPoint(x: 0, y: 0))
            _ = try await waitForPixels(in: item.area) { Self.pixels(near: "#E8563F", in: $0) > 0 }
            let shut = try await session.colours(in: area)
            try await host.openMenu(of: item, service: service)
            let directory = ProcessInfo.processInfo.environment["TRAY_SCREENSHOT_DIR"].map { URL(fileURLWithPath: $0) }
                ?? FileManager.default.temporaryDirectory
            let path = directory.appending(path: name).path
            // The menu is drawn on the host's next frames (no animations in these sessions), and
            // the icon again once the host has read the status the opening ended: the picture is
            // taken once the area has changed and shows the icon with its badge.
            _ = try await waitForPixels(in: area) { colours in
                colours != shut && Self.pixels(near: "#2F5D8A", in: colours) > 0
            }
            try await session.screenshot(to: path, area: area)
            try await host.closeMenu(service: service)
            if ProcessInfo.processInfo.environment["TRAY_SCREENSHOT_DIR"] == nil { try? FileManager.default.removeItem(atPath: path) }
        }
    }
}

extension TrayScenarios {
    /// What was unread before the daemon started is listed, not only counted: the first poll's
    /// page (InboxDiff, one summary notification) goes through the tray's inbox as the daemon
    /// hands it, and the host's menu shows the newest ten rows, then a line for the two that
    /// do not fit, which opens the inbox.
    func aBacklogIsListed() async throws {
        let page = InboxPage(items: (1...12).reversed().map { TrayOnDesktop.row(Int64($0)) }, next: nil)
        let cycle = InboxDiff.evaluate(page: page, highWater: nil)
        #expect(cycle.notices.count == 1, "the backlog is summed up in one notification")
        var inbox = TrayInbox()
        inbox.take(
            AccountUpdate(account: Self.cmc, notices: cycle.notices, unread: cycle.unread, read: cycle.read, unreadRows: cycle.unreadRows),
            rules: .none)
        try await TrayOnDesktop.with(on: session) { tray in
            let service = tray.connection.uniqueName
            await tray.tray.show(inbox.state)
            let item = try await host.waitForItem(of: service, titled: title("12 unread on cmc@gitbay.org"))
            try await host.openMenu(of: item, service: service)
            let more = "2 more unread on cmc@gitbay.org"
            if session.server == .gnomeShell {
                let labels = try await host.menuLabels(of: service, atLeast: 11)
                #expect(Array(labels.filter { !$0.isEmpty }.prefix(11)) == (3...12).reversed().map { "krz/gitbay — ann opened issue #\($0)" } + [more])
            }
            try await host.choose(position: 11, label: more, service: service)
            let request = try await tray.request(after: 0)
            guard case .open(let target, _) = request else {
                Issue.record("asked for \(request), not to open the inbox")
                return
            }
            #expect(target == PushTarget(account: Self.cmc, destination: nil))
        }
    }
}

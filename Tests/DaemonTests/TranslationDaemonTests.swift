import DBus
import DesktopSuites
import Foundation
import Glibc
import PushCore
import TestSupport
import Testing

/// The real gbnotifyd in German (`LANG=C.UTF-8 LANGUAGE=de`, the catalogs as the build compiles
/// them): what a notification server shows and what the tray's menu lists are the German
/// catalog's words, on dunst (`DesktopTests`' session) and on xfce4-notifyd with Xfce's panel as
/// the tray host; the log stays English.
extension DesktopTests {
    @Test func inGermanASummaryANoticeAndMuteWithUndoAreGermanOnDunst() async throws {
        let fixture = try await BinaryFixture.start()
        // Unread before the daemon's first poll: its start sums them up.
        for number in [1, 2] {
            try await fixture.standin.addNotification(
                for: "cmc", repo: "krz/gitbay", kind: "issue", actor: "eve", summary: "opened issue #\(number)",
                path: "krz/gitbay/issues/\(number)")
        }
        let before = try await Self.newestShown()
        let environment = fixture.home.environment.merging(try await Translations.environment("de")) { $1 }
        let daemon = try RunningDaemon(environment: environment)
        try await daemon.waitForSummary(of: 2)
        let instance = fixture.account.instance.displayName
        let summary = try #require(try await Dunst.closeAllAndReadHistory().first)
        #expect(summary.summary == "2 ungelesene Benachrichtigungen auf \(instance) als cmc")
        #expect(summary.body == "Öffnen Sie den Posteingang, um sie zu sehen.")

        let row = try await fixture.standin.addNotification(
            for: "cmc", repo: "krz/noisy", kind: "issue", actor: "eve", summary: "opened issue #3", path: "krz/noisy/issues/3")
        daemon.send(SIGHUP)
        try await daemon.waitForEvent("notice \(row) shown", DaemonEvent.isShown(row: Int64(row), of: fixture.account))
        try await Dunst.choose(NotificationContent.muteAction)
        try await daemon.waitForMute(of: "krz/noisy", on: fixture.account)
        // The buttons dunst offered in its menu: the German labels, with their keys.
        let offered = try Dunst.lastMenu()
        for label in ["Öffnen", "Als gelesen markieren", "Stummschalten"] {
            #expect(offered.contains(label), "dunst's menu: \(offered)")
        }
        try await daemon.waitForEvent("that krz/noisy is muted shown") { event in
            if case .shown(_, .muted("krz/noisy", _), _, _) = event { true } else { false }
        }
        try await Dunst.choose(NotificationContent.undoAction)
        try await daemon.waitForMute(of: "krz/noisy", on: fixture.account, muted: false)
        let undoMenu = try Dunst.lastMenu()
        #expect(undoMenu.contains("Rückgängig"), "dunst's menu: \(undoMenu)")
        #expect(try await Self.shown(after: before) == [
            "krz/noisy auf \(fixture.account.displayName) stummgeschaltet", "krz/noisy",
            "2 ungelesene Benachrichtigungen auf \(instance) als cmc",
        ])

        // gbnotifyctl status in German, from the daemon's status.
        let status = try await Program.run([Program.built("gbnotifyctl"), "status"], environment: environment)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.hasPrefix("gbnotifyd \(GBNotify.version), läuft seit "), "\(status.stdout)")
        let header = status.stdout.split(separator: "\n").first { $0.hasPrefix("KONTO") }
        let columns = header?.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        #expect(columns == ["KONTO", "ZUSTAND", "UNGELESEN", "LETZTE ABFRAGE", "ERGEBNIS", "NÄCHSTE ABFRAGE"], "\(status.stdout)")

        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
        // The log stays English: its words are for bug reports and journalctl searches.
        #expect(daemon.lines.value.last == "<6>stopped")
        await fixture.finish()
    }

    /// A notice's "Reply…" and 👍 in German, and what 👍 did said in German with its Undo.
    @Test func inGermanReplyAndTheThumbsUpNotificationWithUndoAreGermanOnDunst() async throws {
        let fixture = try await BinaryFixture.start()
        try await fixture.standin.addNotification(
            for: "cmc", repo: "krz/other", kind: "issue", actor: "eve", summary: "opened issue #1", path: "krz/other/issues/1")
        let environment = fixture.home.environment.merging(try await Translations.environment("de")) { $1 }
        let daemon = try RunningDaemon(environment: environment)
        try await daemon.waitForSummary(of: 1)
        _ = try await Dunst.closeAllAndReadHistory()

        try await fixture.standin.addItem(.issue, repo: "krz/gitbay", data: #"{"number": 12, "title": "Crash", "state": "open", "author": "alice"}"#)
        let row = try await fixture.standin.addNotification(
            for: "cmc", repo: "krz/gitbay", kind: "issue", actor: "alice", summary: "opened issue #12", path: "krz/gitbay/issues/12")
        daemon.send(SIGHUP)
        try await daemon.waitForEvent("notice \(row) shown", DaemonEvent.isShown(row: Int64(row), of: fixture.account))
        try await Dunst.choose(NotificationContent.reactAction)
        try await daemon.waitForEvent("Reacted 👍 shown") { event in
            if case .shown(_, .said(.reacted, _), _, _) = event { true } else { false }
        }
        // dunst has no text field: "Reply…" (the terminal), beside 👍.
        let offered = try Dunst.lastMenu()
        for label in ["Öffnen", "Als gelesen markieren", "Antworten…", "👍"] {
            #expect(offered.contains(label), "dunst's menu: \(offered)")
        }
        try await Dunst.choose(NotificationContent.undoAction)
        try await daemon.waitForEvent("the reaction taken back") {
            $0 == .reactionTakenBack(fixture.account, path: "krz/gitbay/issues/12", reaction: "+1")
        }
        let undoMenu = try Dunst.lastMenu()
        #expect(undoMenu.contains("Rückgängig"), "dunst's menu: \(undoMenu)")
        let said = try await Dunst.closeAllAndReadHistory().first { $0.summary == "Mit 👍 auf krz/gitbay#12 reagiert" }
        #expect(said?.body == "Als \(fixture.account.displayName).", "\(String(describing: said))")

        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
        await fixture.finish()
    }
}

/// The same in German on xfce4-notifyd, its bubbles read over AT-SPI and clicked with a real
/// pointer, and the tray's menu on Xfce's panel.
@Suite(.serialized, .desktop(.xfce4Notifyd, tray: true))
struct Xfce4NotifydInGermanTests {
    @Test func aNoticeMuteWithUndoTheTrayMenuAndASummaryAreGerman() async throws {
        let screen = OnScreen(try SharedDesktop.session())
        // Mute among the three buttons xfce4-notifyd is given (by default: Mark read, Reply…, 👍).
        try await DaemonOnDesktop.run(
            config: "poll-interval = 3600\nbuttons = mark-read, mute\n", environment: try await Translations.environment("de")
        ) { desktop in
            try await desktop.show(repo: "krz/noisy", number: 3)
            let popup = try await screen.waitForPopup(titled: "krz/noisy", body: "eve opened issue #12")
            let labels = Set(popup.buttons.map(\.label))
            #expect(labels.isSuperset(of: ["Öffnen", "Als gelesen markieren", "Stummschalten"]), "\(popup.buttons)")

            try await screen.pointerClickButton("Stummschalten", onPopupTitled: "krz/noisy")
            try await desktop.daemon.waitForMute(of: "krz/noisy", on: desktop.account)
            let muted = "krz/noisy auf \(desktop.name) stummgeschaltet"
            try await screen.waitForPopup(
                titled: muted, body: "cmc erhält daraus keine neuen Benachrichtigungen mehr, weder hier noch in einem anderen Client.")
            try await screen.pointerClickButton("Rückgängig", onPopupTitled: muted)
            try await desktop.daemon.waitForMute(of: "krz/noisy", on: desktop.account, muted: false)

            // The tray's menu, as the panel reads it (GetLayout), then chosen in the panel's own
            // menu: a snooze, and Resume.
            let (host, service) = (TrayHost(desktop.session), try await TrayDaemonScenarios.daemonService(on: desktop.session))
            let item = try await host.waitForItem(of: service, titled: nil)
            let menu = try await Self.menuLabels(of: service, on: desktop.session)
            #expect(menu == [
                "krz/noisy — eve opened issue #12", "Alle als gelesen markieren", "1 Stunde schlummern", "Bis morgen 08:00 schlummern",
                "Benachrichtigungen fortsetzen", "Posteingang öffnen",
            ])
            try await host.openMenu(of: item, service: service)
            try await host.choose(position: 3, label: "1 Stunde schlummern", service: service)
            try await desktop.daemon.waitForEvent("every account snoozed") { if case .snoozed(until: _?) = $0 { true } else { false } }
            try await host.openMenu(of: item, service: service)
            try await host.choose(position: 5, label: "Benachrichtigungen fortsetzen", service: service)
            try await desktop.daemon.waitForEvent("the snooze ended") { $0 == .snoozed(until: nil) }

            // A clean stop withdraws the notice; the next start sums up what is unread.
            desktop.daemon.send(SIGTERM)
            #expect(try await desktop.daemon.waitForExit() == 0)
            try await desktop.start().waitForSummary(of: 1)
            try await screen.waitForPopup(
                titled: "1 ungelesene Benachrichtigung auf \(desktop.account.instance.displayName) als cmc",
                body: "Öffnen Sie den Posteingang, um sie zu sehen.")
        }
    }

    /// The pseudo-locale `qps` (every message 40% longer, in wide characters) through the tray:
    /// each label the panel reads is within the tray's bound and either whole or cut between
    /// characters with "…", never half a character (no U+FFFD, no lone piece).
    @Test func thePseudoLocaleReachesTheTrayWithoutACutCharacter() async throws {
        try await DaemonOnDesktop.run(environment: try await Translations.environment("qps")) { desktop in
            try await desktop.show(repo: "krz/wide", number: 4)
            let service = try await TrayDaemonScenarios.daemonService(on: desktop.session)
            _ = try await TrayHost(desktop.session).waitForItem(of: service, titled: nil)
            let menu = try await Self.menuLabels(of: service, on: desktop.session)
            #expect(menu.count == 6, "\(menu)")
            #expect(menu.contains { $0.hasPrefix("［Ｍａｒｋ") }, "the catalog's words: \(menu)")
            for label in menu {
                #expect(label.count <= TrayMenu.maximumLabelLength, "longer than the bound: \(label)")
                #expect(!label.unicodeScalars.contains("\u{FFFD}"), "a broken character: \(label)")
                for message in label.split(separator: "［", omittingEmptySubsequences: false).dropFirst() {
                    #expect(message.contains("］") || message.hasSuffix("…"), "cut without a mark: \(label)")
                }
            }
        }
    }

    /// The labels of the tray menu's items (separators left out), as a host reads them.
    static func menuLabels(of service: String, on session: DesktopSession) async throws -> [String] {
        try await session.withConnection { client in
            let reply = try await client.call(
                destination: service, path: "/MenuBar", interface: "com.canonical.dbusmenu", member: "GetLayout",
                arguments: [.int32(0), .int32(-1), .stringArray([])])
            let children = reply.last?.structValue?[2].arrayValue?.compactMap { $0.variantValue?.structValue } ?? []
            return children.compactMap { child in
                let properties = child[1].vardictValue ?? [:]
                guard properties["type"] != .string("separator"), case .string(let label)? = properties["label"] else { return nil }
                return label
            }
        }
    }
}

import DBus
import DesktopSuites
import Foundation
import Glibc
import PushCore
import TestSupport
import Testing

/// One of gbnotifyd's notifications as GNOME Shell or Plasma holds it.
struct ShownNotification: Sendable, Equatable, CustomStringConvertible {
    let id: UInt32
    let title: String
    /// As rendered: markup applied.
    let body: String
    /// The notification's own icon (`app_icon`) as the shell resolved it.
    let icon: String?
    /// Plasma: its popup timed out and it went to the history. GNOME keeps no such state.
    let expired: Bool

    var description: String { "\(id) \"\(title)\" \"\(body.replacing("\n", with: "\\n"))\"\(expired ? " expired" : "")" }

    /// How many unread notices it stands for: a summary's count ("13 more unread on ..."),
    /// or a group's listed lines plus its "and N more" (the account's line aside).
    func notices(accountLine: Bool = false) -> Int {
        if let match = title.firstMatch(of: #/^(\d+)\+? (?:more unread|unread|new) on /#) { return Int(match.1) ?? 0 }
        let lines = body.split(separator: "\n").dropFirst(accountLine ? 1 : 0)
        return lines.reduce(0) { count, line in
            if let more = line.firstMatch(of: #/^and (\d+) more$/#) { return count + (Int(more.1) ?? 0) }
            return count + 1
        }
    }

    /// gbnotifyd's notifications (app name `gitbay`) among what GNOME's message tray holds.
    static func ours(in held: [GnomeShell.Notification]) -> [ShownNotification] {
        held.compactMap { held in
            guard held.appName == NotificationContent.appName, let id = held.id else { return nil }
            return ShownNotification(id: id, title: held.title, body: held.body, icon: held.icon, expired: false)
        }
    }
}

/// The shell's view of the daemon's notifications, and a user's hands on them, through the
/// shell's own code (GNOME Shell and Plasma).
extension DaemonOnDesktop {
    /// The notifications of this run's daemons the shell holds now (Plasma keeps an earlier
    /// test's expired ones in its history), oldest first: GNOME's message tray, or Plasma's
    /// model (its history included, `expired`).
    func ours() async throws -> [ShownNotification] {
        let held: [ShownNotification]
        switch session.server {
        case .gnomeShell:
            held = ShownNotification.ours(in: try await GnomeShell(session).notifications())
        default:
            held = try await PlasmaShell(session).notifications().map { held in
                ShownNotification(id: held.id, title: held.title, body: held.body, icon: held.icon, expired: held.expired)
            }
        }
        let ids = notificationIDs
        return held.filter { ids.contains($0.id) }
    }

    /// The one notification of ours titled `title` that is open (not in Plasma's history).
    func open(titled title: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> ShownNotification {
        let found = try await ours().filter { $0.title == title && !$0.expired }
        try #require(found.count == 1, "notifications titled \(title): \(found)", sourceLocation: sourceLocation)
        return found[0]
    }

    /// What a click on the notification's body runs, through the shell's own code.
    func click(_ id: UInt32) async throws {
        switch session.server {
        case .gnomeShell: try await GnomeShell(session).activate(id)
        default: try await PlasmaShell(session).activate(id)
        }
    }

    /// The shell's "Mark read" button, pressed through its own handler. (GNOME 43 has buttons
    /// on the banner only: the notification must be the one on it.)
    func pressMarkRead(on id: UInt32) async throws {
        switch session.server {
        case .gnomeShell:
            let gnome = GnomeShell(session)
            try await gnome.waitForBanner { $0.id == id && $0.isShown }
            try await gnome.pressButton("Mark read", on: id)
        default:
            try await PlasmaShell(session).invokeAction(NotificationContent.markReadAction, on: id)
        }
    }

    /// Nothing on the session's bus serves the OpenURI portal, nor could be started to: a click
    /// opens through `xdg-open` (the browser stub).
    func expectNoOpenURIPortal(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let portal = "org.freedesktop.portal.Desktop"
        let (owned, activatable) = try await session.withConnection { connection in
            (try await connection.nameHasOwner(portal), try await connection.activatableNames().contains(portal))
        }
        #expect(!owned && !activatable, sourceLocation: sourceLocation)
    }

    /// The process that owns `org.freedesktop.Notifications` (plasmashell; GNOME's helper).
    func serverProcess() async throws -> pid_t {
        try await session.withConnection { connection in
            let owner = try #require(try await connection.nameOwner(NotificationsInterface.name))
            let reply = try await connection.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "GetConnectionUnixProcessID", arguments: [.string(owner)])
            return pid_t(try #require(reply.first?.uint32Value))
        }
    }

    // MARK: - Scenarios both shells run

    /// Three repositories in one poll, then a fourth: the two oldest fold into a summary, so
    /// three notifications. Returns them, and the summary's title.
    func foldFourRepositories() async throws -> ([ShownNotification], String) {
        for repo in ["krz/a", "krz/b", "krz/c"] {
            try await standin.addNotification(for: "cmc", repo: repo, path: "\(repo)/issues/1")
        }
        poll()
        try await daemon.waitForPoll(of: account, saying: "200 ok, 3 new")
        try await show(repo: "krz/d", number: 1)
        // Its poll is done (the mark saved after what is on screen): killed before that, it
        // would show krz/d again after a restart, at least once by design.
        try await daemon.waitForPoll(of: account, saying: "200 ok, 1 new")
        let shown = try await ours()
        let summaryTitle = "2 more unread on \(account.instance.displayName) as cmc"
        #expect(shown.map(\.title) == [summaryTitle, "krz/c", "krz/d"])
        return (shown, summaryTitle)
    }

    /// A notice of krz/other shown, then replaced twice (a group of three), clicked: the inbox
    /// opens once, however many times the shell sends the click.
    func clickOnAGroupOfThreeOpensTheInboxOnce() async throws {
        let (_, group) = try await show(repo: "krz/other", number: 1)
        try await show(repo: "krz/other", number: 2)
        try await show(repo: "krz/other", number: 3)
        try await click(group)
        #expect(try await browser.nextLaunch().arguments == [url("notifications")])
        #expect(try await clicksServed(on: group) == 1)
    }

    /// After a kill -9 of the daemon that showed `before` (`foldFourRepositories`), a notice of
    /// krz/c while it is down, then a daemon started in its place: it takes over what the dead
    /// one showed and replaces krz/c in place, so the same three, with no second summary beside
    /// the old one. Returns krz/c's notification.
    @discardableResult
    func restartAfterANoticeWhileDown(before: [ShownNotification], summaryTitle: String) async throws -> ShownNotification {
        let added = try await standin.addNotification(
            for: "cmc", repo: "krz/c", actor: "ana", summary: "closed issue #2", path: "krz/c/issues/2")
        try start()
        try await daemon.waitForAdoption(of: 3)
        let c = try await open(titled: "krz/c")
        #expect(try await shownAs(row: added) == c.id)
        try await daemon.waitForPoll(of: account)
        let after = try await ours()
        #expect(after.map(\.id) == before.map(\.id))
        #expect(after.filter { $0.title.contains("unread") }.map(\.title) == [summaryTitle])
        #expect(after.first { $0.id == c.id }?.body == "ana closed issue #2\nand 1 more")
        return c
    }

    /// Two accounts with the same repository and text: two notifications, each body's first
    /// line naming its account (with one account there is no such line: see the shells' first
    /// tests).
    static func expectEachNotificationToSayItsAccount() async throws {
        let session = try SharedDesktop.session()
        let other = try await Standin.start()
        let store = [
            "secret-tool", "store", "--label=gitbay test", "xdg:schema", "org.gitbay.Account", "instance", other.url, "user", "cmc",
        ]
        let clear = ["secret-tool", "clear", "xdg:schema", "org.gitbay.Account", "instance", other.url]
        do {
            try await other.addUser("cmc")
            let stored = try await session.run(store, stdin: try await other.addToken(for: "cmc"))
            try #require(stored.status == 0, "secret-tool store: \(stored.stderr)")
            let otherAccount = try Account(instance: GitbayInstance(parsing: other.url), username: "cmc")
            try await run { desktop in
                try await desktop.daemon.waitForPoll(of: otherAccount)
                for standin in [desktop.standin, other] {
                    try await standin.addNotification(
                        for: "cmc", repo: "krz/gitbay", kind: "issue", actor: "eve", summary: "opened issue #12",
                        path: "krz/gitbay/issues/12")
                }
                desktop.poll()
                for account in [desktop.account, otherAccount] {
                    try await desktop.daemon.waitForEvent("a notice of \(account.displayName) shown") { event in
                        if case .shown(account, .group, _, _) = event { true } else { false }
                    }
                }
                let bodies = try await desktop.ours().map(\.body)
                #expect(Set(bodies) == Set([desktop.account, otherAccount].map { "\($0.displayName)\neve opened issue #12" }))
            }
        } catch {
            _ = try? await session.run(clear)
            await other.stop()
            throw error
        }
        let cleared = try await session.run(clear)
        try #require(cleared.status == 0, "secret-tool clear: \(cleared.stderr)")
        await other.stop()
    }
}

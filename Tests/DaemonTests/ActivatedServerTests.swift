import DesktopSuites
import Glibc
import PushCore
import TestSupport
import Testing

/// The real gbnotifyd on a notification server that only its D-Bus service file offers, as mako
/// is started on sway and MATE's always is: nothing owns `org.freedesktop.Notifications` until
/// a call to it makes the bus start the server (issue 25). The daemon's notice is that call.
@Suite(.serialized, .desktop(.mako, activation: .onDemand, installing: .gbnotify))
struct MakoOnDemandDaemonTests {
    @Test func theFirstNoticeStartsMakoAndIsShownThere() async throws {
        try await DaemonOnDesktop.run { desktop in
            let session = desktop.session
            #expect(try await session.owner() == nil, "mako ran before any notice")
            #expect(try await session.isActivatable())
            let (_, id) = try await desktop.show()
            #expect(try await session.owner()?.executable.hasSuffix("/mako") == true)
            let shown = try await Mako(session).waitForNotifications { $0.contains { $0.id == id } }
            #expect(shown.first { $0.id == id }?.title == "krz/gitbay")
        }
    }
}

/// MATE's notification daemon is only ever started by the bus, and exits when idle: the next
/// notice after it has gone starts it again (issue 25). Its idle exit is a 30 s timer of its own
/// (`MateRigTests` waits for it once); here the server is stopped instead, which leaves the bus
/// as the idle exit does.
@Suite(.serialized, .desktop(.mate, activation: .onDemand, installing: .gbnotify))
struct MateOnDemandDaemonTests {
    @Test func aNoticeAfterTheServerLeftStartsItAgain() async throws {
        try await DaemonOnDesktop.run { desktop in
            let session = desktop.session
            #expect(try await session.owner() == nil, "MATE's server ran before any notice")
            _ = try await desktop.show(repo: "krz/a", number: 1)
            let first = try #require(try await session.owner())
            #expect(first.executable.hasSuffix("/mate-notification-daemon"))

            #expect(kill(first.pid, SIGTERM) == 0)
            try await session.waitUntilUnowned()
            try await desktop.waitForLine(endingWith: "the notification server left the bus")
            _ = try await desktop.show(repo: "krz/b", number: 2)
            let second = try #require(try await session.owner())
            #expect(second.pid != first.pid)
            #expect(second.executable == first.executable)
        }
    }
}

/// mako as sway runs it (`exec mako`), on the bus from the start.
@Suite(.serialized, .desktop(.mako, installing: .gbnotify))
struct MakoDaemonTests {
    let checks = MakoDaemonChecks()

    @Test func markReadAfterOpenOnTheNotificationMakoKeepsMarksItRead() async throws {
        try await checks.markReadAfterOpenOnTheNotificationMakoKeepsMarksItRead()
    }

    @Test func aNoticeIsShownReplacedInPlaceAndWithdrawnWhenReadElsewhere() async throws {
        try await checks.aNoticeIsShownReplacedInPlaceAndWithdrawnWhenReadElsewhere()
    }

    @Test func afterAKillDashNineTheNextDaemonReplacesWhatTheLastShowedInPlace() async throws {
        try await checks.afterAKillDashNineTheNextDaemonReplacesWhatTheLastShowedInPlace()
    }
}

/// The same on mako 1.10 (Debian 13's, from the root scripts/debian13-root builds): it keeps what a
/// killed daemon showed, so the next one takes it over (`ServerQuirks`' default).
@Suite(.serialized, .desktop(.mako, release: .debian13, installing: .gbnotify))
struct Mako110DaemonTests {
    let checks = MakoDaemonChecks()

    @Test func markReadAfterOpenOnTheNotificationMakoKeepsMarksItRead() async throws {
        try await checks.markReadAfterOpenOnTheNotificationMakoKeepsMarksItRead()
    }

    @Test func aNoticeIsShownReplacedInPlaceAndWithdrawnWhenReadElsewhere() async throws {
        try await checks.aNoticeIsShownReplacedInPlaceAndWithdrawnWhenReadElsewhere()
    }

    @Test func afterAKillDashNineTheNextDaemonReplacesWhatTheLastShowedInPlace() async throws {
        try await checks.afterAKillDashNineTheNextDaemonReplacesWhatTheLastShowedInPlace()
    }
}

/// The checks of MakoDaemonTests and Mako110DaemonTests, each on its suite's session.
struct MakoDaemonChecks {
    /// mako keeps a notification after an action: "Mark read" after "Open" on it is a second
    /// choice of the user's, served, not the first click heard again.
    func markReadAfterOpenOnTheNotificationMakoKeepsMarksItRead() async throws {
        try await DaemonOnDesktop.run { desktop in
            let mako = Mako(desktop.session)
            let (row, id) = try await desktop.show()
            try await mako.invoke("default", on: id)
            #expect(try await desktop.browser.nextLaunch().arguments == [desktop.url("krz/gitbay/issues/12")])
            try await mako.invoke("mark-read", on: id)
            try await desktop.daemon.waitForClick(NotificationContent.markReadAction, on: id)
            try await withDeadline(.seconds(30), "the notice marked read on the server") {
                while try await desktop.readAt(row) == nil { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(try await desktop.markReadRequests() == [["notifications", "read", String(row)]])
        }
    }

    func aNoticeIsShownReplacedInPlaceAndWithdrawnWhenReadElsewhere() async throws {
        try await DaemonOnDesktop.run { desktop in
            let mako = Mako(desktop.session)
            let first = try await desktop.show(actor: "eve", summary: "opened issue #12")
            try await mako.waitForNotifications { $0.contains { $0.id == first.notification && $0.title == "krz/gitbay" } }

            let second = try await desktop.show(actor: "ana", summary: "commented on issue #12")
            #expect(second.notification == first.notification)
            let replaced = try await mako.waitForNotifications {
                $0.contains { $0.id == first.notification && $0.body.hasPrefix("ana commented on issue #12") }
            }
            #expect(replaced.count { $0.title == "krz/gitbay" } == 1)

            try await desktop.readElsewhere([first.row, second.row])
            desktop.poll()
            try await desktop.daemon.waitForWithdrawal(of: first.notification)
            try await mako.waitForNotifications { $0.allSatisfy { $0.id != first.notification } }
        }
    }

    /// mako keeps what a killed daemon showed; the next daemon takes it over and replaces it in
    /// place.
    func afterAKillDashNineTheNextDaemonReplacesWhatTheLastShowedInPlace() async throws {
        try await DaemonOnDesktop.run { desktop in
            let mako = Mako(desktop.session)
            let first = try await desktop.show(actor: "eve", summary: "opened issue #12")
            try await desktop.killDashNineAndRestart(takingOver: 1)
            let second = try await desktop.show(actor: "ana", summary: "commented on issue #12")
            #expect(second.notification == first.notification)
            let shown = try await mako.waitForNotifications {
                $0.contains { $0.id == first.notification && $0.body.hasPrefix("ana commented on issue #12") }
            }
            #expect(shown.count { $0.title == "krz/gitbay" } == 1)
            try await mako.dismissAll()
        }
    }
}

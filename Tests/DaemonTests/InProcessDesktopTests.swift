import DBus
import Daemon
import Desktop
import Foundation
import Logging
import MainLoop
import Notifications
import PushCore
import Settings
import StateStore
import TestSupport
import Testing

/// From the inbox to the screen and back, in this process: polls of an in-memory gitbay shown
/// by the real desktop stage on an in-memory notification server, clicks answered as the
/// daemon answers them (`InProcessDaemon` with `desktop`). The same behaviour on dunst through
/// the stand-in is `DesktopTests`; `NotificationServerContractTests` keeps the in-memory server
/// doing what dunst does.
@Suite struct InProcessDesktopTests {
    /// Adds a row and polls until the server has been sent one more notification; that call.
    /// The first poll comes first: rows there before it are only counted, in a summary.
    @discardableResult
    static func show(
        _ daemon: InProcessDaemon, repo: String = "krz/gitbay", actor: String = "eve", summary: String = "opened issue #12",
        path: String = "krz/gitbay/issues/12"
    ) async throws -> (row: Int64, shown: InMemoryNotificationServer.Shown) {
        let server = try #require(daemon.stage?.server)
        try await daemon.advance(until: "the first poll") { !daemon.polls(of: 0).isEmpty }
        let before = server.shown.value.count
        let row = daemon.gitbays[0].addNotification(repo: repo, actor: actor, summary: summary, path: path)
        try await daemon.advance(until: "notice \(row) shown") { server.shown.value.count > before }
        return (row, server.shown.value[before])
    }

    @Test func aNewRowIsShownWithItsRepositoryAsTitleAndWhatHappenedAsBody() async throws {
        try await InProcessDaemon.run(desktop: true) { daemon in
            let (row, shown) = try await Self.show(daemon, actor: "eve", summary: "said <b>hi</b> & left")
            #expect(shown.notification.summary == "krz/gitbay")
            // The server takes markup: the text is escaped, so it shows as sent.
            #expect(shown.notification.body == "eve said &lt;b&gt;hi&lt;/b&gt; &amp; left")
            #expect(shown.notification.actions.map(\.key) == ["default", "mark-read", "reply", "react"])
            #expect(shown.replacing == nil)
            let told = daemon.events.value.compactMap { told -> [Int64]? in
                guard case .shown(daemon.accounts[0], .group(let group), shown.id, nil) = told.event else { return nil }
                return group.inboxIDs
            }
            #expect(told == [[row]])
        }
    }

    /// The desktop stage runs where gbnotifyd runs it, on the loop's thread (`LoopActor`), with
    /// the supervisor and the pollers: every event of a notice shown, clicked and marked read is
    /// told by code on that thread.
    @Test func aNoticeIsShownAndItsClickTakenOnTheLoopsThread() async throws {
        try await InProcessDaemon.run(desktop: true) { daemon in
            let (row, shown) = try await Self.show(daemon)
            try #require(daemon.stage).server.click(shown.id, "mark-read")
            try await daemon.waitForEvent("the row marked read") { $0 == .markedRead(daemon.accounts[0], [row]) }
            let told = daemon.events.value
            #expect(told.contains { $0.event == .clicked(notification: shown.id, action: "mark-read") })
            #expect(told.contains { if case .shown = $0.event { true } else { false } })
            #expect(told.filter { !$0.onLoop }.map(\.event) == [])
        }
    }

    @Test func noticesOfOneRepositoryShareOneNotificationReplacedInPlace() async throws {
        try await InProcessDaemon.run(desktop: true) { daemon in
            let server = try #require(daemon.stage?.server)
            let first = try await Self.show(daemon, actor: "eve", summary: "opened issue #12")
            let second = try await Self.show(daemon, actor: "ana", summary: "commented on issue #12")
            #expect(second.shown.replacing == first.shown.id && second.shown.id == first.shown.id)
            // The new notice listed, the one shown before only counted.
            #expect(second.shown.notification.body == "ana commented on issue #12\nand 1 more")
            #expect(server.onScreen.count == 1)
        }
    }

    /// `max-notifications` (3 by default): a fourth repository folds the two oldest into one
    /// summary in the oldest's place, and a fifth joins that summary, which grows in place.
    @Test func neverMoreThanMaxNotificationsOpenTheOldestFoldIntoASummary() async throws {
        try await InProcessDaemon.run(desktop: true) { daemon in
            let server = try #require(daemon.stage?.server)
            for index in 1...3 {
                try await Self.show(daemon, repo: "krz/repo\(index)", path: "krz/repo\(index)/issues/\(index)")
            }
            #expect(server.onScreen.count == 3)
            try await Self.show(daemon, repo: "krz/repo4", path: "krz/repo4/issues/4")
            try await daemon.advance(until: "the summary of 2") {
                server.onScreen.values.contains { $0.summary.hasPrefix("2 more unread") }
            }
            #expect(server.onScreen.count == 3)
            try await Self.show(daemon, repo: "krz/repo5", path: "krz/repo5/issues/5")
            try await daemon.advance(until: "the summary of 3") {
                server.onScreen.values.contains { $0.summary.hasPrefix("3 more unread") }
            }
            #expect(Set(server.onScreen.values.map(\.summary)) == [
                "krz/repo4", "krz/repo5", "3 more unread on \(daemon.accounts[0].instance.displayName) as cmc",
            ])
        }
    }

    /// GNOME Shell repeats a click; a server that keeps a notification after a click (mako,
    /// LXQt) lets a second, different one come. The same click opens once, a different one is
    /// taken.
    @Test func aRepeatedClickOpensOnceAndADifferentOneIsTaken() async throws {
        try await InProcessDaemon.run(desktop: true) { daemon in
            let server = try #require(daemon.stage?.server)
            let (row, shown) = try await Self.show(daemon)
            server.click(shown.id)
            server.click(shown.id)
            server.click(shown.id, "mark-read")
            // The stage takes clicks in order: once the third is taken, the second was weighed.
            try await daemon.waitForEvent("the Mark read taken") { $0 == .clicked(notification: shown.id, action: "mark-read") }
            try await daemon.waitForEvent("the row marked read") { $0 == .markedRead(daemon.accounts[0], [row]) }
            // The launch is its own task, and may come after the row was marked read.
            try await daemon.waitForEvent("the item opened") { if case .opened = $0 { true } else { false } }

            let clicks = daemon.events.value.compactMap { told -> String? in
                if case .clicked(shown.id, let action) = told.event { action } else { nil }
            }
            #expect(clicks == ["default", "mark-read"])
            let opened = daemon.events.value.filter { if case .opened = $0.event { true } else { false } }
            #expect(opened.map(\.event) == [.opened(["/bin/true", "\(daemon.accounts[0].instance.url)/krz/gitbay/issues/12"])])
        }
    }

    @Test func markReadMarksTheRowReadOnItsInstanceAndWithdrawsTheNotification() async throws {
        try await InProcessDaemon.run(desktop: true) { daemon in
            let server = try #require(daemon.stage?.server)
            let (row, shown) = try await Self.show(daemon)
            server.click(shown.id, "mark-read")
            try await daemon.waitForEvent("the notification withdrawn") { $0 == .withdrawn(notification: shown.id) }

            #expect(daemon.gitbays[0].requests.value.contains { $0.argv == ["notifications", "read", String(row)] && $0.status == 200 })
            #expect(daemon.gitbays[0].unreadIDs().isEmpty)
            #expect(server.closed.value == [shown.id])
            #expect(server.onScreen.isEmpty)
        }
    }

    /// "Mark read" turned away by the instance's write limiter (403 "too many writes", and a 429
    /// after it) is sent again when each answer says, not dropped: the row ends up read and the
    /// notification withdrawn, the third request the one that went through.
    @Test func markReadTurnedAwayByTheWriteLimitsIsSentAgainWhenTheyAllow() async throws {
        try await InProcessDaemon.run(desktop: true) { daemon in
            let server = try #require(daemon.stage?.server)
            let (row, shown) = try await Self.show(daemon)
            let read = ["notifications", "read", String(row)]
            daemon.gitbays[0].fail(read, with: .tooManyWrites(retryAfter: 7))
            daemon.gitbays[0].fail(read, with: .rateLimited(retryAfter: 4))
            server.click(shown.id, "mark-read")
            try await daemon.advance(until: "the notification withdrawn") { server.closed.value == [shown.id] }

            let sent = daemon.gitbays[0].requests.value.filter { $0.argv == read }
            #expect(sent.map(\.status) == [403, 429, 200])
            if sent.count == 3 {
                #expect(sent[1].at - sent[0].at >= .seconds(7))
                #expect(sent[2].at - sent[1].at >= .seconds(4))
            }
            #expect(daemon.gitbays[0].unreadIDs().isEmpty)
        }
    }

    /// A click that crosses the withdrawal of its notification (the server still had it on
    /// screen) opens nothing, and the debug log says it came.
    @Test func aClickOnANotificationAlreadyWithdrawnOpensNothingAndIsSaid() async throws {
        try await InProcessDaemon.run(desktop: true) { daemon in
            let server = try #require(daemon.stage?.server)
            let (row, shown) = try await Self.show(daemon)
            daemon.gitbays[0].readElsewhere([row])
            try await daemon.advance(until: "the withdrawal") { server.closed.value == [shown.id] }
            server.click(shown.id)
            try await daemon.log.wait(for: "the click said") { lines in
                lines.contains { $0.hasSuffix("notification \(shown.id): ignored the action default, no longer ours") }
            }
            #expect(!daemon.events.value.contains { if case .clicked = $0.event { true } else { false } })
            #expect(!daemon.events.value.contains { if case .opened = $0.event { true } else { false } })
        }
    }

    /// A kill -9 leaves its daemon's notifications on screen; the next daemon's stage, on the
    /// same server, takes them over from the state the last one saved: the next notice of a
    /// repository shown before replaces its notification in place, listing only what is new.
    @Test func afterAKillDashNineTheNextStageTakesOverWhatTheLastShowed() async throws {
        let bus = try await PrivateBus()
        let connection = try await DBusConnection.connect(to: .address(bus.address))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gbnotify-adoption-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = StateFiles(StateDirectory(path: directory.path))
        let server = InMemoryNotificationServer()
        let account = try Account(instance: try GitbayInstance(parsing: "https://gitbay-0.test"), username: "cmc")
        func stage(_ connection: InMemoryNotificationServer.Connection, on bus: DBusConnection) async throws -> Desktop {
            let options = Desktop.Options(
                config: .defaults, environment: [:], icon: "gbnotify", browser: ["/bin/true"], timeline: Timeline(ManualClock()))
            return try await Desktop.start(on: bus, server: connection, state: state, options: options, logger: Logger(level: .debug) { _ in })
        }
        func notice(_ id: Int64, by actor: String, _ summary: String) -> DesktopNews {
            let item = InboxItem(
                id: id, repo: "krz/gitbay", kind: .issue, actor: actor, summary: summary, path: "krz/gitbay/issues/12",
                createdAt: "2026-09-20T10:11:12.123Z", readAt: nil)
            return .update(AccountUpdate(account: account, notices: [.item(item)], unread: .exact(Int(id))))
        }

        let killed = server.connect()
        let first = try await stage(killed, on: connection)
        await first.hand(.accounts([account]))
        await first.hand(notice(1, by: "eve", "opened issue #12"))
        let shown = try #require(server.shown.value.first)
        // The kill: the daemon's connection goes, and nothing of it withdraws anything.
        killed.disconnect()

        let second = try await stage(server.connect(), on: connection)
        await second.hand(.accounts([account]))
        await second.hand(notice(2, by: "ana", "commented on issue #12"))
        let replaced = try #require(server.shown.value.last)
        #expect(server.shown.value.count == 2)
        #expect(replaced.replacing == shown.id && replaced.id == shown.id)
        #expect(replaced.notification.body == "ana commented on issue #12\nand 1 more")
        #expect(server.onScreen.count == 1)

        await first.stop()
        await second.stop()
        #expect(server.onScreen.isEmpty)
        await connection.close()
        await bus.stop()
    }

    /// Undo's window survives a kill -9: the next stage takes the "Muted" notification over with
    /// the second its Undo ends. Started 13 s after the mute, it withdraws it at once; started
    /// 4 s after, it keeps it for the 6 s left, not for 10. Nothing is unmuted either way.
    @Test(arguments: [13, 4])
    func undosWindowIsTheOneShownWithTheMuteAcrossAKillDashNine(secondsLater: Int) async throws {
        let bus = try await PrivateBus()
        let connection = try await DBusConnection.connect(to: .address(bus.address))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gbnotify-undo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = StateFiles(StateDirectory(path: directory.path))
        let server = InMemoryNotificationServer()
        let account = try Account(instance: try GitbayInstance(parsing: "https://gitbay-0.test"), username: "cmc")
        let muteAt: Int64 = 1_796_166_000
        let requests = RecordedRequests()
        func stage(_ server: InMemoryNotificationServer.Connection, at wallClock: Int64, clock: ManualClock, on bus: DBusConnection) async throws -> Desktop {
            let options = Desktop.Options(
                config: .defaults, environment: [:], icon: "gbnotify", browser: ["/bin/true"], timeline: Timeline(clock),
                wallClockAtStart: wallClock)
            let desktop = try await Desktop.start(on: bus, server: server, state: state, options: options, logger: Logger(level: .debug) { _ in })
            await desktop.sendRequests(to: requests)
            return desktop
        }

        let killed = server.connect()
        let first = try await stage(killed, at: muteAt, clock: ManualClock(), on: connection)
        await first.hand(.accounts([account]))
        let item = InboxItem(
            id: 1, repo: "krz/quiet", kind: .issue, actor: "eve", summary: "opened issue #3", path: "krz/quiet/issues/3",
            createdAt: "2026-09-20T10:11:12.123Z", readAt: nil)
        await first.hand(.update(AccountUpdate(account: account, notices: [.item(item)], unread: .exact(1))))
        let shown = try #require(server.shown.value.first)
        server.click(shown.id, NotificationContent.muteAction)
        let afterMute = try await server.shown.wait(for: "the Muted notification") { $0.count == 2 }
        let muted = try #require(afterMute.last)
        #expect(muted.notification.summary.hasPrefix("Muted krz/quiet"))
        try await requests.taken.wait(for: "the mute") { $0 == [.setWatch(account, repository: "krz/quiet", .mute)] }
        // The kill comes after the stage wrote the Muted notification down: its id reaches the
        // stage in the server's answer, after the server has it on screen.
        try await withDeadline(.seconds(15), "the Muted notification saved") {
            while try await state.loadScreen().saved?.entries.contains(where: { $0.serverID == muted.id }) != true {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        killed.disconnect()

        let clock = ManualClock()
        let second = try await stage(server.connect(), at: muteAt + Int64(secondsLater), clock: clock, on: connection)
        await second.hand(.accounts([account]))
        func withdrawn() async throws {
            try await withDeadline(.seconds(15), "the Muted notification withdrawn") {
                while server.onScreen[muted.id] != nil { try await Task.sleep(for: .milliseconds(20)) }
            }
        }
        if secondsLater >= 10 {
            try await withdrawn()
        } else {
            // The window's timer, and nothing else, waits on the stage's clock.
            try await clock.waitForSleepers(1)
            clock.advance(by: .seconds(10 - secondsLater - 1))
            #expect(server.onScreen[muted.id] != nil)
            clock.advance(by: .seconds(1))
            try await withdrawn()
        }
        #expect(requests.taken.value == [.setWatch(account, repository: "krz/quiet", .mute)])

        await first.stop()
        await second.stop()
        await connection.close()
        await bus.stop()
    }

    @Test func aNoticeReadElsewhereIsWithdrawnAtTheNextPoll() async throws {
        try await InProcessDaemon.run(desktop: true) { daemon in
            let server = try #require(daemon.stage?.server)
            let (row, shown) = try await Self.show(daemon)
            let polls = daemon.polls(of: 0).count
            daemon.gitbays[0].readElsewhere([row])
            try await daemon.advance(until: "the withdrawal") { server.closed.value == [shown.id] }

            #expect(daemon.polls(of: 0).count == polls + 1)
            #expect(daemon.events.value.contains { $0.event == .withdrawn(notification: shown.id) })
        }
    }
}

/// What the desktop stage asked of the accounts, in order: its requests' taker in tests that run
/// the stage alone.
final class RecordedRequests: AccountRequests {
    let taken = Observed<[DesktopRequest]>([])

    func asked(_ request: DesktopRequest) {
        taken.update { $0.append(request) }
    }
}

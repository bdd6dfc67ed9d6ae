import DBus
import Desktop
import Foundation
import Logging
import MainLoop
import Notifications
import PushCore
import StateStore
import TestSupport
import Testing

/// The desktop stage's part of answering from a notification, on the in-memory server: "👍" and
/// "Reply…" go where a click's request goes, what became of it is said with Undo for a reaction,
/// and Undo takes it back. The account's side (the requests on its instance) is `AnswerDesktopTests`,
/// on dunst and the stand-in.
@Suite struct InProcessAnswerTests {
    struct Stage {
        let desktop: Desktop
        let server: InMemoryNotificationServer
        let requests: RecordedRequests
        let clock: ManualClock
        let account: Account
        let opened: Observed<[[String]]>
        let logs: Observed<[String]>
    }

    static let wallClock: Int64 = 1_796_166_000

    static func run(_ body: (Stage) async throws -> Void) async throws {
        let bus = try await PrivateBus()
        let connection = try await DBusConnection.connect(to: .address(bus.address))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gbnotify-answer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = InMemoryNotificationServer()
        let clock = ManualClock()
        let opened = Observed<[[String]]>([])
        let config = try Config.parse("terminal = /bin/true --\n")
        let logs = Observed<[String]>([])
        let options = Desktop.Options(
            config: config, environment: [:], icon: "gbnotify", browser: ["/bin/true"], timeline: Timeline(clock),
            events: DaemonEvents { event in if case .opened(let argv) = event { opened.update { $0.append(argv) } } },
            wallClockAtStart: wallClock)
        let desktop = try await Desktop.start(
            on: connection, server: server.connect(), state: StateFiles(StateDirectory(path: directory.path)), options: options,
            logger: Logger(level: .debug) { line in logs.update { $0.append(line) } })
        let requests = RecordedRequests()
        await desktop.sendRequests(to: requests)
        let account = try Account(instance: try GitbayInstance(parsing: "https://gitbay-0.test"), username: "cmc")
        await desktop.hand(.accounts([account]))
        try await body(Stage(desktop: desktop, server: server, requests: requests, clock: clock, account: account, opened: opened, logs: logs))
        await desktop.stop()
    }

    static func notice(_ id: Int64, path: String, kind: ItemKind = .issue) -> InboxItem {
        InboxItem(
            id: id, repo: "krz/gitbay", kind: kind, actor: "eve", summary: "opened it", path: path,
            createdAt: "2026-09-20T10:11:12.123Z", readAt: nil)
    }

    @Test func thumbsUpAsksForPlusOneOnTheItemAndUndoTakesItBack() async throws {
        try await Self.run { stage in
            await stage.desktop.hand(.update(AccountUpdate(
                account: stage.account, notices: [.item(Self.notice(5, path: "krz/gitbay/issues/12"))], unread: .exact(1))))
            let shown = try #require(stage.server.shown.value.first)
            #expect(shown.notification.actions.map(\.label).contains("👍"))
            stage.server.click(shown.id, NotificationContent.reactAction)
            let issue = try #require(NotificationDestination(path: "krz/gitbay/issues/12"))
            try await stage.requests.taken.wait(for: "the reaction asked") {
                $0 == [.answer(stage.account, ItemAnswer(destination: issue, rows: [5], kind: .react(reaction: "+1", remove: false)))]
            }

            // What the account's poller hands back once the instance has it, after the row was read.
            await stage.desktop.hand(.update(AccountUpdate(account: stage.account, unread: .exact(0), read: .marked([5]))))
            #expect(stage.server.closed.value == [shown.id])
            await stage.desktop.hand(.answered(stage.account, .reacted(path: issue.path, reaction: "+1")))
            let said = try #require(stage.server.shown.value.last)
            #expect(said.notification.summary == "Reacted 👍 to krz/gitbay#12")
            #expect(said.notification.actions.map(\.key) == [NotificationContent.undoAction])

            stage.server.click(said.id, NotificationContent.undoAction)
            try await stage.requests.taken.wait(for: "the reaction taken back") {
                $0.last == .answer(stage.account, ItemAnswer(destination: issue, rows: [], kind: .react(reaction: "+1", remove: true)))
            }
            try await stage.server.closed.wait(for: "the Reacted notification withdrawn") { $0.contains(said.id) }
        }
    }

    @Test func anUndoAfterItsTimeTakesNothingBackAndTheNotificationGoesByItself() async throws {
        try await Self.run { stage in
            await stage.desktop.hand(.answered(stage.account, .reacted(path: "krz/gitbay/mrs/31", reaction: "+1")))
            let said = try #require(stage.server.shown.value.last)
            #expect(said.notification.summary == "Reacted 👍 to krz/gitbay!31")
            try await stage.clock.waitForSleepers(1)
            stage.clock.advance(by: .seconds(10))
            try await stage.server.closed.wait(for: "the Reacted notification gone after 10 s") { $0.contains(said.id) }
            stage.server.click(said.id, NotificationContent.undoAction)
            // A click on a notification already withdrawn asks nothing, and is said.
            try await stage.logs.wait(for: "the late Undo said") { $0.contains { $0.contains("ignored the action undo, no longer ours") } }
            #expect(stage.requests.taken.value.isEmpty)
        }
    }

    @Test func aFailureIsSaidUntilDismissed() async throws {
        try await Self.run { stage in
            await stage.desktop.hand(.answered(
                stage.account, .replyKept(path: "krz/gitbay/issues/12", reason: .notPosted(.offline("timeout")))))
            let said = try #require(stage.server.shown.value.last)
            #expect(said.notification.summary == "Your reply to krz/gitbay#12 was not posted")
            #expect(said.notification.staysUntilDismissed)
            try await stage.clock.waitForSleepers(0)
            stage.clock.advance(by: .seconds(3600))
            await stage.desktop.hand(.accounts([stage.account]))
            #expect(!stage.server.closed.value.contains(said.id))
        }
    }

    @Test func replyOpensGbnotifysReplyInTheTerminalAndBuildsGetNone() async throws {
        try await Self.run { stage in
            await stage.desktop.hand(.update(AccountUpdate(
                account: stage.account,
                notices: [.item(Self.notice(5, path: "krz/gitbay/mrs/31", kind: .mr)), .item(Self.notice(6, path: "krz/docs/builds/9", kind: .build))],
                unread: .exact(2))))
            let shown = stage.server.shown.value
            let mr = try #require(shown.first { $0.notification.summary == "krz/gitbay" })
            let build = try #require(shown.first { $0.notification.summary == "krz/docs" })
            #expect(mr.notification.actions.map(\.label) == ["Open", "Mark read", "Reply…", "👍"])
            #expect(build.notification.actions.map(\.label) == ["Open", "Mark read", "Mute"])
            stage.server.click(mr.id, NotificationContent.replyAction)
            let argv = try await stage.opened.wait(for: "the reply launched") { !$0.isEmpty }
            #expect(argv.count == 1)
            #expect(argv.first.map { Array($0[..<2]) } == ["/bin/true", "--"])
            // The gbnotifyctl beside the daemon (this build's), else PATH's.
            #expect(argv.first?[2].hasSuffix("gbnotifyctl") == true)
            #expect(argv.first.map { Array($0[3...]) } == ["show", "--reply", "cmc@gitbay-0.test", "krz/gitbay/mrs/31"])
            #expect(stage.requests.taken.value.isEmpty)
        }
    }
}

import DBus
import Daemon
import PushCore
import TestSupport
import Testing

/// A notification server that refuses a notification (KDE refuses a repeat within a second):
/// the presenter tries once more after a second, then logs and drops it, and goes on. The
/// server is a fake on a bus of the test's own, as no real one can be made to refuse.
@Suite struct RefusedNotificationTests {
    static let account = try! Account(instance: GitbayInstance(parsing: "https://gitbay.example"), username: "cmc")

    static func update(_ id: Int64) -> AccountUpdate {
        let row = InboxItem(
            id: id, repo: "krz/repo\(id)", kind: .issue, actor: "eve", summary: "opened issue #\(id)",
            path: "krz/repo\(id)/issues/\(id)", createdAt: "2026-01-01T00:00:00Z", readAt: nil)
        return AccountUpdate(account: account, notices: [.item(row)], unread: .exact(1), withdrawn: [])
    }

    /// A presenter on a private bus (no dunst) whose notification server refuses `refusals` times.
    static func run(
        refusals: Int, test: String = #function,
        _ body: (DesktopPresenter, FakeNotificationServer, Observed<[String]>) async throws -> Void
    ) async throws {
        try await PrivateSession.run(test: test) {
            let server = try await FakeNotificationServer.start(capabilities: ["body"], refusals: refusals)
            let connection = try await DBusConnection.connect()
            let log = Observed<[String]>([])
            let presenter = try await DesktopPresenter.start(
                on: connection, options: DesktopPresenter.Options(config: .defaults, environment: [:]),
                markRead: { _, _ in }, logger: Logger(level: .debug) { line in log.update { $0.append(line) } })
            do {
                try await body(presenter, server, log)
            } catch {
                await presenter.stop()
                await connection.close()
                await server.stop()
                throw error
            }
            await presenter.stop()
            await connection.close()
            await server.stop()
        }
    }

    @Test func aRefusedNotificationIsTriedOnceMoreAndShown() async throws {
        try await Self.run(refusals: 1) { presenter, server, log in
            await presenter.present(Self.update(7))
            #expect(server.notifyCalls.value == ["krz/repo7", "krz/repo7"])
            #expect(await presenter.onScreen(for: Self.account) == [7])
            #expect(log.value.contains { $0.hasPrefix("<4>") && $0.contains("refused notice 7") && $0.contains("trying once more") })
            #expect(log.value.contains { $0.contains("showing notice 7 as notification 1") })
        }
    }

    @Test func aNotificationRefusedTwiceIsLoggedAndDroppedAndTheNextIsShown() async throws {
        try await Self.run(refusals: 2) { presenter, server, log in
            await presenter.present(Self.update(7))
            #expect(server.notifyCalls.value == ["krz/repo7", "krz/repo7"])
            #expect(await presenter.onScreen(for: Self.account).isEmpty)
            let dropped = log.value.filter { $0.contains("refused notice 7 again") }
            #expect(dropped.count == 1)
            #expect(dropped.first?.hasPrefix("<3>") == true)
            #expect(dropped.first?.contains(FakeNotificationServer.refusal) == true)

            await presenter.present(Self.update(8))
            #expect(await presenter.onScreen(for: Self.account) == [8])
            #expect(log.value.contains { $0.contains("showing notice 8 as notification 1") })
        }
    }
}

import DBus
import Daemon
import Desktop
import Foundation
import Logging
import PushCore
import StateStore
import TestSupport
import Testing
import MainLoop

/// A notification server that refuses a notification (Plasma refuses a repeat within a
/// second): the desktop tries once more a second later, then logs and drops it, and goes on.
/// The server is a fake on a bus of the test's own, as no real one can be made to refuse.
@Suite struct RefusedNotificationTests {
    static let account = try! Account(instance: GitbayInstance(parsing: "https://gitbay.example"), username: "cmc")

    static func update(_ id: Int64) -> DesktopNews {
        let row = InboxItem(
            id: id, repo: "krz/repo\(id)", kind: .issue, actor: "eve", summary: "opened issue #\(id)",
            path: "krz/repo\(id)/issues/\(id)", createdAt: "2026-01-01T00:00:00Z", readAt: nil)
        return .update(AccountUpdate(account: account, notices: [.item(row)], unread: .exact(Int(id))))
    }

    static func run(
        refusals: Int, test: String = #function,
        _ body: (Desktop, FakeNotificationServer, ManualClock, Observed<[String]>) async throws -> Void
    ) async throws {
        try await FakeServerDesktop.run(refusals: refusals, test: test, body)
    }

    @Test func aRefusedNotificationIsTriedOnceMoreASecondLaterAndShown() async throws {
        try await Self.run(refusals: 1) { desktop, server, clock, log in
            Task { await desktop.hand(Self.update(7)) }
            try await log.wait(for: "the refusal") { $0.contains { $0.contains("refused notice 7") } }
            try await clock.waitForSleepers(1)
            #expect(server.notifyCalls.value == ["krz/repo7"])
            clock.advance(by: .seconds(1))
            try await log.wait(for: "the notice shown") { $0.contains { $0.contains("showing notice 7 as notification 1") } }
            #expect(server.notifyCalls.value == ["krz/repo7", "krz/repo7"])
            #expect(log.value.contains { $0.hasPrefix("<4>") && $0.contains("refused notice 7") && $0.contains("trying once more") })
        }
    }

    @Test func aNotificationRefusedTwiceIsLoggedAndDroppedAndTheNextIsShown() async throws {
        try await Self.run(refusals: 2) { desktop, server, clock, log in
            Task { await desktop.hand(Self.update(7)) }
            try await clock.waitForSleepers(1)
            clock.advance(by: .seconds(1))
            let dropped = try await log.wait(for: "the drop") { $0.contains { $0.contains("refused notice 7 again") } }
                .filter { $0.contains("refused notice 7 again") }
            #expect(server.notifyCalls.value == ["krz/repo7", "krz/repo7"])
            #expect(dropped.count == 1)
            #expect(dropped.first?.hasPrefix("<3>") == true)
            #expect(dropped.first?.contains(FakeNotificationServer.refusal) == true)

            await desktop.hand(Self.update(8))
            try await log.wait(for: "the next notice") { $0.contains { $0.contains("showing notice 8 as notification 1") } }
            #expect(server.shown.value.map(\.summary) == ["krz/repo8"])
        }
    }
}

import Desktop
import Notifications
import TestSupport
import Testing

/// A notification server that never answers a `Notify` (Cinnamon 5.6 throws on some
/// replacements and sends no reply): the call costs its own deadline, and nothing else waits
/// behind it. The server is a fake on a bus of the test's own, which can be told to stay silent.
@Suite struct UnansweredNotificationTests {
    @Test func anUnansweredNotifyHoldsUpNeitherAnotherNoticeNorAStop() async throws {
        try await FakeServerDesktop.run(unanswered: ["krz/repo7"]) { desktop, server, clock, log in
            let first = Task { await desktop.hand(RefusedNotificationTests.update(7)) }
            try await server.notifyCalls.wait(for: "notice 7's Notify") { $0.contains("krz/repo7") }

            // Within the call's deadline: the next notice does not queue behind it.
            let second = Task { await desktop.hand(RefusedNotificationTests.update(8)) }
            let shown = try await server.shown.wait(for: "notice 8 shown", timeout: NotificationClient.callTimeout / 2) {
                $0.map(\.summary).contains("krz/repo8")
            }
            await second.value
            #expect(shown.map(\.summary) == ["krz/repo8"])
            #expect(!log.value.contains { $0.contains("showing notice 7") })

            // The stop gives the server its limit (on the test's clock), then goes: notice 7's
            // Notify is still unanswered then, long before the call's own deadline.
            let stop = Task { await desktop.stop() }
            try await clock.waitForSleepers(1)
            #expect(Desktop.stopLimit < .seconds(2))
            clock.advance(by: Desktop.stopLimit)
            await stop.value
            #expect(!log.value.contains { $0.contains("notice 7") && $0.contains("refused") })
            // The stop answered the news whose notice was never shown.
            await first.value
        }
    }
}

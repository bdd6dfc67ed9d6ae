import Desktop
import PushCore
import TestSupport
import Testing

/// What reaches the notification server as a call's hints and expiry: the urgency and sound the
/// rules decide (or `suppress-sound`), a hidden notice never sent, and the token warning kept
/// until dismissed. Seen on a fake server, as no real one reports the hints it was given.
@Suite struct NotificationHintsTests {
    static let account = RefusedNotificationTests.account

    static func row(_ id: Int64, kind: ItemKind, actor: String, repo: String) -> InboxItem {
        let noun = kind == .build ? "builds" : "issues"
        return InboxItem(
            id: id, repo: repo, kind: kind, actor: actor, summary: "notice \(id)", path: "\(repo)/\(noun)/\(id)",
            createdAt: "2026-01-01T00:00:00Z", readAt: nil)
    }

    @Test func aRuleSetsUrgencyAndSoundAndAHiddenNoticeIsNeverSent() async throws {
        let config = try Config.parse("""
            sound = message-new-instant

            [rule builds]
            kind = build
            urgency = low
            sound = none

            [rule bots]
            actor = *-bot
            show = none
            """)
        try await FakeServerDesktop.run(config: config) { desktop, server, _, _ in
            let rows = [
                Self.row(1, kind: .issue, actor: "eve", repo: "krz/gitbay"),
                Self.row(2, kind: .build, actor: "ci", repo: "krz/builds"),
                Self.row(3, kind: .issue, actor: "dep-bot", repo: "krz/deps"),
            ]
            await desktop.hand(.update(AccountUpdate(account: Self.account, notices: rows.map { .item($0) }, unread: .exact(3))))
            // Each notification is its own call, sent side by side: they arrive in either order.
            let shown = server.shown.value
            #expect(shown.map(\.summary).sorted() == ["krz/builds", "krz/gitbay"])
            let issue = try #require(shown.first { $0.summary == "krz/gitbay" })
            #expect(issue.urgency == 1)
            #expect(issue.sound == "message-new-instant")
            #expect(!issue.suppressesSound)
            let build = try #require(shown.first { $0.summary == "krz/builds" })
            #expect(build.urgency == 0)
            #expect(build.sound == nil)
            #expect(build.suppressesSound)
        }
    }

    @Test func theTokenWarningStaysUntilDismissedAtNormalUrgency() async throws {
        try await FakeServerDesktop.run { desktop, server, _, _ in
            await desktop.hand(.tokenRejected(Self.account))
            let warning = try #require(server.shown.value.first)
            #expect(warning.summary == "Sign in again to gitbay.example")
            #expect(warning.urgency == 1)
            #expect(warning.resident)
            #expect(warning.expiresAfter == 0)
        }
    }
}

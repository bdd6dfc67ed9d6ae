import Daemon
import Foundation
import GitbayClient
import PushCore
import TestSupport
import Testing

/// Delivered payloads on a real desktop: dunst on a bus of this suite's own, the supervisor
/// polling a stand-in every half second (`DesktopPresenterTests.run`).
@Suite(.serialized, SharedNotificationSession()) struct DeliveryDesktopTests {
    typealias World = DesktopPresenterTests.World

    static func notice(in world: World, body: String = "eve opened issue #12", path: String = "krz/gitbay/issues/12", badge: Int = 1) -> String {
        let account = world.harness.instances[0].account
        return """
            {"aps": {"alert": {"title": "krz/gitbay", "body": "\(body)"}, "badge": \(badge)},
             "path": "\(path)", "instance": "\(account.instance.url)", "user": "\(account.username)"}
            """
    }

    static func displayed(_ world: World) async throws -> String {
        try await world.session.dunstctl("count", "displayed").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Delivers the default notice (shown), then adds the row it announces and waits for the
    /// poll that finds it and pairs the two; returns the row's id.
    static func deliverThenAddItsRow(in world: World) async throws -> Int {
        #expect(await world.supervisor.deliver(notice(in: world), via: .relay) == .shown)
        let id = try await world.standin.addNotification(
            for: Harness.username, repo: "krz/gitbay", kind: "issue", actor: "eve", summary: "opened issue #12",
            path: "krz/gitbay/issues/12")
        try await world.harness.waitForLog(": 200 ok", occurrence: 2)
        return id
    }

    @Test func aDeliveredNoticeShowsLikeAPolledOneAndItsClickOpensItsItem() async throws {
        try await DesktopPresenterTests.run { world in
            try await world.watchingBadge { _, badges in
                let payload = Self.notice(in: world, body: "eve said <b>hi</b> & left", path: "krz/gitbay/mrs/3", badge: 4)
                #expect(await world.supervisor.deliver(payload, via: .bus) == .shown)
                try await badges.wait(for: "the payload's badge") { $0.last == 4 }
                try await world.session.dunstctl("action", "0")
                #expect(try await world.session.opener.nextLaunch().arguments == ["\(world.instanceURL)/krz/gitbay/mrs/3"])
                let history = try await world.session.closeAllAndReadHistory()
                #expect(history.first == NotificationSession.HistoryEntry(
                    summary: "krz/gitbay", body: "eve said &lt;b&gt;hi&lt;/b&gt; &amp; left", appName: "gitbay",
                    category: "x-gitbay.mr"))
            }
        }
    }

    @Test func deliveredThenPolledIsShownOnceAndMarkReadMarksItsRow() async throws {
        try await DesktopPresenterTests.run { world in
            let id = try await Self.deliverThenAddItsRow(in: world)
            #expect(!world.harness.log.value.contains { $0.contains("showing notice \(id)") })
            #expect(try await Self.displayed(world) == "1")

            // dunst's context menu picks "Mark read".
            try await world.session.dunstctl("context")
            try await world.harness.waitForLog("marked notice \(id) read")
            let reads = try await world.standin.requests().filter { $0.argv?.starts(with: ["notifications", "read"]) == true }
            #expect(reads.map(\.argv) == [["notifications", "read", String(id)]])
            #expect(try await Self.displayed(world) == "0")
        }
    }

    @Test func polledThenDeliveredIsShownOnceAndItsClickOpensItsItem() async throws {
        try await DesktopPresenterTests.run { world in
            try await world.show(repo: "krz/gitbay", actor: "eve", summary: "opened issue #12", path: "krz/gitbay/issues/12")
            #expect(await world.supervisor.deliver(Self.notice(in: world), via: .relay) == .alreadyShown)
            #expect(try await Self.displayed(world) == "1")
            try await world.session.dunstctl("action", "0")
            #expect(try await world.session.opener.nextLaunch().arguments == ["\(world.instanceURL)/krz/gitbay/issues/12"])
            #expect(await world.supervisor.status().deliveries == DeliveryCounts(alreadyShown: 1))
        }
    }

    @Test func aReadElsewhereDeliveredNoticeIsWithdrawnOncePaired() async throws {
        try await DesktopPresenterTests.run { world in
            let id = try await Self.deliverThenAddItsRow(in: world)
            // Read on the web: the next poll no longer lists it.
            let instance = world.harness.instances[0]
            let client = GitbayClient(instance: instance.account.instance, token: try APIToken(instance.token))
            _ = try await client.send(.notificationsRead(ids: [Int64(id)]))
            try await world.harness.waitForLog("notice \(id) was read; withdrawing notification")
            #expect(try await Self.displayed(world) == "0")
        }
    }
}

import Daemon
import DesktopSuites
import Foundation
import GitbayClient
import PushCore
import TestSupport
import Testing

/// Polling two accounts (the same username on two instances) in-process, against stand-ins.
@Suite(.needsDesktopSession) struct PollingTests {
    @Test func aNewRowIsReportedOnceWithItsAccount() async throws {
        try await Harness.run { harness in
            let (first, second) = (harness.instances[0].account, harness.instances[1].account)
            let supervisor = harness.supervisor()
            try await supervisor.start()
            // First sight of two empty inboxes: a count for the badge, nothing to show.
            #expect(try await harness.desktop.waitForUpdates(1, for: first)
                == [AccountUpdate(account: first, notices: [], unread: .exact(0), read: .unreadPage([], isComplete: true))])
            try await harness.desktop.waitForUpdates(1, for: second)

            let id = try await harness.instances[1].standin.addNotification(
                for: Harness.username, repo: "krz/gitbay", actor: "noor", summary: "opened issue #12")
            let notices = try await harness.desktop.waitForNotices(1, for: second)
            guard case .item(let item) = notices.first else {
                Issue.record("not an individual notice: \(notices)")
                return
            }
            #expect(item.id == Int64(id))
            #expect(item.repo == "krz/gitbay")
            #expect(item.actor == "noor")
            #expect(item.summary == "opened issue #12")
            #expect(harness.desktop.updates(for: second).last?.unread == .exact(1))

            // Three more polls of that inbox: still shown once, and never for the other account,
            // whose unchanged inbox cost a 304 without a body every time after the first.
            let seen = try await harness.listRequests(1).count
            try await harness.waitForListRequests(seen + 3, on: 1)
            #expect(harness.desktop.notices(for: second).count == 1)
            #expect(harness.desktop.notices(for: first).isEmpty)
            // The accounts poll independently, with jitter: wait for the other one's polls too
            // rather than assume it kept pace.
            try await harness.waitForListRequests(4, on: 0)
            let unchanged = try await harness.listRequests(0)
            #expect(unchanged.dropFirst().allSatisfy { $0.status == 304 && $0.header("If-None-Match") != nil })

            let status = try await harness.status(of: 1, from: supervisor)
            #expect(status.state == .ok)
            #expect(status.unread == 1)
            #expect(status.lastError == nil)
        }
    }

    @Test(arguments: [Harness.Wire.direct, .http2Front])
    func anUnchangedInboxCostsA304WithNoBodyAndNoStateWrite(_ wire: Harness.Wire) async throws {
        try await Harness.run(1, wire: wire) { harness in
            let standin = harness.instances[0].standin
            try await standin.addNotifications(for: Harness.username, count: 2)
            let supervisor = harness.supervisor()
            try await supervisor.start()
            // The second list request comes after the first answer was shown and saved.
            try await harness.waitForListRequests(2, on: 0)
            let stateFile = harness.state.path + "/accounts.json"
            let before = try FileManager.default.attributesOfItem(atPath: stateFile)

            let requests = try await harness.waitForListRequests(6, on: 0)
            let etag = try #require(try await standin.state().users.first?.etag)
            #expect(requests[0].header("If-None-Match") == nil)
            for request in requests.dropFirst() {
                #expect(request.header("If-None-Match") == etag)
                #expect(request.status == 304)
            }
            // Written atomically means a new inode per write: the same one means no write.
            let after = try FileManager.default.attributesOfItem(atPath: stateFile)
            #expect(after[.systemFileNumber] as? Int == before[.systemFileNumber] as? Int)
            #expect(after[.modificationDate] as? Date == before[.modificationDate] as? Date)
            #expect(harness.desktop.updates(for: harness.instances[0].account).count == 1)
            #expect(try await harness.status(of: 0, from: supervisor).lastResult?.description == "304 not modified")
        }
    }

    @Test func fiveHundredNewRowsBecomeOneSummary() async throws {
        try await Harness.run(1) { harness in
            let account = harness.instances[0].account
            let supervisor = harness.supervisor()
            try await supervisor.start()
            try await harness.desktop.waitForUpdates(1, for: account)

            let ids = try await harness.instances[0].standin.addNotifications(for: Harness.username, count: 500)
            let notices = try await harness.desktop.waitForNotices(1, for: account)
            // A bare list holds 50 rows, so the summary knows "50 or more"; the badge gets the
            // exact count from the dashboard.
            #expect(notices == [.summary(count: 50, isAtLeast: true, rowIDs: ids.suffix(50).map(Int64.init), isFirstSight: false)])
            #expect(harness.desktop.updates(for: account).last?.unread == .exact(500))
            #expect(try await harness.instances[0].standin.requests().contains { $0.queryArgv == ["dashboard"] })

            let seen = try await harness.listRequests(0).count
            try await harness.waitForListRequests(seen + 2, on: 0)
            #expect(harness.desktop.notices(for: account).count == 1)
            #expect(try await harness.status(of: 0, from: supervisor).unread == 500)
        }
    }

    @Test func anOlderServerWithoutDashboardUnreadGivesAFloor() async throws {
        try await Harness.run(1) { harness in
            let standin = harness.instances[0].standin
            try await standin.configure(.init(dashboardUnread: false))
            try await standin.addNotifications(for: Harness.username, count: 60)
            let account = harness.instances[0].account
            try await harness.supervisor().start()
            let update = try #require(try await harness.desktop.waitForUpdates(1, for: account).first)
            #expect(update.notices == [.summary(count: 50, isAtLeast: true, rowIDs: Array(11...60), isFirstSight: true)])
            #expect(update.unread == .atLeast(50))
        }
    }

    @Test func aNoticeReadElsewhereIsHandedOnAsRead() async throws {
        try await Harness.run(1) { harness in
            let instance = harness.instances[0]
            try await harness.supervisor().start()
            try await harness.desktop.waitForUpdates(1, for: instance.account)
            let id = Int64(try await instance.standin.addNotification(for: Harness.username))
            try await harness.desktop.waitForNotices(1, for: instance.account)

            let client = GitbayClient(instance: instance.account.instance, token: try APIToken(instance.token))
            let before = harness.desktop.updates(for: instance.account).count
            #expect(harness.desktop.updates(for: instance.account).last?.read.contains(id) == false)
            guard case .success = try await client.send(.notificationsRead(ids: [id])) else {
                Issue.record("could not mark the row read")
                return
            }
            try await harness.desktop.news.wait(for: "the row read") { news in
                RecordingDesktop.updates(in: news, for: instance.account).dropFirst(before).contains { $0.read.contains(id) }
            }
            #expect(harness.desktop.updates(for: instance.account).last?.unread == .exact(0))
        }
    }
}

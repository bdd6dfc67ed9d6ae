import Daemon
import DesktopSuites
import Foundation
import PushCore
import StateStore
import TestSupport
import Testing

/// What survives a restart: the high-water mark and the ETag, in the state directory.
@Suite(.needsDesktopSession) struct RestartTests {
    @Test func restartsShowNothingTwiceAndMissNothing() async throws {
        try await Harness.run(1) { harness in
            let standin = harness.instances[0].standin
            let account = harness.instances[0].account
            let unread = try await standin.addNotifications(for: Harness.username, count: 2)

            // First run: a first sight of what is unread, then one new row on its own.
            let first = RecordingDesktop()
            let firstRun = harness.supervisor(desktop: first.sink)
            try await firstRun.start()
            try await first.waitForUpdates(1, for: account)
            let shown = try await standin.addNotification(for: Harness.username)
            try await first.waitForNotices(2, for: account)
            await firstRun.stop()
            #expect(first.notices(for: account).map(\.gist) == [.firstSight(2, Int64(unread.last!)), .item(Int64(shown))])

            // Two rows while it is down: shown one by one after the restart, nothing old again.
            let whileDown = try await standin.addNotifications(for: Harness.username, count: 2)
            let second = RecordingDesktop()
            let secondRun = harness.supervisor(desktop: second.sink)
            try await secondRun.start()
            try await second.waitForNotices(2, for: account)
            try await harness.waitForListRequests(harness.listRequests(0).count + 2, on: 0)
            await secondRun.stop()
            #expect(second.notices(for: account).map(\.gist) == whileDown.map { .item(Int64($0)) })

            // More than three while it is down: one summary of them.
            let many = try await standin.addNotifications(for: Harness.username, count: 4)
            let third = RecordingDesktop()
            try await harness.supervisor(desktop: third.sink).start()
            try await third.waitForNotices(1, for: account)
            try await harness.waitForListRequests(harness.listRequests(0).count + 2, on: 0)
            #expect(third.notices(for: account).map(\.gist) == [.new(4, Int64(many.last!))])
            #expect(third.updates(for: account).first?.unread == .exact(9))
        }
    }

    @Test func aCorruptStateFileIsSetAsideWithoutReplayingTheInbox() async throws {
        try await Harness.run(1) { harness in
            let account = harness.instances[0].account
            let ids = try await harness.instances[0].standin.addNotifications(for: Harness.username, count: 3)
            try harness.state.create()
            let stateFile = harness.state.path + "/accounts.json"
            // Cut off mid-write, as by a full disk.
            try Data(#"{"accounts":{"\#(account.id)":{"highWater":"#.utf8).write(to: URL(fileURLWithPath: stateFile))

            let supervisor = harness.supervisor()
            try await supervisor.start()
            let notices = try await harness.desktop.waitForNotices(1, for: account)
            #expect(notices.map(\.gist) == [.firstSight(3, Int64(ids.last!))])
            #expect(harness.log.value.contains { $0.hasPrefix("<4>") && $0.contains("accounts.json was unreadable; kept it as") })
            let setAside = try FileManager.default.contentsOfDirectory(atPath: harness.state.path)
                .filter { $0.hasPrefix("accounts.json.corrupt-") }
            #expect(setAside.count == 1)

            // Rebuilt: the next run starts from the saved mark, not from another first sight.
            try await harness.waitForListRequests(2, on: 0)
            let rebuilt = try JSONDecoder().decode(PersistedAccounts.self, from: Data(contentsOf: URL(fileURLWithPath: stateFile)))
            #expect(rebuilt.accounts[account.id]?.highWater == Int64(ids.last!))
            #expect(rebuilt.accounts[account.id]?.deviceID != nil)
        }
    }
}

/// Notices in a form that compares plainly: a summary by its count and newest row.
enum NoticeGist: Equatable {
    case item(Int64)
    case firstSight(Int, Int64)
    case new(Int, Int64)
    case other(String)
}

extension InboxCycle.Notice {
    var gist: NoticeGist {
        switch self {
        case .item(let item): .item(item.id)
        case .summary(let count, false, let rows, true) where rows.last != nil: .firstSight(count, rows.last!)
        case .summary(let count, false, let rows, false) where rows.last != nil: .new(count, rows.last!)
        default: .other("\(self)")
        }
    }
}

import Foundation
import PushCore
import TestSupport
import Testing

/// Noise control on the real desktop stage, through dunst: what the rules keep off the screen,
/// and what a snooze or quiet hours hold back until their end, then show as one summary.
extension DesktopTests {
    /// The summaries of what dunst showed after its notification `after` (0 for all), newest
    /// first: its history keeps only the last 20, so earlier tests' are told apart by id.
    static func shown(after: Int) async throws -> [String] {
        try await Dunst.ctl("close-all")
        return try await dunstHistory().filter { $0.id > after }.map(\.summary)
    }

    /// The id of the newest notification in dunst's history; 0 for none.
    static func newestShown() async throws -> Int {
        try await dunstHistory().map(\.id).max() ?? 0
    }

    private static func dunstHistory() async throws -> [(id: Int, summary: String)] {
        let json = try JSONSerialization.jsonObject(with: Data(try await Dunst.ctl("history").utf8)) as? [String: Any]
        let entries = (json?["data"] as? [[[String: Any]]] ?? []).flatMap { $0 }
        return entries.map { entry in
            ((entry["id"] as? [String: Any])?["data"] as? Int ?? 0, (entry["summary"] as? [String: Any])?["data"] as? String ?? "")
        }
    }

    @Test func aSilentRuleKeepsANoticeOffTheScreenButInTheBadge() async throws {
        let config = try Config.parse("[rule bots]\nactor = ci-bot\nshow = silent\n")
        try await Self.run(startConfig: config) { world in
            let before = try await Self.newestShown()
            try await world.watchingBadge { _, badges in
                try await world.standin.addNotification(
                    for: Harness.username, repo: "krz/bots", kind: "build", actor: "ci-bot", summary: "build #4 passed",
                    path: "krz/bots/builds/4")
                try await world.show(repo: "krz/gitbay", actor: "eve")
                try await badges.wait(for: "a badge of 2") { $0.last == 2 }
            }
            #expect(try await Self.shown(after: before) == ["krz/gitbay"])
        }
    }

    @Test func aSnoozeHoldsPopupsAndItsEndShowsOneSummaryOfWhatCame() async throws {
        try await Self.run { world in
            let before = try await Self.newestShown()
            let now = Int64(Date().timeIntervalSince1970)
            try world.harness.state.updateNoise { $0.snooze(nil, until: now + 3600, now: now) }
            try await world.supervisor.reload()
            for number in [12, 13] {
                try await world.standin.addNotification(
                    for: Harness.username, repo: "krz/gitbay", kind: "issue", actor: "eve", summary: "opened issue #\(number)",
                    path: "krz/gitbay/issues/\(number)")
            }
            try await world.harness.waitForEvents("2 held") { $0 == .held(world.account, count: 2) }
            #expect(try await Dunst.displayed() == 0)
            let held = await world.supervisor.status().accounts.first
            #expect(held?.popupsHeld?.hasPrefix("snoozed until ") == true)
            #expect(held?.hold == Hold(reason: .snoozed, until: now + 3600))

            // `gbnotifyctl snooze off` writes the same, then asks for a reload.
            try world.harness.state.updateNoise { _ = $0.endSnooze(nil, now: now) }
            try await world.supervisor.reload()
            try await world.harness.waitForSummary(of: 2)
            #expect(await world.supervisor.status().accounts.first?.popupsHeld == nil)
            #expect(try await Self.shown(after: before) == ["2 new on \(world.account.instance.displayName) as cmc while snoozed"])
        }
    }

    @Test func aSnoozeOutlivesARestart() async throws {
        try await Self.run { world in
            let before = try await Self.newestShown()
            try await world.show(repo: "krz/gitbay")
            let now = Int64(Date().timeIntervalSince1970)
            try world.harness.state.updateNoise { $0.snooze(nil, until: now + 3600, now: now) }
            // Stopped cleanly, as on logout, and started again: the snooze is read at the start,
            // and holds the start's summary of what is unread.
            await world.supervisor.stop()
            await world.desktop.stop()
            let restarted = try await Self.desktop(for: world.harness, on: world.connection, opener: world.opener)
            let supervisor = world.harness.supervisor(desktop: restarted.hand)
            try await supervisor.start()
            try await world.harness.waitForEvents("1 held") { $0 == .held(world.account, count: 1) }
            #expect(try await Dunst.displayed() == 0)

            try world.harness.state.updateNoise { _ = $0.endSnooze(nil, now: now) }
            try await supervisor.reload()
            try await world.harness.waitForSummary(of: 1)
            #expect(try await Self.shown(after: before) == ["1 unread on \(world.account.instance.displayName) as cmc", "krz/gitbay"])
            await restarted.stop()
        }
    }

    /// On the stage's own clock, from 23:00 UTC: quiet hours of 22:00-07:30 hold what comes
    /// until the clock passes 07:30 the next morning, when the one timer of the hold fires.
    @Test func quietHoursAcrossMidnightHoldPopupsUntilTheMorning() async throws {
        let clock = ManualClock()
        let lateEvening: Int64 = 1_796_166_000  // 2026-12-01 23:00 UTC
        let config = try Config.parse("quiet-hours = 22:00-07:30\n")
        try await Self.run(startConfig: config, clock: clock, wallClockAtStart: lateEvening) { world in
            let before = try await Self.newestShown()
            try await world.standin.addNotification(
                for: Harness.username, repo: "krz/gitbay", kind: "issue", actor: "eve", summary: "opened issue #12",
                path: "krz/gitbay/issues/12")
            try await world.harness.waitForLog("\(world.account.displayName): 1 held, quiet hours until tomorrow 07:30")
            #expect(try await Dunst.displayed() == 0)

            try await clock.waitForSleepers(1)
            clock.advance(by: .seconds(8 * 3600 + 29 * 60))
            // A minute before the end the timer still waits.
            #expect(clock.pendingSleeps == 1)
            clock.advance(by: .seconds(60))
            try await world.harness.waitForSummary(of: 1)
            #expect(try await Self.shown(after: before) == ["1 new on \(world.account.instance.displayName) as cmc during quiet hours"])
        }
    }
}

extension DesktopTests {
    @Test(arguments: [Harness.Wire.direct, .http2Front])
    func muteOnANotificationMutesTheRepositoryOnItsInstanceAndUndoUnmutesIt(_ wire: Harness.Wire) async throws {
        try await Self.run(wire: wire) { world in
            let before = try await Self.newestShown()
            let id = try await world.show(repo: "krz/noisy", path: "krz/noisy/issues/3")
            try await Dunst.choose(NotificationContent.muteAction)
            try await world.harness.waitForEvents("krz/noisy muted") { $0 == .repositoryMuted(world.account, repository: "krz/noisy", muted: true) }
            try await world.harness.waitForEvents("that krz/noisy is muted shown") { event in
                if case .shown(_, .muted("krz/noisy", _), _, _) = event { true } else { false }
            }
            // Muted, not read: the notice stays unread on the server.
            #expect(try await world.standin.state().notifications.first { $0.id == id }?.readAt == nil)
            #expect(try world.harness.state.loadNoise().record.mutes.map(\.repo) == ["krz/noisy"])

            try await Dunst.choose(NotificationContent.undoAction)
            try await world.harness.waitForEvents("krz/noisy unmuted") { $0 == .repositoryMuted(world.account, repository: "krz/noisy", muted: false) }
            #expect(try world.harness.state.loadNoise().record.mutes.isEmpty)
            let watchRequests = try await world.standin.requests().compactMap(\.argv).filter { $0.first == "repo" }
            #expect(watchRequests == [["repo", "mute", "krz/noisy"], ["repo", "unwatch", "krz/noisy"]])
            #expect(try await Self.shown(after: before) == ["Muted krz/noisy on \(world.account.displayName)", "krz/noisy"])
        }
    }
}

extension DesktopTests {
    @Test func markAllReadOnASummaryMarksExactlyTheRowsItCounts() async throws {
        try await Self.run(startConfig: try Config.parse("max-notifications = 1\n")) { world in
            let first = try await world.show(repo: "krz/repo1", path: "krz/repo1/issues/1")
            let second = try await world.standin.addNotification(
                for: Harness.username, repo: "krz/repo2", kind: "issue", actor: "eve", summary: "opened issue #2",
                path: "krz/repo2/issues/2")
            try await world.harness.waitForSummary(of: 2)
            try await Dunst.choose(NotificationContent.markReadAction)
            try await world.harness.waitForEvents("the summary's notices marked read") {
                $0 == .markedRead(world.account, [Int64(first), Int64(second)])
            }
            let reads = try await world.standin.requests().compactMap(\.argv).filter { $0.starts(with: ["notifications", "read"]) }
            #expect(reads == [["notifications", "read", String(first), String(second)]])
        }
    }
}

import Foundation
import PushCore
import Testing
import TestSupport

/// `gbnotifyctl mute|unmute|watch|mutes|read|rules check|snooze`, the built binary against the
/// stand-in and a real keyring. The suite runs in a copy of the test process in a session of its
/// own (`NoiseCommandSuiteTests`): a keyring that holds only its accounts, and no gbnotifyd on its
/// bus, so "no daemon is running" is what every command finds.
@Suite(.serialized, .enabled(if: PrivateSession.isRunning(suite: "NoiseCommandTests")))
struct NoiseCommandTests {
    /// One user of a stand-in as an account in the keyring, and a gbnotifyctl home of its own.
    struct World {
        let standin: Standin
        let ctl: Ctl
        let user: String
        /// `USER@127.0.0.1:PORT`.
        let account: String

        static func start(_ user: String = "cmc", scope: Standin.TokenScope = .full) async throws -> World {
            let (standin, token) = try await standinWithUser(user, scope: scope)
            try await SecretTool.store(instance: standin.url, user: user, token: token)
            return World(standin: standin, ctl: try Ctl(), user: user, account: "\(user)@\(standin.url.dropFirst("http://".count))")
        }

        func stop() async {
            try? await SecretTool.clear(instance: standin.url, user: user)
            await standin.stop()
            try? FileManager.default.removeItem(at: ctl.home)
        }

        func record() throws -> NoiseRecord {
            let url = ctl.stateDirectory.appendingPathComponent("noise.json")
            guard FileManager.default.fileExists(atPath: url.path) else { return NoiseRecord() }
            return try JSONDecoder().decode(NoiseRecord.self, from: Data(contentsOf: url))
        }

        func watchStates() async throws -> [Standin.State.WatchState] {
            try await standin.state().watchStates
        }
    }

    static let utc = ZoneOffsets.fixed(0)
    static let noDaemon = "gbnotifyd is not running; it will read the snooze when it starts.\n"

    // MARK: - mute, unmute, watch, mutes

    @Test func muteUnmuteAndWatchSetTheServersStateAndTheRecordListsTheMutes() async throws {
        let world = try await World.start()
        try await world.standin.addNotification(for: "cmc", repo: "krz/gitbay")
        try await world.standin.addNotification(for: "cmc", repo: "ops/infra")

        let before = Int64(Date().timeIntervalSince1970)
        let muted = try await world.ctl.run(["mute", world.account, "krz/gitbay"])
        #expect(muted.status == 0, "\(muted.stderr)")
        #expect(muted.stdout == """
            Muted krz/gitbay on \(world.account): no new notices of it, on any client of cmc. \
            Undo: gbnotifyctl unmute \(world.account) krz/gitbay

            """)
        #expect(muted.stderr.isEmpty)
        #expect(try await world.watchStates() == [.init(username: "cmc", repo: "krz/gitbay", state: "muted")])
        // The server files nothing of it now; nothing was marked read.
        await #expect(throws: Standin.NotFiled.self) { try await world.standin.addNotification(for: "cmc", repo: "krz/gitbay") }
        #expect(try await world.standin.state().notifications.allSatisfy { $0.readAt == nil })

        let mute = try #require(try world.record().mutes.first)
        #expect(mute.repo == "krz/gitbay")
        #expect(mute.account.reference == world.account)
        #expect((before...Int64(Date().timeIntervalSince1970)).contains(mute.at))
        let listed = try await world.ctl.run(["mutes"], adding: ["TZ": "UTC0"])
        #expect(listed.status == 0)
        #expect(listed.stdout == "\(world.account)\tkrz/gitbay\tmuted \(Self.utc.date(of: mute.at)) \(TimeOfDay.of(mute.at, zone: Self.utc))\n")
        let german = try await world.ctl.run(["mutes"], adding: try await Translations.environment("de").merging(["TZ": "UTC0"]) { $1 })
        #expect(
            german.stdout == "\(world.account)\tkrz/gitbay\tstummgeschaltet am \(Self.utc.date(of: mute.at)) um \(TimeOfDay.of(mute.at, zone: Self.utc))\n",
            "\(german.stdout)")

        let second = try await world.ctl.run(["mute", world.account, "ops/infra"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try world.record().mutes.map(\.repo) == ["krz/gitbay", "ops/infra"])

        let unmuted = try await world.ctl.run(["unmute", world.account, "krz/gitbay"])
        #expect(unmuted.status == 0, "\(unmuted.stderr)")
        #expect(unmuted.stdout == "Unmuted krz/gitbay on \(world.account): back to the default, notices of the work cmc is part of.\n")
        #expect(try await world.watchStates() == [.init(username: "cmc", repo: "ops/infra", state: "muted")])
        try await world.standin.addNotification(for: "cmc", repo: "krz/gitbay")

        // Watching a muted repository ends the mute, in the record too.
        let watched = try await world.ctl.run(["watch", world.account, "ops/infra"])
        #expect(watched.status == 0, "\(watched.stderr)")
        #expect(watched.stdout == "Watching ops/infra on \(world.account): a notice of every issue and merge request of it.\n")
        #expect(try await world.watchStates() == [.init(username: "cmc", repo: "ops/infra", state: "watching")])
        #expect(try world.record().mutes.isEmpty)
        #expect(try await world.ctl.run(["mutes"]).stdout == "No repository muted with gbnotify. Mute one with: gbnotifyctl mute ACCOUNT OWNER/REPO\n")
        await world.stop()
    }

    @Test func aMuteTheServerRefusesIsNeitherDoneNorNoted() async throws {
        let world = try await World.start()
        try await world.standin.addRepository("krz/secret", readers: ["alice"])
        let hidden = try await world.ctl.run(["mute", world.account, "krz/secret"])
        #expect(hidden.status == 1)
        #expect(hidden.stdout.isEmpty)
        #expect(hidden.stderr == """
            gbnotifyctl: no such repository: repository krz/secret not found (gitbay says the same of a repository \
            \(world.account) may not read). check that \(world.account) is the account that can read it

            """)
        #expect(try await world.ctl.run(["mute", world.account, "krz/nothing"]).stderr.contains("repository krz/nothing not found"))
        #expect(try world.record().mutes.isEmpty)

        let reader = try await World.start("rex", scope: .read)
        try await reader.standin.addNotification(for: "rex", repo: "krz/gitbay")
        let readOnly = try await reader.ctl.run(["mute", reader.account, "krz/gitbay"])
        #expect(readOnly.status == 1)
        #expect(readOnly.stderr.hasPrefix("gbnotifyctl: read-only token: this token is read-only; repo mute modifies state. mint a new token"))
        #expect(try await reader.watchStates().isEmpty)
        #expect(try reader.record().mutes.isEmpty)

        for (arguments, message) in [
            (["mute", world.account, "krz"], "gbnotifyctl: 'krz' names no repository; use OWNER/REPO"),
            (["mute", world.account, "krz/gitbay/issues/1"], "gbnotifyctl: 'krz/gitbay/issues/1' names no repository; use OWNER/REPO"),
            (["unmute", world.account], "gbnotifyctl: missing OWNER/REPO"),
            (["watch"], "gbnotifyctl: missing ACCOUNT"),
        ] {
            let run = try await world.ctl.run(arguments)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stderr.hasPrefix(message + "\nUsage: gbnotifyctl \(arguments[0]) ACCOUNT OWNER/REPO\n"), "\(run.stderr)")
        }
        let nobody = try await world.ctl.run(["mute", "nobody@127.0.0.1:1", "krz/gitbay"])
        #expect(nobody.status == 1)
        #expect(nobody.stderr.contains("there is no account nobody@127.0.0.1:1"))
        await reader.stop()
        await world.stop()
    }

    // MARK: - read

    @Test func readAllMarksEveryUnreadNoticeOfTheAccount() async throws {
        let world = try await World.start()
        try await world.standin.addNotifications(for: "cmc", count: 3)
        _ = try await world.standin.addUserWithToken("alba")
        try await world.standin.addNotification(for: "alba")

        let read = try await world.ctl.run(["read", world.account, "--all"])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout == "Marked 3 notices read on \(world.account).\n")
        #expect(read.stderr.isEmpty)
        let rows = try await world.standin.state().notifications
        #expect(rows.filter { $0.username == "cmc" }.allSatisfy { $0.readAt != nil })
        #expect(rows.filter { $0.username == "alba" }.allSatisfy { $0.readAt == nil })
        let requests = try await world.standin.requests().compactMap(\.argv).filter { $0.first == "notifications" }
        #expect(requests == [["notifications", "read", "--all"]])

        #expect(try await world.ctl.run(["read", world.account, "--all"]).stdout == "Nothing unread on \(world.account).\n")
        await world.stop()
    }

    @Test func readOfAnItemMarksThatItemsUnreadNoticesOnly() async throws {
        let world = try await World.start()
        let first = try await world.standin.addNotification(for: "cmc", path: "krz/gitbay/issues/12")
        let second = try await world.standin.addNotification(for: "cmc", path: "krz/gitbay/issues/12")
        let other = try await world.standin.addNotification(for: "cmc", path: "krz/gitbay/issues/13")
        let read = try await world.ctl.run(["read", world.account, "krz/gitbay/issues/12"])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout == "Marked 2 notices of krz/gitbay/issues/12 read on \(world.account).\n")
        let rows = try await world.standin.state().notifications
        #expect(Set(rows.filter { $0.readAt != nil }.map(\.id)) == [first, second])
        #expect(rows.first { $0.id == other }?.readAt == nil)
        let marked = try await world.standin.requests().compactMap(\.argv).filter { $0.prefix(2) == ["notifications", "read"] }
        #expect(marked.map { Set($0.dropFirst(2)) } == [["\(first)", "\(second)"]])

        #expect(try await world.ctl.run(["read", world.account, "krz/gitbay/issues/12"]).stdout
            == "Nothing unread of krz/gitbay/issues/12 on \(world.account).\n")
        for (arguments, message) in [
            (["read", world.account], "gbnotifyctl: missing --all or OWNER/REPO/(issues|mrs|builds)/N"),
            (["read", world.account, "--all", "krz/gitbay/issues/12"], "gbnotifyctl: give --all or an item's path, not both"),
            (["read", world.account, "krz/gitbay/merge_requests/3"],
             "gbnotifyctl: 'krz/gitbay/merge_requests/3' names no item; use OWNER/REPO/issues/N, OWNER/REPO/mrs/N or OWNER/REPO/builds/N"),
        ] {
            let run = try await world.ctl.run(arguments)
            #expect(run.status == 2)
            #expect(run.stderr.hasPrefix(message + "\n"), "\(run.stderr)")
        }
        await world.stop()
    }

    // MARK: - rules check

    static let rules = #"""
        sound = bell

        [rule failed-builds]
        kind = build
        summary = *failed*

        [rule other-builds]
        kind = build
        show = none

        [rule bots]
        actor = *\[bot\]
        show = silent
        """#

    @Test func rulesCheckSaysWhichRuleEachNewestNoticeMatchesAndWhatItDoes() async throws {
        let world = try await World.start()
        try world.ctl.writeConfig(Self.rules)
        try await world.standin.addNotification(for: "cmc", kind: "issue", actor: "alba", summary: "opened issue #12", path: "krz/gitbay/issues/12")
        try await world.standin.addNotification(
            for: "cmc", repo: "ops/infra", kind: "build", actor: "ci", summary: "build #88 failed on main", path: "ops/infra/builds/88", read: true)
        try await world.standin.addNotification(
            for: "cmc", repo: "ops/infra", kind: "build", actor: "ci", summary: "build #89 passed on main", path: "ops/infra/builds/89")
        try await world.standin.addNotification(
            for: "cmc", kind: "mr", actor: "dependabot[bot]", summary: "opened merge request #3", path: "krz/gitbay/mrs/3")

        let check = try await world.ctl.run(["rules", "check"])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stderr.isEmpty)
        #expect(check.stdout == """
            3 rules in \(world.ctl.configFile.path), first match wins: failed-builds, other-builds, bots

            \(world.account)
              mr     krz/gitbay/mrs/3      dependabot[bot] opened merge request #3  -> bots: silent (badge and inbox, no popup)
              build  ops/infra/builds/89   ci build #89 passed on main              -> other-builds: none (not shown)
              build  ops/infra/builds/88   ci build #88 failed on main              -> failed-builds: popup, urgency normal, sound bell
              issue  krz/gitbay/issues/12  alba opened issue #12                    -> no rule: popup, urgency normal, sound bell

            """)
        // Only the newest rows, with the read one among them; nothing was marked read.
        let newest = try await world.ctl.run(["rules", "check", world.account, "--rows", "1"])
        #expect(newest.stdout.hasSuffix("\(world.account)\n  mr  krz/gitbay/mrs/3  dependabot[bot] opened merge request #3  -> bots: silent (badge and inbox, no popup)\n"))
        #expect(try await world.standin.requests().compactMap(\.argv).allSatisfy { $0.prefix(2) != ["notifications", "read"] })

        // Paused, and snoozed: the account's heading says so.
        try world.ctl.writeConfig(Self.rules + "\n[account \(world.account)]\nenabled = false\n")
        let snoozed = try await world.ctl.run(["snooze", "1h"])
        #expect(snoozed.status == 0, "\(snoozed.stderr)")
        let until = try #require(try world.record().snoozes.first?.until)
        let paused = try await world.ctl.run(["rules", "check", world.account, "--rows", "1"], adding: ["TZ": "UTC0"])
        let hold = Hold(reason: .snoozed, until: until).description(at: until - 3600, zone: Self.utc)
        #expect(paused.stdout.contains("\n\(world.account) · paused (enabled = false): not polled, nothing shown · \(hold), popups held\n"), "\(paused.stdout)")
        await world.stop()
    }

    @Test func rulesCheckWithoutRulesSaysEverythingPopsUp() async throws {
        let world = try await World.start()
        try await world.standin.addNotification(for: "cmc", actor: "alba", summary: "opened issue #1", path: "krz/gitbay/issues/1")
        let check = try await world.ctl.run(["rules", "check", world.account])
        #expect(check.stdout == """
            No rules in \(world.ctl.configFile.path): every notice pops up

            \(world.account)
              issue  krz/gitbay/issues/1  alba opened issue #1  -> no rule: popup, urgency normal, no sound

            """)
        await world.stop()
    }

    /// rules check in German: the heading, a paused account's, and what each rule does (the
    /// config's words, rule names and values, stay as written).
    @Test func rulesCheckSpeaksGerman() async throws {
        let world = try await World.start()
        try world.ctl.writeConfig(Self.rules + "\n[account \(world.account)]\nenabled = false\n")
        try await world.standin.addNotification(for: "cmc", actor: "alba", summary: "opened issue #1", path: "krz/gitbay/issues/1")
        try await world.standin.addNotification(
            for: "cmc", kind: "mr", actor: "dependabot[bot]", summary: "opened merge request #3", path: "krz/gitbay/mrs/3")
        let check = try await world.ctl.run(["rules", "check", world.account], adding: try await Translations.environment("de"))
        #expect(check.status == 0, "\(check.stderr)")
        let lines = check.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "3 Regeln in \(world.ctl.configFile.path), die erste passende gilt: failed-builds, other-builds, bots", "\(check.stdout)")
        #expect(lines.contains("\(world.account) · pausiert (enabled = false): wird nicht abgefragt, nichts wird angezeigt"), "\(check.stdout)")
        #expect(lines.contains { $0.hasSuffix("  -> bots: silent (Zähler und Posteingang, kein Banner)") }, "\(check.stdout)")
        #expect(lines.contains { $0.hasSuffix("  -> keine Regel: popup, Dringlichkeit normal, Ton bell") }, "\(check.stdout)")
        await world.stop()
    }

    @Test func badRulesAreAnErrorNamingTheFileLineSectionAndKey() async throws {
        let world = try await World.start()
        try world.ctl.writeConfig("poll-interval = 60\n\n[rule bots]\nactor = *[bot\nshow = silent\n")
        let check = try await world.ctl.run(["rules", "check"])
        #expect(check.status == 1)
        #expect(check.stdout.isEmpty)
        #expect(check.stderr == """
            gbnotifyctl: config \(world.ctl.configFile.path): line 4: [rule bots] actor: "*[bot" is not a usable pattern: \
            a [ opens a set of characters that no ] closes (write \\[ for the character itself)

            """)

        try world.ctl.writeConfig("[rule bots]\nactor = *[bot]\nshow = silent\n")
        let warned = try await world.ctl.run(["rules", "check", world.account])
        #expect(warned.status == 0)
        #expect(warned.stderr == """
            gbnotifyctl: warning: config \(world.ctl.configFile.path): line 2: [rule bots] actor: [bot] matches one \
            character, b, o or t, not the text [bot]; to match the text, write \\[bot\\]

            """)
        // In German the warning's own words are German; the config's problem stays English.
        let german = try await world.ctl.run(["rules", "check", world.account], adding: try await Translations.environment("de"))
        #expect(german.stderr.hasPrefix("gbnotifyctl: Warnung: Konfiguration \(world.ctl.configFile.path): line 2: "), "\(german.stderr)")

        try world.ctl.writeConfig("[rule bots]\nurgency = critical\n")
        #expect(try await world.ctl.run(["rules", "check"]).stderr == """
            gbnotifyctl: config \(world.ctl.configFile.path): line 2: [rule bots] urgency: critical is not offered: it would \
            break through the desktop's do-not-disturb; use low or normal

            """)
        await world.stop()
    }

    // MARK: - snooze

    @Test func snoozeWritesTheRecordAndSaysThatNoDaemonRuns() async throws {
        let world = try await World.start()
        let utc = ["TZ": "UTC0"]
        let before = Int64(Date().timeIntervalSince1970)
        let all = try await world.ctl.run(["snooze", "1h"], adding: utc)
        #expect(all.status == 0, "\(all.stderr)")
        let until = try #require(try world.record().snoozes.first { $0.account == nil }?.until)
        #expect((before + 3600...Int64(Date().timeIntervalSince1970) + 3600).contains(until))
        #expect(all.stdout == "Snoozed every account until \(Hold.localTime(until, at: until - 3600, zone: Self.utc)).\n" + Self.noDaemon)
        #expect(all.stderr.isEmpty)

        let one = try await world.ctl.run(["snooze", "30m", "--account", world.account], adding: utc)
        #expect(one.status == 0, "\(one.stderr)")
        let own = try #require(try world.record().snoozes.first { $0.account != nil })
        #expect(own.account?.reference == world.account)
        #expect(one.stdout == "Snoozed \(world.account) until \(Hold.localTime(own.until, at: own.until - 1800, zone: Self.utc)).\n" + Self.noDaemon)

        let morning = try await world.ctl.run(["snooze", "until", "7:05", "--account", world.account], adding: utc)
        #expect(morning.status == 0, "\(morning.stderr)")
        let next = try #require(try world.record().snoozes.first { $0.account != nil }?.until)
        let now = Int64(Date().timeIntervalSince1970)
        #expect(next % 86400 == 7 * 3600 + 5 * 60)
        #expect(next > now - 5 && next <= now + 86400)
        #expect(try world.record().snoozes.count == 2)

        // Off for the account leaves the snooze of every account; off for all ends it.
        #expect(try await world.ctl.run(["snooze", "off", "--account", world.account]).stdout == "Snooze off for \(world.account).\n" + Self.noDaemon)
        #expect(try world.record().snoozes.map(\.until) == [until])
        #expect(try await world.ctl.run(["snooze", "off"]).stdout == "Snooze off for every account.\n" + Self.noDaemon)
        #expect(try world.record().snoozes.isEmpty)
        #expect(try await world.ctl.run(["snooze", "off"]).stdout == "Nothing was snoozed.\n" + Self.noDaemon)
        await world.stop()
    }

    @Test func aSnoozeItCannotReadChangesNothing() async throws {
        let world = try await World.start()
        for (arguments, message) in [
            (["snooze", "2d"], "gbnotifyctl: '2d' is not a snooze; give a length (1h, 30m, 1h30m), until HH:MM, or off"),
            (["snooze"], "gbnotifyctl: '' is not a snooze; give a length (1h, 30m, 1h30m), until HH:MM, or off"),
            (["snooze", "200h"], "gbnotifyctl: '200h' is not between a minute and a week"),
            (["snooze", "until", "25:00"], "gbnotifyctl: '25:00' is not a time of day; give HH:MM on the 24-hour clock, e.g. until 15:30"),
            (["snooze", "1h", "--account"], "gbnotifyctl: --account needs a value"),
        ] {
            let run = try await world.ctl.run(arguments)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stderr.hasPrefix(message + "\nUsage: gbnotifyctl snooze (LENGTH | until HH:MM | off) [--account ACCOUNT]\n"), "\(run.stderr)")
        }
        let nobody = try await world.ctl.run(["snooze", "1h", "--account", "nobody@127.0.0.1:1"])
        #expect(nobody.status == 1)
        #expect(nobody.stderr.contains("there is no account nobody@127.0.0.1:1"))
        #expect(try world.record() == NoiseRecord())
        await world.stop()
    }
}

/// Runs `NoiseCommandTests` in a session of its own: a keyring, and no gbnotifyd on the bus.
@Suite struct NoiseCommandSuiteTests {
    @Test func noiseCommandTestsPassInASessionOfTheirOwn() async throws {
        let ran = try await PrivateSession.runSuite("NoiseCommandTests", notifications: false)
        #expect(ran >= 9)
    }
}

import PushCore
import Testing

/// Snoozes and quiet hours: what `gbnotifyctl snooze` accepts, the record it keeps, and whether
/// (and until when) an account's popups are held.
@Suite struct HoldTests {
    static let cmc = try! Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc")
    static let krz = try! Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "krz")
    let zone = TestZone.offsets
    func utc(_ year: Int64, _ month: Int64, _ day: Int64, _ hour: Int64 = 0, _ minute: Int64 = 0) -> Int64 {
        TestZone.utc(year, month, day, hour, minute)
    }

    // MARK: - What snooze accepts

    @Test(arguments: [
        (["1h"], SnoozeRequest.lasting(minutes: 60)),
        (["30m"], .lasting(minutes: 30)),
        (["90m"], .lasting(minutes: 90)),
        (["1h30m"], .lasting(minutes: 90)),
        (["168h"], .lasting(minutes: 7 * 24 * 60)),
        (["1m"], .lasting(minutes: 1)),
        (["until", "15:30"], .until(TimeOfDay(hour: 15, minute: 30)!)),
        (["until", "7:05"], .until(TimeOfDay(hour: 7, minute: 5)!)),
        (["off"], .off),
    ])
    func snoozeRequestsParse(_ words: [String], _ request: SnoozeRequest) throws {
        #expect(try SnoozeRequest(parsing: words) == request)
    }

    @Test(arguments: [
        ([String](), "'' is not a snooze; give a length (1h, 30m, 1h30m), until HH:MM, or off"),
        (["1"], "'1' is not a snooze; give a length (1h, 30m, 1h30m), until HH:MM, or off"),
        (["h"], "'h' is not a snooze; give a length (1h, 30m, 1h30m), until HH:MM, or off"),
        (["1d"], "'1d' is not a snooze; give a length (1h, 30m, 1h30m), until HH:MM, or off"),
        (["30m1h"], "'30m1h' is not a snooze; give a length (1h, 30m, 1h30m), until HH:MM, or off"),
        (["1h1h"], "'1h1h' is not a snooze; give a length (1h, 30m, 1h30m), until HH:MM, or off"),
        (["-1h"], "'-1h' is not a snooze; give a length (1h, 30m, 1h30m), until HH:MM, or off"),
        (["1h", "30m"], "'1h 30m' is not a snooze; give a length (1h, 30m, 1h30m), until HH:MM, or off"),
        (["until"], "'until' is not a snooze; give a length (1h, 30m, 1h30m), until HH:MM, or off"),
        (["0m"], "'0m' is not between a minute and a week"),
        (["169h"], "'169h' is not between a minute and a week"),
        (["99999999999999999999h"], "'99999999999999999999h' is not a snooze; give a length (1h, 30m, 1h30m), until HH:MM, or off"),
        (["until", "25:00"], "'25:00' is not a time of day; give HH:MM on the 24-hour clock, e.g. until 15:30"),
        (["until", "3pm"], "'3pm' is not a time of day; give HH:MM on the 24-hour clock, e.g. until 15:30"),
    ])
    func badSnoozeRequestsSayWhatWouldDo(_ words: [String], _ message: String) {
        #expect(throws: (any Error).self) { try SnoozeRequest(parsing: words) }
        do {
            _ = try SnoozeRequest(parsing: words)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func aSnoozeEndsAfterItsLength() {
        let now = utc(2026, 6, 1, 12)
        #expect(SnoozeRequest.lasting(minutes: 90).end(from: now, zone: zone) == now + 5400)
        #expect(SnoozeRequest.off.end(from: now, zone: zone) == nil)
    }

    @Test func aSnoozeUntilATimeEndsAtItsNextShowing() {
        let until = SnoozeRequest.until(TimeOfDay(hour: 15, minute: 30)!)
        // 12:00 local (UTC+2): this afternoon.
        #expect(until.end(from: utc(2026, 6, 1, 10), zone: zone) == utc(2026, 6, 1, 13, 30))
        // 16:00 local: tomorrow afternoon; and exactly 15:30: tomorrow too.
        #expect(until.end(from: utc(2026, 6, 1, 14), zone: zone) == utc(2026, 6, 2, 13, 30))
        #expect(until.end(from: utc(2026, 6, 1, 13, 30), zone: zone) == utc(2026, 6, 2, 13, 30))
    }

    @Test func aSnoozeUntilMorningAcrossTheSpringJump() {
        // Asked at 23:00 on the 28th (UTC+1); 09:00 on the 29th is at UTC+2.
        let until = SnoozeRequest.until(TimeOfDay(hour: 9, minute: 0)!)
        #expect(until.end(from: utc(2026, 3, 28, 22), zone: zone) == utc(2026, 3, 29, 7))
    }

    // MARK: - The record

    @Test func aSnoozeReplacesTheSameAccountsAndDropsTheOnesOver() {
        var record = NoiseRecord()
        let now = utc(2026, 6, 1, 12)
        record.snooze(nil, until: now + 60, now: now)
        record.snooze(Self.cmc, until: now + 3600, now: now)
        record.snooze(Self.cmc, until: now + 7200, now: now)
        #expect(record.snoozes == [.init(account: nil, until: now + 60), .init(account: Self.cmc, until: now + 7200)])
        record.snooze(Self.krz, until: now + 600, now: now + 120)
        #expect(record.snoozes == [.init(account: Self.cmc, until: now + 7200), .init(account: Self.krz, until: now + 600)])
        #expect(record.snoozeEnd(for: Self.cmc, at: now) == now + 7200)
        #expect(record.snoozeEnd(for: Self.krz, at: now + 600) == nil)
    }

    @Test func offForOneAccountLeavesTheOthersAndOffForAllEndsEverySnooze() {
        var record = NoiseRecord()
        let now = utc(2026, 6, 1, 12)
        record.snooze(nil, until: now + 60, now: now)
        record.snooze(Self.cmc, until: now + 3600, now: now)
        record.snooze(Self.krz, until: now + 3600, now: now)
        let endedOwn = record.endSnooze(Self.cmc, now: now)
        #expect(endedOwn)
        let endedOwnAgain = record.endSnooze(Self.cmc, now: now)
        #expect(!endedOwnAgain)
        // The snooze of every account still holds cmc.
        #expect(record.snoozeEnd(for: Self.cmc, at: now) == now + 60)
        let endedAll = record.endSnooze(nil, now: now)
        #expect(endedAll)
        #expect(record.snoozes.isEmpty)
        let endedAllAgain = record.endSnooze(nil, now: now)
        #expect(!endedAllAgain)
    }

    @Test func mutesAreNotedOnceSortedAndForgotten() {
        var record = NoiseRecord()
        let notedFirst = record.recordMute(of: "krz/gitbay", account: Self.krz, at: 10)
        #expect(notedFirst)
        let notedSecond = record.recordMute(of: "ops/infra", account: Self.cmc, at: 20)
        #expect(notedSecond)
        let notedAgain = record.recordMute(of: "krz/gitbay", account: Self.krz, at: 30)
        #expect(notedAgain)
        #expect(record.mutes.map { "\($0.account.username) \($0.repo) \($0.at)" } == ["cmc ops/infra 20", "krz krz/gitbay 30"])
        let forgotten = record.forgetMute(of: "krz/gitbay", account: Self.krz)
        #expect(forgotten)
        let forgottenAgain = record.forgetMute(of: "krz/gitbay", account: Self.krz)
        #expect(!forgottenAgain)
        #expect(record.mutes.count == 1)
        #expect(record.isUsable)
    }

    @Test func aFullRecordNotesNoMoreMutes() {
        var record = NoiseRecord()
        for index in 0..<NoiseRecord.maximumMutes {
            let noted = record.recordMute(of: "krz/repo\(index)", account: Self.cmc, at: 1)
            #expect(noted)
        }
        let notedPastTheBound = record.recordMute(of: "krz/one-more", account: Self.cmc, at: 2)
        #expect(!notedPastTheBound)
        // Muting one already noted again is still fine.
        let notedAgainAtTheBound = record.recordMute(of: "krz/repo7", account: Self.cmc, at: 3)
        #expect(notedAgainAtTheBound)
        #expect(record.mutes.count == NoiseRecord.maximumMutes)
        #expect(record.isUsable)
    }

    // MARK: - Holds

    @Test func nothingHoldsWithoutASnoozeOrQuietHours() {
        let rules = HoldRules(quietHours: nil, snoozes: [], zone: zone)
        #expect(rules.hold(for: Self.cmc, at: utc(2026, 6, 1, 12)) == nil)
        #expect(rules.nextEnd(of: [Self.cmc, Self.krz], at: utc(2026, 6, 1, 12)) == nil)
    }

    @Test func aSnoozeHoldsItsAccountUntilItEnds() {
        let now = utc(2026, 6, 1, 12)
        let rules = HoldRules(quietHours: nil, snoozes: [.init(account: Self.cmc, until: now + 3600)], zone: zone)
        #expect(rules.hold(for: Self.cmc, at: now) == Hold(reason: .snoozed, until: now + 3600))
        #expect(rules.hold(for: Self.cmc, at: now + 3600) == nil)
        #expect(rules.hold(for: Self.krz, at: now) == nil)
        #expect(rules.nextEnd(of: [Self.cmc, Self.krz], at: now) == now + 3600)
    }

    @Test func quietHoursHoldEveryAccountUntilMorning() throws {
        let rules = HoldRules(quietHours: try QuietHours(parsing: "22:00-07:30"), snoozes: [], zone: zone)
        #expect(rules.hold(for: Self.krz, at: utc(2026, 6, 1, 23)) == Hold(reason: .quietHours, until: utc(2026, 6, 2, 5, 30)))
        #expect(rules.hold(for: Self.krz, at: utc(2026, 6, 1, 12)) == nil)
    }

    @Test func aSnoozeIntoQuietHoursIsOneHoldToMorning() throws {
        // Snoozed at 20:00 until 23:00 local; quiet hours from 22:00: held until 07:30.
        let rules = HoldRules(
            quietHours: try QuietHours(parsing: "22:00-07:30"), snoozes: [.init(account: nil, until: utc(2026, 6, 1, 21))],
            zone: zone)
        #expect(rules.hold(for: Self.cmc, at: utc(2026, 6, 1, 18)) == Hold(reason: .snoozed, until: utc(2026, 6, 2, 5, 30)))
    }

    @Test func quietHoursIntoALongerSnoozeIsOneHoldToTheSnoozesEnd() throws {
        // Quiet at 06:00 local, and snoozed until 09:00: the snooze, asked for, names the hold.
        let rules = HoldRules(
            quietHours: try QuietHours(parsing: "22:00-07:30"), snoozes: [.init(account: Self.cmc, until: utc(2026, 6, 2, 7))],
            zone: zone)
        #expect(rules.hold(for: Self.cmc, at: utc(2026, 6, 2, 4)) == Hold(reason: .snoozed, until: utc(2026, 6, 2, 7)))
        #expect(rules.hold(for: Self.krz, at: utc(2026, 6, 2, 4)) == Hold(reason: .quietHours, until: utc(2026, 6, 2, 5, 30)))
    }

    @Test func aWeekLongSnoozeOverQuietNightsEndsWhereTheyNoLongerMeet() throws {
        // Snoozed until 23:00 local a week on, in quiet hours: held to the morning after.
        let now = utc(2026, 6, 1, 12)
        let rules = HoldRules(
            quietHours: try QuietHours(parsing: "22:00-07:30"), snoozes: [.init(account: nil, until: utc(2026, 6, 8, 21))],
            zone: zone)
        #expect(rules.hold(for: Self.cmc, at: now) == Hold(reason: .snoozed, until: utc(2026, 6, 9, 5, 30)))
    }

    @Test func holdsSayUntilWhenInLocalTime() {
        let now = utc(2026, 6, 1, 10)  // Monday 12:00 local
        #expect(Hold(reason: .snoozed, until: utc(2026, 6, 1, 13, 30)).description(at: now, zone: zone) == "snoozed until 15:30")
        #expect(Hold(reason: .quietHours, until: utc(2026, 6, 2, 5, 30)).description(at: now, zone: zone)
            == "quiet hours until tomorrow 07:30")
        #expect(Hold(reason: .snoozed, until: utc(2026, 6, 6, 7)).description(at: now, zone: zone) == "snoozed until Sat 09:00")
    }
}

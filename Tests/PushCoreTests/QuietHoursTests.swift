import PushCore
import Testing

/// Local wall-clock math on a zone with a DST jump on known instants (`TestZone`).
@Suite struct QuietHoursTests {
    let zone = TestZone.offsets
    func utc(_ year: Int64, _ month: Int64, _ day: Int64, _ hour: Int64 = 0, _ minute: Int64 = 0) -> Int64 {
        TestZone.utc(year, month, day, hour, minute)
    }

    @Test func theTestZoneIsTheOneItSays() {
        #expect(utc(2026, 3, 29, 1) == TestZone.springForward)
        #expect(utc(2026, 10, 25, 1) == TestZone.fallBack)
        #expect(zone.offset(at: TestZone.springForward - 1) == 3600)
        #expect(zone.offset(at: TestZone.springForward) == 7200)
        #expect(zone.offset(at: TestZone.fallBack) == 3600)
    }

    // MARK: - Local times to instants

    @Test func anOrdinaryLocalTimeIsTheInstantItIsShown() {
        #expect(zone.firstInstant(reaching: TestZone.local(2026, 6, 1, 12)) == utc(2026, 6, 1, 10))
        #expect(zone.firstInstant(reaching: TestZone.local(2026, 1, 15, 8, 30)) == utc(2026, 1, 15, 7, 30))
    }

    @Test func aLocalTimeTheSpringJumpSkipsIsTheJump() {
        // 02:30 on 29 March never shows: the clock goes from 01:59:59 to 03:00.
        #expect(zone.firstInstant(reaching: TestZone.local(2026, 3, 29, 2, 30)) == TestZone.springForward)
        #expect(zone.firstInstant(reaching: TestZone.local(2026, 3, 29, 2)) == TestZone.springForward)
        #expect(zone.firstInstant(reaching: TestZone.local(2026, 3, 29, 3)) == TestZone.springForward)
        #expect(zone.firstInstant(reaching: TestZone.local(2026, 3, 29, 1, 59)) == utc(2026, 3, 29, 0, 59))
    }

    @Test func aLocalTimeTheAutumnClockShowsTwiceIsItsFirstShowing() {
        // 02:30 on 25 October shows at 00:30 UTC (summer time) and again at 01:30 UTC.
        #expect(zone.firstInstant(reaching: TestZone.local(2026, 10, 25, 2, 30)) == utc(2026, 10, 25, 0, 30))
        #expect(zone.firstInstant(reaching: TestZone.local(2026, 10, 25, 3)) == utc(2026, 10, 25, 2))
    }

    @Test func localDates() {
        #expect(zone.date(of: utc(2026, 6, 1, 21, 59)) == "2026-06-01")
        // Midnight local comes two hours before midnight UTC in summer.
        #expect(zone.date(of: utc(2026, 6, 1, 22)) == "2026-06-02")
        #expect(zone.date(of: utc(2028, 2, 29, 12)) == "2028-02-29")
        #expect(zone.date(of: utc(1970, 1, 1)) == "1970-01-01")
        #expect(ZoneOffsets.fixed(-3600).date(of: 0) == "1969-12-31")
        #expect(TimeOfDay.of(utc(2026, 10, 25, 1, 30), zone: zone).description == "02:30")
    }

    @Test func timesOfDayParseAndPrint() {
        #expect(TimeOfDay(parsing: "7:30") == TimeOfDay(hour: 7, minute: 30))
        #expect(TimeOfDay(parsing: "07:30")?.description == "07:30")
        #expect(TimeOfDay(parsing: "23:59")?.description == "23:59")
        for bad in ["24:00", "7:3", "007:30", "12:60", "12", "12:30:00", "-1:00", "１２:００", " 7:30", ""] {
            #expect(TimeOfDay(parsing: bad) == nil, "\(bad)")
        }
    }

    // MARK: - Quiet hours

    @Test func quietHoursParse() throws {
        let hours = try QuietHours(parsing: "22:00-07:30")
        #expect(hours.start == TimeOfDay(hour: 22, minute: 0))
        #expect(hours.end == TimeOfDay(hour: 7, minute: 30))
        #expect(hours.crossesMidnight)
        #expect(hours.description == "22:00-07:30")
        #expect(throws: QuietHoursError.unparsable) { try QuietHours(parsing: "22-7") }
        #expect(throws: QuietHoursError.unparsable) { try QuietHours(parsing: "22:00 - 07:30") }
        #expect(throws: QuietHoursError.unparsable) { try QuietHours(parsing: "22:00-07:30-08:00") }
        #expect(throws: QuietHoursError.empty) { try QuietHours(parsing: "07:30-07:30") }
    }

    @Test func quietHoursAcrossMidnightOnAnOrdinaryNight() throws {
        let hours = try QuietHours(parsing: "22:00-07:30")
        // Summer time, UTC+2: 22:00 local is 20:00 UTC.
        let night = utc(2026, 6, 1, 20)..<utc(2026, 6, 2, 5, 30)
        #expect(hours.span(containing: utc(2026, 6, 1, 19, 59), zone: zone) == nil)
        #expect(hours.span(containing: utc(2026, 6, 1, 20), zone: zone) == night)
        #expect(hours.span(containing: utc(2026, 6, 1, 22), zone: zone) == night)
        // After local midnight, the span that began the evening before.
        #expect(hours.span(containing: utc(2026, 6, 2, 1), zone: zone) == night)
        #expect(hours.span(containing: utc(2026, 6, 2, 5, 29), zone: zone) == night)
        #expect(hours.span(containing: utc(2026, 6, 2, 5, 30), zone: zone) == nil)
        #expect(hours.span(containing: utc(2026, 6, 2, 12), zone: zone) == nil)
    }

    @Test func quietHoursWithinOneDay() throws {
        let hours = try QuietHours(parsing: "12:00-13:30")
        #expect(!hours.crossesMidnight)
        #expect(hours.span(containing: utc(2026, 1, 15, 11, 30), zone: zone) == utc(2026, 1, 15, 11)..<utc(2026, 1, 15, 12, 30))
        #expect(hours.span(containing: utc(2026, 1, 15, 10, 59), zone: zone) == nil)
        #expect(hours.span(containing: utc(2026, 1, 15, 23), zone: zone) == nil)
    }

    @Test func theSpringNightIsAnHourShorter() throws {
        let hours = try QuietHours(parsing: "22:00-07:30")
        // 22:00 at UTC+1 on the 28th, 07:30 at UTC+2 on the 29th: 8.5 hours, not 9.5.
        let night = try #require(hours.span(containing: utc(2026, 3, 29, 1), zone: zone))
        #expect(night == utc(2026, 3, 28, 21)..<utc(2026, 3, 29, 5, 30))
        #expect(night.count == 8 * 3600 + 1800)
    }

    @Test func theAutumnNightIsAnHourLonger() throws {
        let hours = try QuietHours(parsing: "22:00-07:30")
        let night = try #require(hours.span(containing: utc(2026, 10, 25, 1, 30), zone: zone))
        #expect(night == utc(2026, 10, 24, 20)..<utc(2026, 10, 25, 6, 30))
        #expect(night.count == 10 * 3600 + 1800)
    }

    @Test func anEndTheSpringJumpSkipsComesAtTheJump() throws {
        let hours = try QuietHours(parsing: "23:00-02:30")
        #expect(hours.span(containing: utc(2026, 3, 29, 0, 59), zone: zone) == utc(2026, 3, 28, 22)..<TestZone.springForward)
        // 03:00 local, the first moment past 02:30: no longer quiet.
        #expect(hours.span(containing: TestZone.springForward, zone: zone) == nil)
    }

    @Test func aStartTheSpringJumpSkipsComesAtTheJump() throws {
        let hours = try QuietHours(parsing: "02:30-06:00")
        #expect(hours.span(containing: utc(2026, 3, 29, 0, 45), zone: zone) == nil)
        #expect(hours.span(containing: TestZone.springForward, zone: zone) == TestZone.springForward..<utc(2026, 3, 29, 4))
    }

    @Test func anEndInTheHourThatRepeatsComesAtItsFirstShowingAndStaysOver() throws {
        let hours = try QuietHours(parsing: "23:00-02:30")
        // 02:30 first shows at 00:30 UTC; the clock shows 02:10 again at 01:10 UTC, and the
        // night is over all the same: quiet hours end once a night.
        #expect(hours.span(containing: utc(2026, 10, 25, 0, 29), zone: zone) == utc(2026, 10, 24, 21)..<utc(2026, 10, 25, 0, 30))
        #expect(hours.span(containing: utc(2026, 10, 25, 0, 30), zone: zone) == nil)
        #expect(hours.span(containing: utc(2026, 10, 25, 1, 10), zone: zone) == nil)
    }

    @Test func quietHoursInAZoneWestOfUTC() throws {
        let hours = try QuietHours(parsing: "22:00-07:30")
        let newYork = ZoneOffsets.fixed(-5 * 3600)
        // 23:00 in New York on 1 June is 04:00 UTC on the 2nd.
        #expect(hours.span(containing: utc(2026, 6, 2, 4), zone: newYork) == utc(2026, 6, 2, 3)..<utc(2026, 6, 2, 12, 30))
    }
}

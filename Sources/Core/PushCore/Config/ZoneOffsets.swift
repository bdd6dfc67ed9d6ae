/// The local time zone's rules, as the daemon's decisions about wall-clock times need them: the
/// offset from UTC in force at each instant. Instants are whole seconds since the Unix epoch;
/// "local seconds" are the same count on the local wall clock (an instant plus its offset), so
/// that local midnights fall on multiples of 86400.
///
/// PushCore asks the system nothing: the system's rules come from `localtime_r` outside it
/// (`SystemZone`), and tests give rules of their own, with a DST jump at a known instant.
public struct ZoneOffsets: Sendable {
    private let offsetAt: @Sendable (Int64) -> Int

    /// The furthest any zone has been from UTC, with room to spare: a bad answer is clamped to it.
    static let maximumOffset = 26 * 3600

    public init(_ offsetAt: @escaping @Sendable (_ instant: Int64) -> Int) {
        self.offsetAt = offsetAt
    }

    /// A zone without DST, `seconds` east of UTC.
    public static func fixed(_ seconds: Int) -> ZoneOffsets {
        ZoneOffsets { _ in seconds }
    }

    public func offset(at instant: Int64) -> Int {
        min(max(offsetAt(instant), -Self.maximumOffset), Self.maximumOffset)
    }

    /// The local wall-clock time of `instant`, in local seconds.
    public func local(_ instant: Int64) -> Int64 {
        instant + Int64(offset(at: instant))
    }

    /// The local day `instant` falls on, counted from 1970-01-01.
    public func day(of instant: Int64) -> Int64 {
        Self.floorDivide(local(instant), 86400)
    }

    /// The first instant at which the local clock shows `localSeconds` or later. That is the
    /// instant the clock shows it; when a DST change makes the clock show it twice (the hour
    /// that repeats in autumn), the first of the two; when the clock skips it (the hour that
    /// never happens in spring), the moment of the jump.
    public func firstInstant(reaching localSeconds: Int64) -> Int64 {
        // The offset in force there is one of those a day either side (zones change at most
        // once in two days), so one of these instants is it, unless the clock skips it.
        let probes = [localSeconds - 93600, localSeconds, localSeconds + 93600].map { offset(at: $0) }
        let candidates = Set(probes).map { localSeconds - Int64($0) }.sorted()
        if let exact = candidates.first(where: { local($0) == localSeconds }) { return exact }
        // Skipped: the jump lies between a candidate the clock shows before and one after.
        guard var before = candidates.first(where: { local($0) < localSeconds }),
              var after = candidates.last(where: { local($0) > localSeconds }), before < after
        else { return localSeconds - Int64(offset(at: localSeconds)) }
        while after - before > 1 {
            let middle = before + (after - before) / 2
            if local(middle) >= localSeconds { after = middle } else { before = middle }
        }
        return after
    }

    /// The local date of `instant`, `2026-06-01` (the proleptic Gregorian calendar).
    public func date(of instant: Int64) -> String {
        let shifted = day(of: instant) + 719_468
        let era = Self.floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func padded(_ value: Int64, _ width: Int) -> String {
            String(repeating: "0", count: max(width - String(value).count, 0)) + String(value)
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }

    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }
}

/// A wall-clock time of day, `HH:MM`.
public struct TimeOfDay: Sendable, Equatable, Comparable, Codable, CustomStringConvertible {
    public let hour: Int
    public let minute: Int

    public init?(hour: Int, minute: Int) {
        guard (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        self.hour = hour
        self.minute = minute
    }

    /// `7:30`, `07:30` or `23:59`: one or two digits of hour, two of minute, nothing else.
    public init?(parsing text: some StringProtocol) {
        let halves = text.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard halves.count == 2, (1...2).contains(halves[0].count), halves[1].count == 2,
              let hour = ASCII.decimalValue(halves[0]), let minute = ASCII.decimalValue(halves[1])
        else { return nil }
        self.init(hour: Int(hour), minute: Int(minute))
    }

    /// Seconds after local midnight.
    public var seconds: Int64 { Int64(hour * 3600 + minute * 60) }

    /// `07:30`.
    public var description: String {
        (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }

    /// The first instant after `now` at which the local clock shows this time: today's, or
    /// tomorrow's when today's is not after `now`.
    public func next(after now: Int64, zone: ZoneOffsets) -> Int64 {
        let today = zone.day(of: now)
        let instant = zone.firstInstant(reaching: today * 86400 + seconds)
        return instant > now ? instant : zone.firstInstant(reaching: (today + 1) * 86400 + seconds)
    }

    /// The local time of day of `instant`, to the minute.
    public static func of(_ instant: Int64, zone: ZoneOffsets) -> TimeOfDay {
        let seconds = Int(zone.local(instant) - zone.day(of: instant) * 86400)
        // Within 0..<86400, so always a time of day.
        return TimeOfDay(hour: seconds / 3600, minute: seconds % 3600 / 60)!
    }

    public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool { lhs.seconds < rhs.seconds }
}

import PushCore

/// A zone of our own with DST on known instants, Central European rules of 2026: UTC+1, and
/// UTC+2 from 2026-03-29 01:00 UTC (the local clock jumps from 02:00 to 03:00) to 2026-10-25
/// 01:00 UTC (it falls back from 03:00 to 02:00).
enum TestZone {
    static let springForward: Int64 = 1_774_746_000
    static let fallBack: Int64 = 1_792_890_000

    static let offsets = ZoneOffsets { instant in
        instant >= springForward && instant < fallBack ? 7200 : 3600
    }

    /// The instant of a UTC date and time (days from the civil calendar, proleptic Gregorian).
    static func utc(_ year: Int64, _ month: Int64, _ day: Int64, _ hour: Int64 = 0, _ minute: Int64 = 0) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return (era * 146_097 + dayOfEra - 719_468) * 86400 + hour * 3600 + minute * 60
    }

    /// Local seconds of a local date and time (the count `ZoneOffsets.local` gives).
    static func local(_ year: Int64, _ month: Int64, _ day: Int64, _ hour: Int64 = 0, _ minute: Int64 = 0) -> Int64 {
        utc(year, month, day, hour, minute)
    }
}

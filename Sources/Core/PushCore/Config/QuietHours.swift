/// `quiet-hours = 22:00-07:30`: a span of local time, every day, in which nothing pops up. It
/// may run across midnight (its end before its start).
///
/// Each night's span runs from the first moment the local clock shows its start to the first
/// moment after that it shows its end, so a DST change inside it makes that night an hour
/// longer or shorter, and one at its very edge never makes it start or end twice: an end in the
/// hour that repeats in autumn comes at its first showing; a start or end in the hour skipped
/// in spring comes at the jump.
public struct QuietHours: Sendable, Equatable, CustomStringConvertible {
    public let start: TimeOfDay
    public let end: TimeOfDay

    public init?(start: TimeOfDay, end: TimeOfDay) {
        guard start != end else { return nil }
        self.start = start
        self.end = end
    }

    /// `22:00-07:30`.
    public init(parsing text: String) throws(QuietHoursError) {
        let halves = text.split(separator: "-", omittingEmptySubsequences: false)
        guard halves.count == 2, let start = TimeOfDay(parsing: halves[0]), let end = TimeOfDay(parsing: halves[1]) else {
            throw .unparsable
        }
        guard let hours = QuietHours(start: start, end: end) else { throw .empty }
        self = hours
    }

    public var description: String { "\(start)-\(end)" }

    public var crossesMidnight: Bool { end < start }

    /// The night's span `instant` lies in, start included and end not; nil outside quiet hours.
    public func span(containing instant: Int64, zone: ZoneOffsets) -> Range<Int64>? {
        let today = zone.day(of: instant)
        // The span that started yesterday may reach into today; today's may have begun.
        for startDay in [today - 1, today] {
            let begins = zone.firstInstant(reaching: startDay * 86400 + start.seconds)
            let endDay = crossesMidnight ? startDay + 1 : startDay
            let ends = zone.firstInstant(reaching: endDay * 86400 + end.seconds)
            if begins <= instant && instant < ends { return begins..<ends }
        }
        return nil
    }
}

public enum QuietHoursError: Error, Equatable, Sendable, CustomStringConvertible {
    case unparsable
    case empty

    public var description: String {
        switch self {
        case .unparsable: "is not a span of local time like 22:00-07:30 (HH:MM-HH:MM, 24-hour clock)"
        case .empty: "starts and ends at the same time; remove the line to have no quiet hours"
        }
    }
}

/// What `gbnotifyctl snooze` was asked for: `1h`, `30m`, `1h30m`, `until 15:30` or `off`.
public enum SnoozeRequest: Sendable, Equatable {
    case lasting(minutes: Int)
    case until(TimeOfDay)
    case off

    /// A snooze holds popups for at least a minute and at most a week: a longer silence is what
    /// `enabled = false` or a rule is for.
    public static let minutesRange = 1...(7 * 24 * 60)

    public init(parsing words: [String]) throws(SnoozeRequestError) {
        switch words.count {
        case 1 where words[0] == "off":
            self = .off
        case 1:
            guard let minutes = Self.minutes(words[0]) else { throw .unparsable(words.joined(separator: " ")) }
            guard Self.minutesRange.contains(minutes) else { throw .outOfRange(words[0]) }
            self = .lasting(minutes: minutes)
        case 2 where words[0] == "until":
            guard let time = TimeOfDay(parsing: words[1]) else { throw .badTime(words[1]) }
            self = .until(time)
        default:
            throw .unparsable(words.joined(separator: " "))
        }
    }

    /// When a snooze asked for at `now` ends; nil for `off`. `until` is the next time the local
    /// clock shows that time: today, or tomorrow when it has passed.
    public func end(from now: Int64, zone: ZoneOffsets) -> Int64? {
        switch self {
        case .lasting(let minutes): now + Int64(minutes) * 60
        case .until(let time): time.next(after: now, zone: zone)
        case .off: nil
        }
    }

    /// `90m`, `2h`, `1h30m`: hours then minutes, each a whole number, at least one of them.
    private static func minutes(_ text: String) -> Int? {
        var total: Int64 = 0
        var digits: [UInt8] = []
        var units: [UInt8] = []
        for byte in text.utf8 {
            if ASCII.isDigit(byte) {
                digits.append(byte)
                continue
            }
            // Kept small: far above a week, it is refused by the range anyway.
            guard let value = ASCII.decimalValue(digits, limit: 1_000_000), !units.contains(byte),
                  let perUnit: Int64 = byte == UInt8(ascii: "h") ? 60 : byte == UInt8(ascii: "m") ? 1 : nil,
                  units.last != UInt8(ascii: "m")
            else { return nil }
            total += value * perUnit
            units.append(byte)
            digits = []
        }
        guard digits.isEmpty, !units.isEmpty else { return nil }
        return Int(total)
    }
}

public enum SnoozeRequestError: Error, Equatable, Sendable, CustomStringConvertible {
    case unparsable(String)
    case outOfRange(String)
    case badTime(String)

    public var description: String {
        Localized.inEnglish { spoken }
    }

    /// `description` in the session's language: gbnotifyctl snooze's usage error.
    public var spoken: String {
        switch self {
        case .unparsable(let text):
            Localized.text(
                "'{text}' is not a snooze; give a length (1h, 30m, 1h30m), until HH:MM, or off",
                note: "A usage error of gbnotifyctl snooze. {text}: what was given. 1h, 30m, 1h30m, until, HH:MM and off are typed as they are.",
                ["text": text.displaySafe(truncatedTo: 80)])
        case .outOfRange(let text):
            Localized.text(
                "'{text}' is not between a minute and a week", note: "A usage error of gbnotifyctl snooze. {text}: the length given.",
                ["text": text.displaySafe(truncatedTo: 80)])
        case .badTime(let text):
            Localized.text(
                "'{text}' is not a time of day; give HH:MM on the 24-hour clock, e.g. until 15:30",
                note: "A usage error of gbnotifyctl snooze. {text}: what was given. HH:MM and until are typed as they are.",
                ["text": text.displaySafe(truncatedTo: 80)])
        }
    }
}

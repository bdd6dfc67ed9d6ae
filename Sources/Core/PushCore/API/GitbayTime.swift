/// gitbay's timestamps: `2026-09-20T10:11:12.123Z` (UTC, milliseconds optional).
public enum GitbayTime {
    /// `YYYY-MM-DDTHH:MM:SS[.fff]Z` as seconds since the epoch; nil for any other shape.
    public static func seconds(since1970 text: String) -> Double? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        func byte(_ index: Int, is character: Unicode.Scalar) -> Bool {
            index < bytes.count && bytes[index] == UInt8(ascii: character)
        }
        guard let year = number(0..<4), byte(4, is: "-"), let month = number(5..<7), byte(7, is: "-"),
              let day = number(8..<10), byte(10, is: "T"), let hour = number(11..<13), byte(13, is: ":"),
              let minute = number(14..<16), byte(16, is: ":"), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var end = 19
        var fraction = 0.0
        if byte(19, is: ".") {
            var scale = 0.1
            end = 20
            while end < bytes.count, let digit = number(end..<(end + 1)) {
                fraction += Double(digit) * scale
                scale /= 10
                end += 1
            }
        }
        guard end == bytes.count - 1, byte(end, is: "Z") else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Double(days * 86400 + hour * 3600 + minute * 60 + second) + fraction
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }
}

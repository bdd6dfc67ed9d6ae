/// A count that came from outside (a server's `dashboard.unread`, a row count), clamped where it
/// is parsed: nothing a server sends can make a badge, a summary or a sum of them overflow, so
/// one hostile instance cannot crash the daemon and take every other instance's notices with it.
public enum OutsideCount {
    /// More unread notices than anyone reads; a larger count is shown as this many.
    public static let maximum = 1_000_000

    /// `value` within `0...maximum`.
    public static func clamped(_ value: some BinaryInteger) -> Int {
        if value < 0 { return 0 }
        if value > maximum { return maximum }
        return Int(value)
    }
}

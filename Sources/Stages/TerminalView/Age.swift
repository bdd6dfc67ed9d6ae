import PushCore

/// How long ago a gitbay timestamp was, in words: `3 hours ago`. gitbay writes times as
/// `2026-09-20T10:11:12.123Z` (UTC, milliseconds optional); anything else is shown as it came.
enum Age {
    /// - Parameter now: seconds since the Unix epoch.
    static func describe(_ timestamp: String, now: Double) -> String {
        guard let then = GitbayTime.seconds(since1970: timestamp) else { return ScreenText.line(timestamp) }
        let elapsed = now - then
        let minute = 60.0, hour = 3600.0, day = 86400.0
        switch elapsed {
        case ..<(-minute):
            return Localized.text(
                "in the future ({date})", note: "The terminal view: a time later than now. {date}: its date, as 2026-09-20.",
                ["date": String(timestamp.prefix(10))])
        case ..<45: return Localized.text("just now", note: "The terminal view: when something happened, less than a minute ago.")
        case ..<(59.5 * minute):
            return Localized.plural(
                "{count} minute ago", "{count} minutes ago", count: Int((elapsed / minute).rounded()),
                note: "The terminal view: when something happened.")
        case ..<(36 * hour):
            return Localized.plural(
                "{count} hour ago", "{count} hours ago", count: Int((elapsed / hour).rounded()), note: "The terminal view: when something happened.")
        case ..<(30 * day):
            return Localized.plural(
                "{count} day ago", "{count} days ago", count: Int((elapsed / day).rounded()), note: "The terminal view: when something happened.")
        default:
            return Localized.text(
                "on {date}", note: "The terminal view: when something happened, a month ago or more. {date}: its date, as 2026-09-20.",
                ["date": String(timestamp.prefix(10))])
        }
    }

    /// A duration in seconds as gitbay's checks word theirs: `1m12s`, `2h3m`, `45s`.
    static func duration(_ seconds: Int64) -> String {
        let seconds = max(seconds, 0)
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return "\(seconds / 60)m\(seconds % 60 == 0 ? "" : "\(seconds % 60)s")" }
        return "\(seconds / 3600)h\((seconds % 3600) / 60)m"
    }
}

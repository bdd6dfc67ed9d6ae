/// Popups held back for an account: by a snooze or by quiet hours, until one moment. Polls go on
/// and the badge still counts; what would have popped up meanwhile comes as one summary per
/// account when the hold ends (`HeldNotices`).
public struct Hold: Sendable, Equatable {
    /// One word for scripts (`Status()`'s `popups_held_reason`).
    public enum Reason: String, Sendable, Codable {
        case snoozed
        case quietHours = "quiet_hours"
    }

    /// Why popups are held now (a snooze, when both hold); a hold that runs on from one into
    /// the other keeps the name of its start.
    public let reason: Reason
    /// When popups may show again, in seconds since the Unix epoch: the end of every snooze
    /// and quiet span that meet, so one timer serves the whole hold.
    public let until: Int64

    public init(reason: Reason, until: Int64) {
        self.reason = reason
        self.until = until
    }

    /// `snoozed until 15:30`, `quiet hours until tomorrow 07:30`, `snoozed until Sat 09:00`,
    /// in local time as seen at `now`; in English, for log lines (`spoken` is a person's).
    public func description(at now: Int64, zone: ZoneOffsets) -> String {
        Localized.inEnglish { spoken(at: now, zone: zone) }
    }

    /// `description` in the session's language, for a person.
    public func spoken(at now: Int64, zone: ZoneOffsets) -> String {
        let time = Self.spokenTime(until, at: now, zone: zone)
        return reason == .snoozed
            ? Localized.text("snoozed until {time}", note: "Why popups are held. {time}: as 15:30, tomorrow 07:30 or Sat 09:00 (messages of their own).", ["time": time])
            : Localized.text(
                "quiet hours until {time}", note: "Why popups are held. {time}: as 15:30, tomorrow 07:30 or Sat 09:00 (messages of their own).", ["time": time])
    }

    /// `15:30` today, `tomorrow 07:30`, else the weekday: a hold is at most a week long. In
    /// English, for log lines (`spokenTime` is a person's).
    public static func localTime(_ instant: Int64, at now: Int64, zone: ZoneOffsets) -> String {
        Localized.inEnglish { spokenTime(instant, at: now, zone: zone) }
    }

    /// `localTime` in the session's language, for a person.
    public static func spokenTime(_ instant: Int64, at now: Int64, zone: ZoneOffsets) -> String {
        let (days, weekday, time) = when(instant, at: now, zone: zone)
        let values: KeyValuePairs = ["time": "\(time)"]
        switch days {
        case ...0: return "\(time)"
        case 1: return Localized.text("tomorrow {time}", note: "A time of day tomorrow. {time}: as 08:00.", values)
        default:
            switch weekday {
            case 0: return Localized.text("Thu {time}", note: "A time on Thursday this week, the day abbreviated. {time}: as 08:00.", values)
            case 1: return Localized.text("Fri {time}", note: "A time on Friday this week, the day abbreviated. {time}: as 08:00.", values)
            case 2: return Localized.text("Sat {time}", note: "A time on Saturday this week, the day abbreviated. {time}: as 08:00.", values)
            case 3: return Localized.text("Sun {time}", note: "A time on Sunday this week, the day abbreviated. {time}: as 08:00.", values)
            case 4: return Localized.text("Mon {time}", note: "A time on Monday this week, the day abbreviated. {time}: as 08:00.", values)
            case 5: return Localized.text("Tue {time}", note: "A time on Tuesday this week, the day abbreviated. {time}: as 08:00.", values)
            default: return Localized.text("Wed {time}", note: "A time on Wednesday this week, the day abbreviated. {time}: as 08:00.", values)
            }
        }
    }

    /// Days from `now`'s local day to `instant`'s, `instant`'s weekday (0 is Thursday:
    /// 1970-01-01 was one) and its local time of day.
    private static func when(_ instant: Int64, at now: Int64, zone: ZoneOffsets) -> (days: Int64, weekday: Int, time: TimeOfDay) {
        let day = zone.day(of: instant)
        return (day - zone.day(of: now), Int(((day % 7) + 7) % 7), TimeOfDay.of(instant, zone: zone))
    }
}

/// What decides whether an account's popups are held: the config's quiet hours, the snoozes of
/// the noise record, and the local time zone's rules.
public struct HoldRules: Sendable {
    public let quietHours: QuietHours?
    public let snoozes: [NoiseRecord.Snooze]
    public let zone: ZoneOffsets

    /// Meeting snoozes and quiet nights are followed this far at most; a hold still going then
    /// is decided again when this part of it ends.
    static let maximumLinks = 16

    public init(quietHours: QuietHours?, snoozes: [NoiseRecord.Snooze], zone: ZoneOffsets) {
        self.quietHours = quietHours
        self.snoozes = snoozes
        self.zone = zone
    }

    /// Whether `account`'s popups are held at `now`, and until when.
    public func hold(for account: Account, at now: Int64) -> Hold? {
        let snoozeEnd = snoozes.filter { $0.covers(account) }.map(\.until).max() ?? now
        var reason: Hold.Reason?
        var end = now
        for _ in 0..<Self.maximumLinks {
            if end < snoozeEnd {
                reason = reason ?? .snoozed
                end = snoozeEnd
            } else if let span = quietHours?.span(containing: end, zone: zone) {
                reason = reason ?? .quietHours
                end = span.upperBound
            } else {
                break
            }
        }
        return reason.map { Hold(reason: $0, until: end) }
    }

    /// The soonest end of the holds of `accounts` at `now`: the one timer the daemon needs, at
    /// which it decides again. Nil when none is held.
    public func nextEnd(of accounts: [Account], at now: Int64) -> Int64? {
        accounts.compactMap { hold(for: $0, at: now)?.until }.min()
    }
}

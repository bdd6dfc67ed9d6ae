import Glibc
import PushCore

/// The system's time zone rules (`TZ`, else `/etc/localtime`), as PushCore's decisions about
/// wall-clock times take them: the offset from UTC that `localtime_r` gives for each instant.
/// glibc reads the zone once per process, so a zone changed later applies from the next start.
public enum SystemZone {
    public static let offsets = ZoneOffsets { instant in
        var time = time_t(clamping: instant)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return 0 }
        return parts.tm_gmtoff
    }

    /// The wall clock now, in whole seconds since the Unix epoch.
    public static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec)
    }
}

import TestSupport
import Testing

extension Trait where Self == ConditionTrait {
    /// For suites that write to the session's keyring or show notifications: outside
    /// `scripts/desktop-session` (a plain `swift test`) they skip, saying that `make check` runs them.
    public static var needsDesktopSession: Self {
        .enabled(if: PrivateSession.isInsideDesktopSession, Comment(rawValue: PrivateSession.desktopSessionNeeded))
    }
}

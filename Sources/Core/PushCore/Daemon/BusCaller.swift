/// Whom the daemon takes `Reload` and `Deliver` from: programs of its own user that run outside
/// a Flatpak or Snap sandbox. A sandboxed app reaches the session bus only through a filter,
/// and should not steer the daemon through it even where the filter lets a call pass.
public enum BusCaller {
    /// Why a caller is refused, in words for the D-Bus error and the log; nil when it may call.
    ///
    /// - Parameters:
    ///   - uid: the caller's user, as the bus says (nil: the bus did not say).
    ///   - inFlatpak: whether the caller's root holds `/.flatpak-info`.
    ///   - securityLabel: the caller's AppArmor label, where the bus has one; Snap's confined
    ///     apps run under `snap.NAME.APP`.
    public static func refusal(uid: UInt32?, daemonUID: UInt32, inFlatpak: Bool, securityLabel: String?) -> String? {
        guard let uid else { return "the bus does not say which user runs the caller" }
        guard uid == daemonUID else { return "the caller runs as user \(uid), not as gbnotifyd's user \(daemonUID)" }
        if inFlatpak { return "the caller runs in a Flatpak sandbox" }
        if let securityLabel, securityLabel.hasPrefix("snap.") {
            return "the caller runs in a Snap sandbox (\(securityLabel.prefix(80)))"
        }
        return nil
    }
}

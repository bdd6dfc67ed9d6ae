/// What a click opens. Every link is built from a parsed instance and a parsed destination,
/// never taken from a payload as a string.
public enum Links {
    /// `SITE_URL/OWNER/REPO/issues/N` (or `mrs`, `builds`).
    public static func webURL(for destination: NotificationDestination, on instance: GitbayInstance) -> String {
        "\(instance.url)/\(destination.path)"
    }

    /// `SITE_URL/notifications`.
    public static func inboxURL(on instance: GitbayInstance) -> String {
        "\(instance.url)/notifications"
    }

    // The terminal view (`gbnotifyctl show ACCOUNT PATH`) is `CommandTemplate.standard`, which
    // the config can replace.
}

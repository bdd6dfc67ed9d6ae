/// An action of a notification as a shell's probe reports it: Notify's key and its label.
public struct NotificationAction: Sendable, Decodable, Equatable {
    public let key: String
    public let label: String
}

/// An action button on a shell's banner.
public struct BannerButton: Sendable, Decodable, Equatable {
    public let label: String
    /// nil while it is not on screen (GNOME's, until the banner is expanded).
    public let area: ScreenArea?
}

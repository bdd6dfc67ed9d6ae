/// What a notification server is known to do unlike the specification, by the name it gives
/// (`GetServerInformation`), and what the desktop stage does about it.
public struct ServerQuirks: Sendable, Equatable {
    /// A replacement (`Notify` with `replaces_id`) shows the new text but keeps the first
    /// `Notify`'s buttons (lxqt-notificationd 1.2), and a click on one sends the old key: a
    /// folded summary would still offer "Mark read".
    public let keepsFirstButtons: Bool

    public init(serverName: String?) {
        keepsFirstButtons = serverName == "lxqt-notificationd"
    }

    /// Whether a notification that showed `shownActions` (keys and labels, as `Notify` sends
    /// them) may be replaced in place by one with `actions`; if not, it is closed and shown
    /// afresh. Unknown (nil: taken over from a daemon killed before it said) counts as
    /// different: the buttons that earlier daemon showed may be a notice's, under a group's text.
    public func replacesInPlace(shownActions: [String]?, with actions: [String]) -> Bool {
        !keepsFirstButtons || shownActions == actions
    }
}

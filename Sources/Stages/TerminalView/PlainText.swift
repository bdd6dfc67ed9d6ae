import PushCore

/// What `gbnotifyctl show` and `inbox` print when standard output is not a terminal: the same
/// layout as the view's, as plain text.
public enum PlainText {
    /// The width when nothing says otherwise (`COLUMNS`, as `man` reads it).
    public static let defaultWidth = 80

    public static func item(_ details: ItemDetails, width: Int, now: Double) -> String {
        FrameRenderer.plain(ItemLayout.lines(details, width: width, now: now))
    }

    public static func inbox(_ inboxes: [AccountInbox], width: Int, now: Double) -> String {
        FrameRenderer.plain(InboxLayout.lines(inboxes, width: width, now: now).lines)
    }

    /// `COLUMNS` when it is a sensible number, else `defaultWidth`.
    public static func width(environment: [String: String]) -> Int {
        guard let text = environment["COLUMNS"], let columns = Int(text), (20...1000).contains(columns) else {
            return defaultWidth
        }
        return columns
    }
}

import PushCore

/// A key of the view and what it does, as the status line and `gbnotifyctl show`'s help say it.
public struct ViewKey: Sendable, Equatable {
    /// As the help shows it: "c", "↑↓ PgUp PgDn g G".
    public let keys: String
    public let does: String
    /// The key pressed, for the keys the help names by one character.
    let key: Key?

    init(_ keys: String, _ does: String, key: Key? = nil) {
        self.keys = keys
        self.does = does
        self.key = key
    }

    init(key character: Character, _ does: String) {
        self.init(String(character), does, key: .character(character))
    }
}

/// The view's keys, declared once: the key handling matches them, the status lines list them,
/// and the commands' help names them.
public enum ViewKeys {
    public static let scroll = ViewKey("↑↓ PgUp PgDn g G", "scroll")
    public static let select = ViewKey("↑↓", "select")
    public static let view = ViewKey("Enter", "view")
    public static let markRead = ViewKey(key: "r", "mark read")
    /// Writes a reply in the user's editor, from the kept draft when there is one.
    public static let reply = ViewKey(key: "c", "reply")
    /// Opens the reaction picker: any of the instance's reactions, set or taken back.
    public static let react = ViewKey(key: "e", "react")
    /// +1 at once, or taken back.
    public static let thumbsUp = ViewKey(key: "+", "react +1")
    public static let open = ViewKey(key: "o", "open in browser")
    public static let reload = ViewKey(key: "R", "reload")
    static let back = ViewKey("q", "back")
    static let quit = ViewKey("q", "quit")
    /// In the reaction picker.
    static let choose = ViewKey("1-\(Reaction.names.count)", "react (again: take back)")
    static let cancel = ViewKey("Esc", "cancel")

    /// "r mark read · o open in browser · q quit".
    static func line(_ keys: [ViewKey]) -> String {
        keys.map { "\($0.keys) \($0.does)" }.joined(separator: " · ")
    }
}

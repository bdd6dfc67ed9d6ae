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
    // Computed, not stored: what a key does is said in the language in force when it is drawn.
    public static var scroll: ViewKey { ViewKey("↑↓ PgUp PgDn g G", Localized.text("scroll", note: "The terminal view's keys: what ↑↓ PgUp PgDn g G do.")) }
    public static var select: ViewKey { ViewKey("↑↓", Localized.text("select", note: "The terminal view's keys, in the inbox: what ↑↓ do.")) }
    public static var view: ViewKey { ViewKey("Enter", Localized.text("view", note: "The terminal view's keys, in the inbox: what Enter does.")) }
    public static var markRead: ViewKey { ViewKey(key: "r", Localized.text("mark read", note: "The terminal view's keys: what r does.")) }
    /// Writes a reply in the user's editor, from the kept draft when there is one.
    public static var reply: ViewKey { ViewKey(key: "c", Localized.text("reply", note: "The terminal view's keys: what c does (writes a reply).")) }
    /// Opens the reaction picker: any of the instance's reactions, set or taken back.
    public static var react: ViewKey { ViewKey(key: "e", Localized.text("react", note: "The terminal view's keys: what e does (picks a reaction).")) }
    /// +1 at once, or taken back.
    public static var thumbsUp: ViewKey { ViewKey(key: "+", Localized.text("react +1", note: "The terminal view's keys: what + does. Keep +1.")) }
    public static var open: ViewKey { ViewKey(key: "o", Localized.text("open in browser", note: "The terminal view's keys: what o does.")) }
    public static var reload: ViewKey { ViewKey(key: "R", Localized.text("reload", note: "The terminal view's keys: what R does.")) }
    static var back: ViewKey { ViewKey("q", Localized.text("back", note: "The terminal view's keys: what q does on a page opened from another.")) }
    static var quit: ViewKey { ViewKey("q", Localized.text("quit", note: "The terminal view's keys: what q does on the first page.")) }
    /// In the reaction picker.
    static var choose: ViewKey {
        ViewKey("1-\(Reaction.names.count)", Localized.text("react (again: take back)", note: "The terminal view's keys, in the reaction picker: what a digit does."))
    }
    static var cancel: ViewKey { ViewKey("Esc", Localized.text("cancel", note: "The terminal view's keys, in the reaction picker: what Esc does.")) }

    /// "r mark read · o open in browser · q quit".
    static func line(_ keys: [ViewKey]) -> String {
        keys.map { "\($0.keys) \($0.does)" }.joined(separator: " · ")
    }
}

/// What a notification server was seen to do where the specification leaves it open or where it
/// departs from it, by the name and version it gives (`GetServerInformation`), and what the
/// desktop stage does about it. No call tells a server's limits: this is the one table of what
/// the rig tests saw each server do (each entry is proven by a test against that server, in
/// `Tests/RigTests` and the daemon suites), with a safe default for servers not in it.
public struct ServerQuirks: Sendable, Equatable {
    /// How many notifications of one application the server keeps before it evicts the oldest,
    /// unread or not; nil where none was seen evicted (Plasma, dunst, mako, ...).
    public let keptPerApplication: Int?
    /// The server withdraws every notification of an application when the sender that showed
    /// them leaves the bus (a kill -9 included), so a restarted daemon has nothing to take over.
    public let withdrawsWhenSenderLeaves: Bool
    /// A replacement (`Notify` with `replaces_id`) shows the new text but keeps the first
    /// `Notify`'s buttons (lxqt-notificationd 1.2), and a click on one sends the old key: a
    /// folded summary would still offer "Mark read".
    public let keepsFirstButtons: Bool
    /// How many action buttons the server shows beside the click on the body; nil where every
    /// action is offered (dunst's context menu, `makoctl menu`, swaync's row of buttons).
    public let buttonsShown: Int?
    /// The server advertises `inline-reply` but draws the field only when its own config asks,
    /// and otherwise shows nothing for that action, not even a button: swaync 0.8 and later,
    /// whose `notification-inline-replies` is off in Debian 13's package. Reply… comes beside
    /// the field there (`ButtonBudget.replyBesideField`).
    public let mayHideReplyField: Bool

    /// How many of gbnotifyd's notifications are open at once where the user did not say
    /// (`max-notifications`) and the server has no limit of its own: as many as GNOME Shell 43
    /// keeps, the fewest of any server seen, so that no server evicts an unread notice.
    public static let defaultKeptOpen = 3

    /// How many buttons a server not in the table is handed: as many as GNOME Shell shows
    /// (its `MAX_NOTIFICATION_BUTTONS`, 43 and 48 alike), the fewest of any server seen to
    /// draw buttons.
    public static let defaultButtonsShown = 3

    /// The table, by name and by version (the first `.`-separated field, or the whole version
    /// when `major` is nil).
    private struct Seen {
        let name: String
        let major: String?
        let quirks: ServerQuirks
    }

    private static let table: [Seen] = [
        // Debian 12: 3 per source, and what a sender left stays (GnomeShellRigTests).
        Seen(name: "gnome-shell", major: "43", quirks: ServerQuirks(keptPerApplication: 3)),
        // Debian 13: 10 per application; a sender's leaving takes along the notifications it
        // showed of an application the shell resolved (the desktop-entry hint names gbnotify's
        // entry, which a package installs), so nothing is taken over there (GnomeShell48RigTests).
        // Where the entry is not installed the shell keeps them, and the restarted daemon's
        // summary comes beside them: nothing unread is lost either way.
        Seen(name: "gnome-shell", major: "48", quirks: ServerQuirks(keptPerApplication: 10, withdrawsWhenSenderLeaves: true)),
        // Debian 12 (LXQt 1.2) and 13 (2.1): LxqtRigTests, Lxqt21RigTests. Its body's click is a
        // button too, and past three actions it shows none but a list with "OK"
        // (LxqtDaemonTests): two buttons beside Open.
        Seen(name: "lxqt-notificationd", major: nil, quirks: ServerQuirks(keepsFirstButtons: true, buttonsShown: 2)),
        // No buttons at all: every action is an entry of the server's menu (dunst's context
        // menu, `dunstctl action`; `makoctl menu`, `makoctl invoke`), so every one fits.
        Seen(name: "dunst", major: nil, quirks: ServerQuirks(buttonsShown: nil)),
        Seen(name: "mako", major: nil, quirks: ServerQuirks(buttonsShown: nil)),
        // swaync (0.7 on Debian 12, 0.11 on 13) draws every action as a button, in one row of
        // equal buttons across the popup that scrolls past its width: all four of a notice
        // show (SwayncDaemonTests). 0.11 draws the inline-reply field only with its config's
        // notification-inline-replies, off as packaged (Swaync011DaemonTests).
        Seen(name: "SwayNotificationCenter", major: nil, quirks: ServerQuirks(buttonsShown: nil, mayHideReplyField: true)),
    ]

    private init(
        keptPerApplication: Int? = nil, withdrawsWhenSenderLeaves: Bool = false, keepsFirstButtons: Bool = false,
        buttonsShown: Int? = defaultButtonsShown, mayHideReplyField: Bool = false
    ) {
        self.keptPerApplication = keptPerApplication
        self.withdrawsWhenSenderLeaves = withdrawsWhenSenderLeaves
        self.keepsFirstButtons = keepsFirstButtons
        self.buttonsShown = buttonsShown
        self.mayHideReplyField = mayHideReplyField
    }

    /// The server's entry in the table; for one not in it (or not known yet: nil), what is safe
    /// on any server: the default number kept open, and what an earlier daemon left taken over
    /// as the servers seen so far keep it, unless they are known not to.
    public init(serverName: String?, version: String?) {
        let major = version.map { String($0.prefix { $0 != "." }) }
        let seen = Self.table.first { $0.name == serverName && ($0.major == nil || $0.major == major) }
        self = seen?.quirks ?? ServerQuirks()
    }

    /// The most of gbnotifyd's notifications open at once: the user's `max-notifications` when
    /// set, else what the server keeps, else the default.
    public func keptOpen(maxNotifications: Int?) -> Int {
        maxNotifications ?? keptPerApplication ?? Self.defaultKeptOpen
    }

    /// The buttons a notification carries on this server, in the user's order (`buttons`).
    public func buttons(order: [NoticeButton]) -> ButtonBudget {
        ButtonBudget(order: order, room: buttonsShown, replyBesideField: mayHideReplyField)
    }

    /// Whether notifications an earlier daemon left on this server may be taken over after a
    /// restart: not where the server withdrew them as that daemon left the bus.
    public var adoptsAfterRestart: Bool { !withdrawsWhenSenderLeaves }

    /// Whether a notification that showed `shownActions` (keys and labels, as `Notify` sends
    /// them) may be replaced in place by one with `actions`; if not, it is closed and shown
    /// afresh. Unknown (nil: taken over from a daemon killed before it said) counts as
    /// different: the buttons that earlier daemon showed may be a notice's, under a group's text.
    public func replacesInPlace(shownActions: [String]?, with actions: [String]) -> Bool {
        !keepsFirstButtons || shownActions == actions
    }
}

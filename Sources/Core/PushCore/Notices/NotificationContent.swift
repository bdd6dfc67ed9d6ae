/// What the notification server said it can do (`GetCapabilities`), in the parts gbnotify uses.
public struct NotificationCapabilities: Sendable, Equatable {
    /// `body-markup`: the body is read as markup, so text from a notice must be escaped.
    public var bodyMarkup: Bool
    /// `actions`: the server shows actions and reports clicks on them.
    public var actions: Bool
    /// `inline-reply` (Plasma 5.18 and later, swaync): an action named `inline-reply` shows a
    /// text field, whose text comes back in `NotificationReplied`.
    public var inlineReply: Bool

    public init(bodyMarkup: Bool, actions: Bool, inlineReply: Bool = false) {
        self.bodyMarkup = bodyMarkup
        self.actions = actions
        self.inlineReply = inlineReply
    }

    /// From the capability names a server advertised; unknown names are ignored.
    public init(advertised names: [String]) {
        self.init(
            bodyMarkup: names.contains("body-markup"), actions: names.contains("actions"),
            inlineReply: names.contains(Self.inlineReplyName))
    }

    /// The capability, and the action's key, of a text field on the popup.
    public static let inlineReplyName = "inline-reply"

    /// What a server that cannot be asked is assumed to do: plain text, no actions. Plain text
    /// shown by a markup server only looks odd; markup shown by a plain one would be unreadable.
    public static let plain = NotificationCapabilities(bodyMarkup: false, actions: false)
}

/// One freedesktop notification, ready to send with `Notify`: every decision about its text,
/// actions and hints, made without a bus.
public struct NotificationContent: Sendable, Equatable {
    /// The specification's urgency levels but `critical`, which would break through the
    /// desktop's do-not-disturb: nothing of ours may.
    public enum Urgency: UInt8, Sendable {
        case low = 0
        case normal = 1
    }

    /// `app_name` of every notification.
    public static let appName = "gitbay"
    /// The shipped desktop entry's name without `.desktop`: the `desktop-entry` hint, and the
    /// launcher entry the badge is for.
    public static let desktopEntry = "gbnotify"
    /// The action key that means a click on the notification's body.
    public static let openAction = "default"
    public static let markReadAction = "mark-read"
    public static let muteAction = "mute"
    public static let undoAction = "undo"
    /// "Reply…" where the server has no text field: the terminal view, with the editor.
    public static let replyAction = "reply"
    /// The text field of a server with `inline-reply`: its text comes in `NotificationReplied`.
    public static let inlineReplyAction = NotificationCapabilities.inlineReplyName
    public static let reactAction = "react"
    /// The reaction the "👍" button sends, by its name in gitbay's set.
    public static let thumbsUp = "+1"

    /// Longest summary, in characters, before escaping: a notice is a glance, and a server must
    /// not be handed a 10 KB line from a hostile inbox row. (A body is bounded by construction:
    /// at most `listedGroupItems` lines of `maximumGroupLineLength` and a count.)
    public static let maximumSummaryLength = 120

    public let summary: String
    /// Escaped when the server reads markup.
    public let body: String
    /// Key and label pairs, flat, as `Notify` takes them; empty when the server has no actions.
    public let actions: [String]
    /// `x-gitbay.issue`, `x-gitbay.mr` or `x-gitbay.build`; nil when the kind is unknown.
    public let category: String?
    public let urgency: Urgency
    /// The `sound-name` hint (the freedesktop sound naming spec); nil sends `suppress-sound`.
    public let sound: String?
    /// Stays until the user dismisses it (no expiry, the `resident` hint): what needs the user
    /// to act, without raising its urgency past do-not-disturb.
    public let staysUntilDismissed: Bool
    /// The text field's words where the notification has the `inline-reply` action.
    public let inlineReply: InlineReply?

    /// The hints of a text field on the popup (`x-kde-reply-placeholder-text`,
    /// `x-kde-reply-submit-button-text`).
    public struct InlineReply: Sendable, Equatable {
        /// "Reply to krz/gitbay#12": what the field says while empty.
        public let placeholder: String
        public let submitLabel: String
    }

    init(
        summary: String, body: String, actions: [String], category: String?, urgency: Urgency, sound: String?,
        staysUntilDismissed: Bool, inlineReply: InlineReply? = nil
    ) {
        self.summary = summary
        self.body = body
        self.actions = actions
        self.category = category
        self.urgency = urgency
        self.sound = sound
        self.staysUntilDismissed = staysUntilDismissed
        self.inlineReply = inlineReply
    }

    /// What a book entry shows. With more than one account, the body's first line names the
    /// account (a summary's and a warning's own text already do). A group's urgency and sound
    /// are what `rules` decide for its new notices (`RuleDecision.loudest`); a summary and a
    /// warning make no sound.
    public static func entry(
        _ entry: ScreenBook.Entry, capabilities: NotificationCapabilities, namesAccount: Bool, rules: RuleSet = .none,
        buttons: ButtonBudget = .standard
    ) -> NotificationContent {
        switch entry.subject {
        case .group(let group):
            self.group(
                group, capabilities: capabilities, accountLine: namesAccount ? entry.account.displayName : nil,
                decision: RuleDecision.loudest(of: group.freshItems.map { rules.evaluate($0, of: entry.account) }),
                buttons: buttons)
        case .summary(let summary):
            self.summary(summary, account: entry.account, capabilities: capabilities, buttons: buttons)
        case .tokenRejected:
            tokenRejected(account: entry.account, capabilities: capabilities)
        case .muted(let repository, _):
            muted(repository, account: entry.account, capabilities: capabilities)
        case .said(let said, _):
            self.said(said, account: entry.account, capabilities: capabilities)
        }
    }

    /// Rows listed in a group's body before "and N more".
    public static let listedGroupItems = 3
    /// Longest line of a group's body, in characters, before escaping.
    public static let maximumGroupLineLength = 120

    /// A repository's notices (`NoticeGroup`): the repository, parsed from the rows' paths, as
    /// summary; the notices that are new (`fresh`, newest first, at most `listedGroupItems`) as
    /// body, then "and N more" for the rest of the group, which were listed before. One notice
    /// alone opens its item and can be marked read; several open the inbox. The buttons are
    /// what `buttons` chooses of those that fit: Mark read (all), Mute with a repository, and
    /// for one notice of an issue or a merge request Reply (the text field where the server has
    /// one) and 👍.
    public static func group(
        _ group: NoticeGroup, capabilities: NotificationCapabilities, accountLine: String? = nil, decision: RuleDecision? = nil,
        buttons: ButtonBudget = .standard
    ) -> NotificationContent {
        let listed = group.freshItems.prefix(listedGroupItems)
        var lines = accountLine.map { [bodyText(oneLine($0, limit: maximumGroupLineLength), capabilities)] } ?? []
        lines += listed.map { row in
            bodyText(oneLine("\(row.actor) \(row.summary)", limit: maximumGroupLineLength), capabilities)
        }
        if group.items.count > listed.count {
            lines.append(
                Localized.plural(
                    "and {count} more", "and {count} more", count: group.items.count - listed.count,
                    note: "The last line of a notification that lists a repository's first notices: how many more it holds."))
        }
        let categories = Set(group.items.map { $0.kind?.category })
        let isOne = group.items.count == 1
        let answerable = group.answerable
        var offered: Set<NoticeButton> = [.markRead]
        if group.key.repository != nil { offered.insert(.mute) }
        if answerable != nil { offered.formUnion([.reply, .react]) }
        let inline = capabilities.inlineReply
        let open = isOne
            ? Localized.text("Open", context: "button", note: "A notification's button: opens the notice's item in the browser.")
            : Localized.text("Open the inbox", note: "A notification's button: opens the account's inbox in the browser.")
        let actions = [openAction, open] + buttons.choose(from: offered).flatMap { button in
            switch button {
            case .markRead:
                [markReadAction, isOne
                    ? Localized.text("Mark read", note: "A notification's button: marks its one notice read on the server.")
                    : Localized.text("Mark all read", note: "A notification's button: marks every notice it lists read on the server.")]
            case .mute: [muteAction, Localized.text("Mute", context: "button", note: "A notification's button: mutes the notice's repository on the server.")]
            case .reply:
                (inline ? [inlineReplyAction, Localized.text("Reply", context: "button", note: "A notification's button: opens its text field for a reply to the notice's item.")] : [])
                    + (!inline || buttons.replyBesideField
                        ? [replyAction, Localized.text("Reply…", context: "button", note: "A notification's button: composes a reply to the notice's item in the terminal's editor.")]
                        : [])
            case .react: [reactAction, "👍"]
            }
        }
        let hasField = capabilities.actions && actions.contains(inlineReplyAction)
        return NotificationContent(
            summary: oneLine(group.key.repository ?? group.key.account.instance.displayName, limit: maximumSummaryLength),
            body: lines.joined(separator: "\n"),
            actions: capabilities.actions ? actions : [],
            category: categories.count == 1 ? categories.first ?? nil : nil,
            urgency: decision?.urgency.notificationUrgency ?? .normal, sound: decision?.sound,
            staysUntilDismissed: false,
            inlineReply: hasField ? answerable.map(inlineReply) : nil)
    }

    /// The text field of a notice's reply: what it says while empty, and its button.
    static func inlineReply(to destination: NotificationDestination) -> InlineReply {
        InlineReply(
            placeholder: Localized.text(
                "Reply to {item}", note: "What a notification's reply field says while empty. {item}: owner/repo#12.",
                ["item": destination.shortName]),
            submitLabel: Localized.text("Send", context: "button", note: "The button that sends the reply typed into a notification."))
    }

    /// Several notices in one notification that opens the inbox: "7 new on gitbay.org as cmc",
    /// "27 unread ..." for what was already waiting, "5 more unread ..." for notices folded
    /// away to keep within `max-notifications`.
    public static func summary(
        _ summary: NoticeSummary, account: Account, capabilities: NotificationCapabilities, buttons: ButtonBudget = .standard
    ) -> NotificationContent {
        let number = "\(summary.count)\(summary.isAtLeast ? "+" : "")"
        let values: KeyValuePairs = ["number": number, "instance": account.instance.displayName, "user": account.username]
        let title = switch summary.wording {
        case .unread:
            Localized.plural(
                "{number} unread on {instance} as {user}", "{number} unread on {instance} as {user}", count: summary.count,
                note: "A notification's title. {number}: how many notices (\"27\", or \"50+\"); {instance}: the gitbay instance; {user}: the account's user name.",
                values)
        case .new:
            Localized.plural(
                "{number} new on {instance} as {user}", "{number} new on {instance} as {user}", count: summary.count,
                note: "A notification's title. {number}: how many new notices (\"7\", or \"50+\"); {instance}: the gitbay instance; {user}: the account's user name.",
                values)
        case .more:
            Localized.plural(
                "{number} more unread on {instance} as {user}", "{number} more unread on {instance} as {user}", count: summary.count,
                note: "A notification's title, for notices folded away to keep the number of notifications down. {number}: how many; {instance}: the gitbay instance; {user}: the account's user name.",
                values)
        case .whileSnoozed:
            Localized.plural(
                "{number} new on {instance} as {user} while snoozed", "{number} new on {instance} as {user} while snoozed",
                count: summary.count,
                note: "A notification's title at the end of a snooze. {number}: how many new notices; {instance}: the gitbay instance; {user}: the account's user name.",
                values)
        case .duringQuietHours:
            Localized.plural(
                "{number} new on {instance} as {user} during quiet hours", "{number} new on {instance} as {user} during quiet hours",
                count: summary.count,
                note: "A notification's title at the end of quiet hours. {number}: how many new notices; {instance}: the gitbay instance; {user}: the account's user name.",
                values)
        }
        let markRead = summary.markReadIDs != nil && buttons.choose(from: [.markRead]) == [.markRead]
        let actions = [openAction, Localized.text("Open the inbox", note: "A notification's button: opens the account's inbox in the browser.")]
            + (markRead ? [markReadAction, Localized.text("Mark all read", note: "A notification's button: marks every notice it lists read on the server.")] : [])
        return NotificationContent(
            summary: oneLine(title, limit: maximumSummaryLength),
            // Never an empty body: Cinnamon 5.6 throws on one and never answers the Notify.
            body: bodyText(Localized.text("Open the inbox to see them.", note: "The body of a notification that counts notices."), capabilities),
            actions: capabilities.actions ? actions : [],
            category: nil, urgency: .normal, sound: nil, staysUntilDismissed: false)
    }

    /// The account's token was rejected: polling stopped until it gets a new one. Of normal
    /// urgency like the rest (the desktop's do-not-disturb holds for it too), but it stays until
    /// dismissed: nothing else tells the user that this account went quiet.
    public static func tokenRejected(account: Account, capabilities: NotificationCapabilities) -> NotificationContent {
        NotificationContent(
            summary: oneLine(
                Localized.text(
                    "Sign in again to {instance}", note: "A notification's title when a token was rejected. {instance}: the gitbay instance.",
                    ["instance": account.instance.displayName]),
                limit: maximumSummaryLength),
            body: bodyText(
                Localized.text(
                    "The server rejected the API token of {user}, so gbnotifyd stopped checking it. Run: {command}",
                    note: "A notification's body. {user}: the account's user name; {command}: the command that adds the account again (stays English).",
                    ["user": account.username, "command": "gbnotifyctl account add \(account.instance.url)"]),
                capabilities),
            actions: [], category: nil, urgency: .normal, sound: nil, staysUntilDismissed: true)
    }

    /// A repository muted from its notification, on the server: said for a while, with "Undo".
    /// Of normal urgency: GNOME Shell shows no banner for a low one, and the Undo would be out
    /// of reach.
    public static func muted(_ repository: String, account: Account, capabilities: NotificationCapabilities) -> NotificationContent {
        NotificationContent(
            summary: oneLine(
                Localized.text(
                    "Muted {repository} on {account}",
                    note: "A notification's title after Mute. {repository}: owner/name; {account}: the account, user@host.",
                    ["repository": repository, "account": account.displayName]),
                limit: maximumSummaryLength),
            body: bodyText(
                Localized.text(
                    "No new notices of it reach {user}, here or on any other client.",
                    note: "The body of the notification after Mute. {user}: the account's user name.", ["user": account.username]),
                capabilities),
            actions: capabilities.actions ? [undoAction, undoLabel] : [], category: nil, urgency: .normal, sound: nil,
            staysUntilDismissed: false)
    }

    /// The button of a notification that says what was done (a Mute, a reaction): takes it back.
    static var undoLabel: String {
        Localized.text("Undo", note: "A notification's button: takes back what the notification says was done (a Mute, a reaction).")
    }

    /// How a reaction is shown: 👍 for +1, else gitbay's name of it.
    public static func reactionLabel(_ reaction: String) -> String {
        reaction == thumbsUp ? "👍" : reaction
    }

    /// What became of an answer from a notification: done ("Reacted 👍 to krz/gitbay#12", with
    /// Undo; "Replied to krz/gitbay#12"), said for a while; or not done, and why, until
    /// dismissed. A reply not posted is kept, and the body says where.
    public static func said(_ said: AnswerSaid, account: Account, capabilities: NotificationCapabilities) -> NotificationContent {
        let item = NotificationDestination(path: said.path)?.shortName ?? said.path
        let (summary, body, actions): (String, String, [String]) = switch said {
        case .reacted(_, let reaction):
            (
                Localized.text(
                    "Reacted {reaction} to {item}",
                    note: "A notification's title after a reaction from a notification. {reaction}: 👍 or gitbay's name of it; {item}: owner/repo#12.",
                    ["reaction": reactionLabel(reaction), "item": item]),
                Localized.text("As {account}.", note: "The body of the notification after a reaction. {account}: user@host.", ["account": account.displayName]),
                [undoAction, undoLabel]
            )
        case .replied:
            (
                Localized.text("Replied to {item}", note: "A notification's title after a reply from a notification was posted. {item}: owner/repo#12.", ["item": item]),
                Localized.text("Posted as {account}.", note: "The body of the notification after a reply was posted. {account}: user@host.", ["account": account.displayName]),
                []
            )
        case .reactionFailed(_, let reaction, let reason):
            (
                Localized.text(
                    "Could not react {reaction} to {item}",
                    note: "A notification's title when a reaction failed. {reaction}: 👍 or gitbay's name of it; {item}: owner/repo#12.",
                    ["reaction": reactionLabel(reaction), "item": item]),
                "\(reason.spoken).", []
            )
        case .replyNotSent(_, let reason):
            (
                Localized.text(
                    "Your reply to {item} was not sent",
                    note: "A notification's title when a reply typed into a notification was refused before sending (empty, too long). {item}: owner/repo#12.",
                    ["item": item]),
                "\(reason.spoken.prefix(1).uppercased())\(reason.spoken.dropFirst()).", []
            )
        case .replyKept(let path, let reason):
            (
                Localized.text(
                    "Your reply to {item} was not posted",
                    note: "A notification's title when a reply was not posted (or may not have been) and is kept as a draft. {item}: owner/repo#12.",
                    ["item": item]),
                Localized.text(
                    "{reason}. Nothing is lost: the text is kept, and {command} offers it again.",
                    note: "The body of the notification of a reply not posted. {reason}: why (a message of its own, in lower case); {command}: the command that offers the kept text again (stays English).",
                    ["reason": reason.spoken, "command": "gbnotifyctl reply \(account.reference) \(path)"]),
                []
            )
        }
        return NotificationContent(
            summary: oneLine(summary, limit: maximumSummaryLength), body: bodyText(body, capabilities),
            actions: capabilities.actions ? actions : [], category: nil, urgency: .normal, sound: nil,
            staysUntilDismissed: said.isFailure)
    }

    /// What `gbnotifyctl test` shows.
    public static func sample(capabilities: NotificationCapabilities) -> NotificationContent {
        NotificationContent(
            summary: "gbnotify", body: bodyText(
                Localized.text("Notifications from gitbay will look like this.", note: "The body of gbnotifyctl test's notification."),
                capabilities),
            actions: [], category: nil, urgency: .normal, sound: nil, staysUntilDismissed: false)
    }

    /// Text escaped for the `body-markup` subset (`&`, `<` and `>`), so `<b>` in a notice shows
    /// as `<b>` rather than as bold, and a stray `&` cannot make a server drop the body.
    public static func escapedMarkup(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    private static func bodyText(_ text: String, _ capabilities: NotificationCapabilities) -> String {
        capabilities.bodyMarkup ? escapedMarkup(text) : text
    }

    private static func oneLine(_ text: String, limit: Int) -> String {
        text.displaySafe(truncatedTo: limit)
    }
}

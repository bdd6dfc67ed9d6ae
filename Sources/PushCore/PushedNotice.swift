/// A notice that came as a push payload, routed to one of the daemon's accounts: it has no
/// inbox id until a poll pairs it with its row (`NoticeLedger`).
public struct PushedNotice: Sendable, Equatable {
    public let account: Account
    public let destination: NotificationDestination
    /// The payload's body: actor + " " + summary.
    public let text: String

    public init(account: Account, destination: NotificationDestination, text: String) {
        self.account = account
        self.destination = destination
        self.text = text
    }

    /// What the inbox row of the same notice has too.
    public var key: NoticeLedger.Key { NoticeLedger.Key(path: destination.path, text: text) }

    /// What a click opens: the item, on the account's own instance.
    public var target: PushTarget { PushTarget(account: account, destination: destination) }
}

extension NotificationContent {
    /// A pushed notice looks like the inbox row it stands for (`item`): the repository as
    /// summary, the payload's body, opening it and marking it read as actions. The repository
    /// comes from the checked path, not from the payload's title.
    public static func pushed(_ notice: PushedNotice, capabilities: NotificationCapabilities) -> NotificationContent {
        let text = notice.text.controlCharactersAsSpaces.truncated(to: maximumBodyLength)
        return NotificationContent(
            summary: notice.destination.repository.truncated(to: maximumSummaryLength),
            body: capabilities.bodyMarkup ? escapedMarkup(text) : text,
            actions: capabilities.actions ? [openAction, "Open", markReadAction, "Mark read"] : [],
            category: notice.destination.kind.category, urgency: .normal)
    }
}

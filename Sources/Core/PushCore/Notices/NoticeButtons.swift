/// The buttons a notice's notification may carry beside the click on its body, and which of them
/// it carries on a server: the config's order of priority (`buttons`), cut to what the server
/// shows (`ServerQuirks.buttonsShown`). A notification never hands a server more buttons than it
/// shows, so none of the user's choices is dropped by the server at random.
public enum NoticeButton: String, CaseIterable, Sendable, Codable {
    /// "Mark read" ("Mark all read" on a group or a summary).
    case markRead = "mark-read"
    /// Reply to the item: a text field where the server has one (`inline-reply`), else "Reply…",
    /// which opens the terminal view with the editor. Issues and merge requests alone.
    case reply
    /// "👍": reacts +1 on the item. Issues and merge requests alone.
    case react
    /// "Mute" the repository.
    case mute

    /// The order of priority where the config says none: answer first (what the popup is for
    /// since issue 45), Mute last, as `gbnotifyctl mute` and the terminal view do it too.
    public static let defaultOrder: [NoticeButton] = [.markRead, .reply, .react, .mute]
}

/// Which buttons a notification carries: the config's order, within the server's room.
public struct ButtonBudget: Sendable, Equatable {
    /// The buttons the user wants, most wanted first (`buttons`).
    public let order: [NoticeButton]
    /// How many buttons the server shows beside the body's click; nil for a server that offers
    /// every action (dunst's and mako's menus, swaync's row).
    public let room: Int?
    /// Reply… comes beside the reply field too, where the server may not draw the field it
    /// advertises (`ServerQuirks.mayHideReplyField`): the field's action is then shown as
    /// nothing at all, and the button is the one way left to reply.
    public let replyBesideField: Bool

    public init(order: [NoticeButton], room: Int?, replyBesideField: Bool = false) {
        self.order = order
        self.room = room
        self.replyBesideField = replyBesideField
    }

    /// The default order, within the room of a server not known: what every server seen shows.
    public static let standard = ButtonBudget(order: NoticeButton.defaultOrder, room: ServerQuirks.defaultButtonsShown)

    /// The buttons of `offered` (what fits the notification's subject) that it carries, in
    /// the order of priority, at most `room`.
    public func choose(from offered: Set<NoticeButton>) -> [NoticeButton] {
        let wanted = order.filter(offered.contains)
        return room.map { Array(wanted.prefix($0)) } ?? wanted
    }
}

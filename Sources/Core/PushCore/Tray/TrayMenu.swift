/// What a choice in the tray's menu, or a click on the tray item, asks the daemon to do: plain
/// values, carried out by the daemon, never by the tray.
public enum TrayRequest: Sendable, Equatable {
    /// A notice was chosen: open it as a click on its notification does.
    case open(PushTarget, activationToken: String?)
    /// "Open inbox", or a primary click on the item: the inbox, the way `open-with` says.
    case openInbox(activationToken: String?)
    /// The account's "Mark all read": the rows its menu listed.
    case markAllRead(Account, rowIDs: [Int64])
    case snooze(Snooze)
    /// "Resume notifications".
    case resume

    public enum Snooze: Sendable, Equatable {
        /// "Snooze for 1 hour".
        case forAnHour
        /// "Snooze until tomorrow 08:00", in the user's local time.
        case untilTomorrowMorning

        /// When a snooze chosen at `now` ends. "Tomorrow 08:00" is the next 08:00 of a later
        /// day than `now`'s, however early in the morning it is chosen.
        public func end(from now: Int64, zone: ZoneOffsets) -> Int64 {
            switch self {
            case .forAnHour:
                return now + 3600
            case .untilTomorrowMorning:
                let eight = TimeOfDay(hour: 8, minute: 0)!
                let next = eight.next(after: now, zone: zone)
                return zone.day(of: next) > zone.day(of: now) ? next : eight.next(after: next, zone: zone)
            }
        }
    }
}

/// The tray's menu as a host shows it: one flat list under the root item (id 0).
///
/// Item ids are stable: an item keeps its id for as long as it is listed (a notice by its
/// account and inbox id), so a host that chooses an item of a menu it fetched before a change
/// still gets what it showed; an id is never given to another item.
public struct TrayMenu: Sendable, Equatable {
    /// Notices listed per account, newest first.
    public static let noticesPerAccount = 10
    /// Longest label, in characters: a menu wider than half a screen helps nobody.
    public static let maximumLabelLength = 80

    public struct Item: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            case standard
            case separator
        }

        public let id: Int32
        public let kind: Kind
        /// As dbusmenu takes it: an underscore marks a mnemonic, so a literal one is doubled.
        public let label: String
        public let isEnabled: Bool
        /// What choosing it asks for; nil for headings and separators.
        public let action: Action?
    }

    /// A `TrayRequest` before the host's activation token is known.
    public enum Action: Sendable, Equatable {
        case open(PushTarget)
        case openInbox
        case markAllRead(Account, rowIDs: [Int64])
        case snooze(TrayRequest.Snooze)
        case resume

        public func request(activationToken: String?) -> TrayRequest {
            switch self {
            case .open(let target): .open(target, activationToken: activationToken)
            case .openInbox: .openInbox(activationToken: activationToken)
            case .markAllRead(let account, let rowIDs): .markAllRead(account, rowIDs: rowIDs)
            case .snooze(let snooze): .snooze(snooze)
            case .resume: .resume
            }
        }
    }

    /// `GetLayout`'s revision: it grows whenever what the menu shows changes.
    public let revision: UInt32
    public let items: [Item]

    public func item(id: Int32) -> Item? {
        items.first { $0.id == id }
    }

    /// A notice's label: "krz/gitbay — ann opened issue #12", with the repository taken from
    /// the row's path, as its notification's, never from its `repo` text.
    public static func label(of row: InboxItem) -> String {
        let repository = NoticeGroup.repository(of: row) ?? row.repo
        return "\(repository) — \(row.actor) \(row.summary)"
    }

    /// The line for the unread rows an account's section does not list: "27 unread on
    /// cmc@gitbay.org" alone, "17 more unread on cmc@gitbay.org" under the rows it lists.
    static func unlistedLabel(_ count: String, on account: Account, belowRows: Bool) -> String {
        // The count is written "50+" when it is only a floor; its number picks the plural.
        let number = Int(count.prefix(while: \.isNumber)) ?? 0
        let values: KeyValuePairs = ["number": count, "account": account.displayName]
        return belowRows
            ? Localized.plural(
                "{number} more unread on {account}", "{number} more unread on {account}", count: number,
                note: "The tray menu's line under the listed notices. {number}: how many more (\"7\", or \"50+\"); {account}: the account, user@host.",
                values)
            : Localized.plural(
                "{number} unread on {account}", "{number} unread on {account}", count: number,
                note: "The tray menu's line for an account none of whose notices are listed; also the tray item's title. {number}: how many notices (\"7\", or \"50+\"); {account}: the account, user@host.",
                values)
    }

    /// Text from outside as a dbusmenu label: one line, bounded, underscores doubled.
    public static func labelText(_ text: String) -> String {
        text.displaySafe(truncatedTo: maximumLabelLength).replacingUnderscores()
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String {
        var escaped = ""
        escaped.reserveCapacity(utf8.count)
        for character in self {
            if character == "_" { escaped += "__" } else { escaped.append(character) }
        }
        return escaped
    }
}

/// Which item an id stands for, so that an item keeps its id across layouts.
enum TrayItemKey: Hashable, Sendable {
    case heading(Account)
    case notice(Account, Int64)
    /// "N unread on ACCOUNT", or "N more unread" under the rows listed: what the menu has no
    /// room for (or the rules keep off it); opens that account's inbox.
    case unreadCount(Account)
    case markAllRead(Account)
    case accountSeparator(Account)
    case snoozeSeparator
    case snoozeForAnHour
    case snoozeUntilTomorrow
    case resume
    case inboxSeparator
    case openInbox
}

/// What the menu would show, and nothing more: compared on every state the daemon hands over
/// (cheap: no labels, no ids), so that `LayoutUpdated` goes out only when it differs.
struct TrayMenuFacts: Equatable, Sendable {
    struct Section: Equatable, Sendable {
        let account: Account
        let rows: [InboxItem]
        /// The unread rows not listed ("17", "40+"); nil when every one is.
        let unlisted: String?
    }

    let sections: [Section]
    let namesAccounts: Bool
    let isSnoozed: Bool

    init(_ state: TrayState) {
        sections = state.shelves.map { shelf in
            let rows = Array(shelf.newest.prefix(TrayMenu.noticesPerAccount))
            let unlisted = shelf.unread.badgeCount - rows.count
            return Section(
                account: shelf.account, rows: rows,
                unlisted: unlisted > 0 ? "\(unlisted)\(shelf.unread.isAtLeast ? "+" : "")" : nil)
        }
        namesAccounts = state.shelves.count > 1
        isSnoozed = state.isSnoozed
    }

    struct Entry {
        let key: TrayItemKey
        let kind: TrayMenu.Item.Kind
        let label: String
        let isEnabled: Bool
        let action: TrayMenu.Action?

        init(_ key: TrayItemKey, _ label: String, isEnabled: Bool = true, _ action: TrayMenu.Action?) {
            self.key = key
            self.kind = .standard
            self.label = label
            self.isEnabled = isEnabled
            self.action = action
        }

        static func separator(_ key: TrayItemKey) -> Entry {
            Entry(key: key, kind: .separator)
        }

        private init(key: TrayItemKey, kind: TrayMenu.Item.Kind) {
            self.key = key
            self.kind = kind
            self.label = ""
            self.isEnabled = true
            self.action = nil
        }
    }

    /// The entries in menu order, each with its key.
    func entries() -> [Entry] {
        var entries: [Entry] = []
        for section in sections {
            let account = section.account
            if !entries.isEmpty {
                entries.append(.separator(.accountSeparator(account)))
            }
            if namesAccounts {
                entries.append(Entry(.heading(account), TrayMenu.labelText(account.displayName), isEnabled: false, nil))
            }
            for row in section.rows {
                let target = PushTarget(account: account, destination: NotificationDestination(path: row.path))
                entries.append(Entry(.notice(account, row.id), TrayMenu.labelText(TrayMenu.label(of: row)), .open(target)))
            }
            if let count = section.unlisted {
                let label = TrayMenu.labelText(TrayMenu.unlistedLabel(count, on: account, belowRows: !section.rows.isEmpty))
                entries.append(Entry(.unreadCount(account), label, .open(PushTarget(account: account, destination: nil))))
            }
            if !section.rows.isEmpty {
                entries.append(Entry(.markAllRead(account), Localized.text("Mark all read", note: "The tray menu's item: marks the account's listed notices read."),
                    .markAllRead(account, rowIDs: section.rows.map(\.id))))
            }
        }
        if !entries.isEmpty {
            entries.append(.separator(.snoozeSeparator))
        }
        entries.append(Entry(.snoozeForAnHour, Localized.text("Snooze for 1 hour", note: "The tray menu's item: holds popups for an hour."), .snooze(.forAnHour)))
        entries.append(Entry(
            .snoozeUntilTomorrow, Localized.text("Snooze until tomorrow 08:00", note: "The tray menu's item: holds popups until 08:00 the next day, local time."), .snooze(.untilTomorrowMorning)))
        entries.append(Entry(.resume, Localized.text("Resume notifications", note: "The tray menu's item: ends a snooze."), isEnabled: isSnoozed, .resume))
        entries.append(.separator(.inboxSeparator))
        entries.append(Entry(.openInbox, Localized.text("Open inbox", note: "The tray menu's item: opens the gitbay inbox."), .openInbox))
        return entries
    }
}

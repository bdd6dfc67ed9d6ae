/// Every decision of the tray item that needs no bus: its title, tooltip, status and count
/// from the state the daemon hands over, its menu when a host asks for it, what a chosen item
/// asks for, and which of the item's signals a change calls for.
///
/// The menu is built only by `layout()`, when a host asks (`GetLayout`); a new state is only
/// compared with the last in the few facts the menu shows, so a poll that changes nothing on
/// the menu sends no `LayoutUpdated`.
public struct TrayModel: Sendable {
    public enum Status: String, Sendable {
        /// Nothing unread: hosts tuck the item away.
        case passive = "Passive"
        case active = "Active"
        /// A notice came that the menu has not shown since.
        case needsAttention = "NeedsAttention"
    }

    /// What the item says about itself (`Title`, `ToolTip`, `Status`, the count on the icon).
    public struct Looks: Sendable, Equatable {
        /// "7 unread on 2 accounts"; also the tooltip's title.
        public let title: String
        /// Escaped for the tooltip's markup: one line per account with unread notices, or with
        /// one such account its newest notice listed; else empty.
        public let toolTipBody: String
        public let status: Status
        /// Drawn on the icon: "" at 0, "99+" past 99, "50+" for a count that is only a floor.
        public let countText: String
    }

    /// Which of the item's signals a change calls for.
    public struct Changes: OptionSet, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let title = Changes(rawValue: 1 << 0)
        public static let toolTip = Changes(rawValue: 1 << 1)
        public static let status = Changes(rawValue: 1 << 2)
        /// The count on the icon (`NewIcon`, and `NewAttentionIcon`).
        public static let icon = Changes(rawValue: 1 << 3)
        /// What the menu shows (`LayoutUpdated` with `revision`).
        public static let layout = Changes(rawValue: 1 << 4)
    }

    /// The largest count drawn as itself.
    public static let largestShownCount = 99

    public private(set) var state = TrayState()
    public private(set) var looks: Looks
    /// The menu's revision: grows with every change of what it shows.
    public private(set) var revision: UInt32 = 1

    private var facts: TrayMenuFacts
    /// Per account, the newest inbox id the menu has shown (opened since it was listed); a row
    /// at or below the shelf's `unreadBefore` is no news either.
    private var seen: [Account: Int64] = [:]
    /// The ids of the items of the last layout built, by what they stand for.
    private var ids: [TrayItemKey: Int32] = [:]
    private var nextID: Int32 = 1
    /// The layout the host was handed last: the one a chosen item's id refers to.
    public private(set) var lastLayout: TrayMenu?

    public init() {
        facts = TrayMenuFacts(state)
        looks = Self.looks(of: state, needsAttention: false)
    }

    // MARK: - What the daemon hands over

    /// A new state: what changed, for the signals.
    public mutating func show(_ state: TrayState) -> Changes {
        self.state = state
        var changes = updateLooks()
        let facts = TrayMenuFacts(state)
        if facts != self.facts {
            self.facts = facts
            revision &+= 1
            changes.insert(.layout)
        }
        return changes
    }

    // MARK: - What the host does

    /// The menu opened (as the host says it: the root's `opened` event, or libdbusmenu-gtk's
    /// `AboutToShowGroup`): what it lists is no longer new.
    public mutating func menuOpened() -> Changes {
        for shelf in state.shelves {
            if let newest = shelf.newest.first?.id, newest > seen[shelf.account, default: 0] {
                seen[shelf.account] = newest
            }
        }
        // Accounts gone from the state take their marks with them.
        let accounts = Set(state.shelves.map(\.account))
        seen = seen.filter { accounts.contains($0.key) }
        return updateLooks()
    }

    /// The menu as it stands, for `GetLayout`: kept as the one chosen ids refer to.
    public mutating func layout() -> TrayMenu {
        var kept: [TrayItemKey: Int32] = [:]
        var items: [TrayMenu.Item] = []
        for entry in facts.entries() {
            let id = ids[entry.key] ?? takeID()
            kept[entry.key] = id
            items.append(TrayMenu.Item(id: id, kind: entry.kind, label: entry.label, isEnabled: entry.isEnabled, action: entry.action))
        }
        ids = kept
        let menu = TrayMenu(revision: revision, items: items)
        lastLayout = menu
        return menu
    }

    /// What choosing item `id` (a `clicked` event) asks for; nil for an item that is no
    /// longer there, a heading, a disabled item or an id the host made up.
    public func request(forItem id: Int32, activationToken: String?) -> TrayRequest? {
        guard let item = lastLayout?.item(id: id), item.isEnabled, let action = item.action else { return nil }
        return action.request(activationToken: activationToken)
    }

    // MARK: - Internals

    private mutating func updateLooks() -> Changes {
        let needsAttention = state.shelves.contains { shelf in
            shelf.unread.badgeCount > 0 && (shelf.newest.first?.id ?? 0) > max(seen[shelf.account, default: 0], shelf.unreadBefore)
        }
        let new = Self.looks(of: state, needsAttention: needsAttention)
        var changes: Changes = []
        if new.title != looks.title { changes.formUnion([.title, .toolTip]) }
        if new.toolTipBody != looks.toolTipBody { changes.insert(.toolTip) }
        if new.status != looks.status { changes.insert(.status) }
        if new.countText != looks.countText { changes.insert(.icon) }
        looks = new
        return changes
    }

    /// Ids of items that left the menu are never given out again; 0 is the root's.
    private mutating func takeID() -> Int32 {
        defer { nextID = nextID == .max ? 1 : nextID + 1 }
        return nextID
    }

    static func looks(of state: TrayState, needsAttention: Bool) -> Looks {
        let total = state.total
        let floor = state.isAtLeast ? "+" : ""
        let withUnread = state.shelves.filter { $0.unread.badgeCount > 0 }
        let title: String
        switch withUnread.count {
        case 0: title = Localized.text("Nothing unread", note: "The tray item's title and tooltip when no notice is unread.")
        case 1:
            title = Localized.plural(
                "{number} unread on {account}", "{number} unread on {account}", count: total,
                note: "The tray item's title and tooltip. {number}: how many notices (\"7\", or \"50+\"); {account}: the account, user@host.",
                ["number": "\(total)\(floor)", "account": withUnread[0].account.displayName])
        default:
            title = Localized.plural(
                "{number} unread on {count} accounts", "{number} unread on {count} accounts", count: withUnread.count,
                note: "The tray item's title and tooltip. {number}: how many notices (\"7\", or \"50+\"); {count}: how many accounts have them (2 or more).",
                ["number": "\(total)\(floor)"])
        }
        let lines: [String]
        if withUnread.count > 1 {
            lines = withUnread.map { shelf in
                Localized.text(
                    "{number} on {account}", note: "A line of the tray's tooltip, one per account. {number}: how many unread notices; {account}: the account, user@host.",
                    ["number": "\(shelf.unread.badgeCount)\(shelf.unread.isAtLeast ? "+" : "")", "account": shelf.account.displayName])
            }
        } else {
            lines = withUnread.first?.newest.first.map { [TrayMenu.label(of: $0)] } ?? []
        }
        let body = lines.map { line in
            NotificationContent.escapedMarkup(line.displaySafe(truncatedTo: TrayMenu.maximumLabelLength))
        }.joined(separator: "\n")
        let countText = total == 0 ? "" : total > largestShownCount ? "\(largestShownCount)+" : "\(total)\(floor)"
        let status: Status = total == 0 ? .passive : needsAttention ? .needsAttention : .active
        return Looks(title: title.displaySafe, toolTipBody: body, status: status, countText: countText)
    }
}

/// What the tray item shows, handed over whole by the desktop stage: every account's unread
/// count and its newest unread notices, and whether notifications are snoozed.
public struct TrayState: Sendable, Equatable {
    public struct Shelf: Sendable, Equatable {
        public var account: Account
        public var unread: UnreadCount
        /// Newest first, each inbox id once; the menu lists the first `TrayMenu.noticesPerAccount`.
        public var newest: [InboxItem]
        /// The newest row that was already unread when the daemon first heard of the account:
        /// listed, but no news, so no call for attention; 0 when every row listed came as news.
        public var unreadBefore: Int64

        public init(account: Account, unread: UnreadCount, newest: [InboxItem], unreadBefore: Int64 = 0) {
            self.account = account
            self.unread = unread
            self.newest = newest
            self.unreadBefore = unreadBefore
        }
    }

    /// In the order the menu lists them.
    public var shelves: [Shelf]
    /// Notifications are held: the menu's "Resume notifications" is enabled.
    public var isSnoozed: Bool

    public init(shelves: [Shelf] = [], isSnoozed: Bool = false) {
        self.shelves = shelves
        self.isSnoozed = isSnoozed
    }

    /// Every account's unread count added up (saturating, as the badge's).
    public var total: Int {
        var tally = UnreadTally()
        for shelf in shelves { tally.set(shelf.unread.badgeCount, for: shelf.account) }
        return tally.total
    }

    /// Some account's count is only a floor ("50+").
    public var isAtLeast: Bool {
        shelves.contains { $0.unread.isAtLeast && $0.unread.badgeCount > 0 }
    }
}

/// The tray's state kept from what the desktop stage already hears, the same `AccountUpdate`s
/// its notifications come from: the unread rows a poll read join their account's shelf, new or
/// not (what a start or a burst sums up as "27 unread" is listed too), rows read anywhere leave
/// it, and the latest unread count replaces the last one.
public struct TrayInbox: Sendable, Equatable {
    /// Rows kept per account: more than the menu lists, so that reading some elsewhere still
    /// leaves the next ones to list, and bounded, whatever an inbox holds.
    public static let keptPerAccount = 50

    public private(set) var state = TrayState()

    public init() {}

    /// Takes an update; a row the rules keep off the screen (`show = none`) is not listed
    /// either, a silent one is.
    public mutating func take(_ update: AccountUpdate, rules: RuleSet) {
        let noticed = update.notices.compactMap { notice -> InboxItem? in
            if case .item(let row) = notice { row } else { nil }
        }
        let index = state.shelves.firstIndex { $0.account == update.account }
        let held = index.map { state.shelves[$0].newest } ?? []
        var byID: [Int64: InboxItem] = [:]
        for row in held + noticed + update.unreadRows where !update.read.contains(row.id) {
            byID[row.id] = row
        }
        // Nothing unread means nothing to list, whatever the rows said.
        let newest = update.unread.badgeCount == 0 ? [] : Array(
            byID.values.filter { rules.evaluate($0, of: update.account).show != .none }
                .sorted { $0.id > $1.id }.prefix(Self.keptPerAccount))
        // What the first update of an account lists and does not bring as news (a first sight,
        // or the unread rows below the mark after a restart) was there before.
        let unreadBefore = index.map { state.shelves[$0].unreadBefore } ?? Self.unreadBefore(in: update)
        let shelf = TrayState.Shelf(account: update.account, unread: update.unread, newest: newest, unreadBefore: unreadBefore)
        if let index {
            state.shelves[index] = shelf
        } else {
            state.shelves.append(shelf)
        }
    }

    /// The newest of the update's unread rows that it does not bring as news.
    private static func unreadBefore(in update: AccountUpdate) -> Int64 {
        var news = Set<Int64>()
        for notice in update.notices {
            switch notice {
            case .item(let row): news.insert(row.id)
            case .summary(_, _, let rowIDs, let isFirstSight) where !isFirstSight: news.formUnion(rowIDs)
            case .summary: break
            }
        }
        return update.unreadRows.lazy.map(\.id).filter { !news.contains($0) }.max() ?? 0
    }

    /// The accounts polled now: the others' shelves go.
    public mutating func keep(only accounts: [Account]) {
        state.shelves.removeAll { !accounts.contains($0.account) }
    }

    public mutating func setSnoozed(_ isSnoozed: Bool) {
        state.isSnoozed = isSnoozed
    }
}

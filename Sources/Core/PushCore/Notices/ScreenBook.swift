/// Which of the daemon's notifications are open, what each shows, and what must change on
/// screen next: every decision of the desktop side that needs no bus.
///
/// The desktop stage feeds it what the pollers learnt (`take`), what the notification server
/// said (`closedByServer`, `serverChanged`) and how its own calls went (`shown`,
/// `awaitServer`, `drop`), and carries out what it asks for: the server ids in
/// `takeClosings()` to close, then the entries in `toShow` to show, each replacing its
/// `serverID` when it has one.
///
/// - At most `limit` entries at once (`max-notifications`, or what the server keeps per
///   application, `ServerQuirks.keptOpen`: GNOME Shell 43 keeps 3 and evicts the oldest past
///   that, so more would lose notices while they are unread). Before one
///   more would exceed it, the oldest groups fold into one summary per account ("5 more unread
///   on gitbay.org as cmc"). A new notice shows itself: when only summaries and warnings are
///   older, it joins its account's summary if there is one, and else the oldest of them goes.
/// - Entries waiting for a notification server count against the limit too, so what waits is
///   bounded.
/// - A notification the server closed, for whatever reason, is no longer open; its notices stay
///   unread on the server and in the badge, and are not shown again.
/// - Only notices the `rules` pop up join a notification. While an account's popups are held
///   (a snooze, quiet hours), what would have popped up is kept aside, and shows as one summary
///   when the hold ends (`endHold`).
public struct ScreenBook: Sendable, Equatable {
    /// Oldest first.
    public private(set) var entries: [Entry] = []
    public private(set) var limit: Int
    private var nextID: UInt64 = 1
    /// Entries from this id on came since the limit was last enforced: the new ones.
    private var freshFrom: UInt64 = 1
    private var closings: [UInt32] = []
    /// The actions served on open entries since they were last shown, by server id and key.
    private var answered: Set<AnsweredAction> = []
    /// Accounts that had their first update in this process.
    private var started: Set<Account> = []
    /// The config's rules, deciding for each new notice whether it pops up.
    public var rules = RuleSet.none
    /// What would have popped up while held, per account.
    private var held = HeldNotices()

    public init(limit: Int) {
        self.limit = max(limit, 1)
    }

    /// The notifications an earlier daemon left on the same server, adopted: clicks on them
    /// are served, updates replace them in place. Entries of another server are not adopted,
    /// nor any on a server that withdrew them as that daemon left the bus (`server`): then
    /// nothing is open, and the first updates sum up what is unread as after a first start.
    public init(limit: Int, adopting saved: Saved?, serverOwner: String?, server: ServerQuirks = ServerQuirks(serverName: nil, version: nil)) {
        self.init(limit: limit)
        guard server.adoptsAfterRestart, let saved, saved.version == Saved.currentVersion, let serverOwner,
              saved.serverOwner == serverOwner
        else { return }
        entries = saved.entries.compactMap { entry in
            guard entry.serverID != nil else { return nil }
            var adopted = entry
            adopted.needsShowing = false
            adopted.isAdopted = true
            return adopted
        }
        nextID = (entries.map(\.id).max() ?? 0) + 1
        enforceLimit()
    }

    /// What to keep in the state directory: the entries on screen now.
    public func saved(serverOwner: String) -> Saved {
        Saved(serverOwner: serverOwner, entries: entries.filter { $0.serverID != nil })
    }

    // MARK: - What the daemon learnt

    /// A poll's (or a "Mark read"'s) news for one account: its read rows leave their
    /// notifications, its new notices join their repository's notification or start one, and
    /// the first update of an account in this process sums up what is unread. While `hold`
    /// holds the account's popups, what would pop up is kept for `endHold` instead.
    public mutating func take(_ update: AccountUpdate, heldBy hold: Hold? = nil) {
        let account = update.account
        let isFirst = started.insert(account).inserted
        let unread = update.unread.badgeCount
        for entry in entries.reversed() where entry.account == account {
            switch entry.subject {
            case .group(let group):
                if let left = group.removing(update.read) {
                    // Not shown again: a shrunken list is no reason for a banner.
                    set(entry.id) { $0.subject = .group(left) }
                } else {
                    remove(entry.id)
                }
            case .summary(let summary):
                if unread > 0, let left = summary.removing(update.read) {
                    set(entry.id) { $0.subject = .summary(left) }
                } else {
                    remove(entry.id)
                }
            case .tokenRejected:
                // The account's requests work again.
                remove(entry.id)
            case .muted, .said:
                break
            }
        }

        held.removing(update.read, of: account)

        var rows: [InboxItem] = []
        for notice in update.notices {
            switch notice {
            case .item(let row):
                // Silent and hidden notices stay in the badge (and the tray), never on screen.
                if rules.evaluate(row, of: account).show == .popup { rows.append(row) }
            case .summary(let count, let isAtLeast, let rowIDs, let isFirstSight):
                add(NoticeSummary(count: count, isAtLeast: isAtLeast, wording: isFirstSight ? .unread : .new, rowIDs: rowIDs), for: account, heldBy: hold)
            }
        }
        if let hold {
            held.hold(rows, of: account, reason: hold.reason)
            rows = []
        }
        for group in NoticeGroup.grouping(rows, of: account) {
            if let open = entries.first(where: { $0.subject.group?.key == group.key }), let held = open.subject.group {
                set(open.id) {
                    $0.subject = .group(held.adding(group.items))
                    $0.needsShowing = true
                }
            } else {
                append(.group(group), for: account)
            }
        }

        // After a start nothing old is replayed: one summary of what is unread, unless an
        // earlier daemon's notifications of the account are still open.
        if isFirst, update.notices.isEmpty, unread > 0, !entries.contains(where: { $0.account == account }) {
            add(NoticeSummary(count: unread, isAtLeast: update.unread.isAtLeast, wording: .unread, rowIDs: []), for: account, heldBy: hold)
        }
        enforceLimit()
    }

    /// The accounts with notices kept aside by a hold.
    public var heldAccounts: [Account] { held.accounts }

    /// How many of `account`'s notices are kept aside by its hold.
    public func heldCount(of account: Account) -> Int {
        held.count(of: account)
    }

    /// `account`'s hold ended: what came meanwhile shows as one summary ("5 new on gitbay.org
    /// as cmc while snoozed"), never one by one.
    public mutating func endHold(of account: Account) {
        guard let summary = held.release(account) else { return }
        add(summary, for: account)
        enforceLimit()
    }

    /// The server rejected the account's token: one warning, until a request works again.
    public mutating func tokenRejected(for account: Account) {
        guard !entries.contains(where: { $0.account == account && $0.subject == .tokenRejected }) else { return }
        append(.tokenRejected, for: account)
        enforceLimit()
    }

    /// "Mute" on a repository's notification: it gives way to a new one that says the
    /// repository is muted and offers to undo it (its notices stay unread). Returns that entry;
    /// nil when `id` is no repository's notification.
    public mutating func mute(_ id: UInt64, undoUntil: Int64) -> Entry? {
        guard let entry = entry(id: id), let repository = entry.subject.group?.key.repository else { return nil }
        // A new notification rather than a replacement: the server may be closing the clicked
        // one already, and its closing must not take the new one along.
        remove(id)
        append(.muted(repository: repository, until: undoUntil), for: entry.account)
        enforceLimit()
        return entries.last
    }

    /// What became of an answer from a notification, said in one of its own: until `until`
    /// (seconds since the Unix epoch), or until dismissed when nil. A new notification, as
    /// "Muted" is: the answered one is being withdrawn. Returns its entry.
    @discardableResult
    public mutating func say(_ said: AnswerSaid, for account: Account, until: Int64?) -> Entry? {
        append(.said(said, until: until), for: account)
        enforceLimit()
        return entries.last.flatMap { $0.subject == .said(said, until: until) ? $0 : nil }
    }

    /// The notifications said for a while whose time is over at `now` go ("Muted" ones of a
    /// daemon that kept no time included); returns the others, with when each one ends.
    public mutating func endUndoWindows(at now: Int64) -> [(id: UInt64, until: Int64)] {
        var open: [(id: UInt64, until: Int64)] = []
        for entry in entries {
            let until: Int64?
            switch entry.subject {
            case .muted(_, let end): until = end
            case .said(_, let end?): until = end
            case .group, .summary, .tokenRejected, .said: continue
            }
            if let until, now < until {
                open.append((entry.id, until))
            } else {
                remove(entry.id)
            }
        }
        return open
    }

    /// The entry goes from the screen (an undone mute, or its time over).
    public mutating func withdraw(_ id: UInt64) {
        remove(id)
    }

    /// The account left the keyring: its notifications go.
    public mutating func forget(_ account: Account) {
        started.remove(account)
        _ = held.release(account)
        for entry in entries where entry.account == account {
            remove(entry.id)
        }
    }

    /// `max-notifications` changed (a reload).
    public mutating func setLimit(_ limit: Int) {
        self.limit = max(limit, 1)
        enforceLimit()
    }

    // MARK: - What the server said

    /// The server closed one of ours (expired, dismissed, clicked, evicted): it is no longer
    /// open. Returns the entry, nil when the id is not ours.
    @discardableResult
    public mutating func closedByServer(_ serverID: UInt32) -> Entry? {
        guard let index = entries.firstIndex(where: { $0.serverID == serverID }) else { return nil }
        forgetActions(on: serverID)
        return entries.remove(at: index)
    }

    /// The action `key` was invoked on the notification `serverID` (a click on it, or a
    /// button): its entry the first time since it was last shown, nil for the same action
    /// heard again.
    ///
    /// GNOME Shell 43 connects one more click handler with every Notify of an id, so a
    /// notification shown and replaced twice sends ActionInvoked three times for one click, each
    /// with the same key. Another key is another choice of the user's: mako and LXQt keep a
    /// notification open after an action, and "Mark read" after "Open" must still mark it read.
    public mutating func actionInvoked(_ key: String, on serverID: UInt32) -> Entry? {
        guard let entry = entry(serverID: serverID),
              answered.insert(AnsweredAction(serverID: serverID, key: key)).inserted
        else { return nil }
        return entry
    }

    /// The notification server left the bus or another took its place: what it showed is gone
    /// with it. Entries still waiting to be shown stay, for the next server.
    public mutating func serverChanged() {
        entries.removeAll { $0.serverID != nil }
        closings = []
        answered = []
    }

    public func entry(serverID: UInt32) -> Entry? {
        entries.first { $0.serverID == serverID }
    }

    public func entry(id: UInt64) -> Entry? {
        entries.first { $0.id == id }
    }

    // MARK: - How the desktop's calls went

    /// Server ids to close, in the order they left the book; taken once.
    public mutating func takeClosings() -> [UInt32] {
        defer { closings = [] }
        return closings
    }

    /// Entries to show, oldest first: each replaces its `serverID` when it has one.
    public var toShow: [Entry] {
        entries.filter(\.needsShowing)
    }

    /// The server showed `entry`, as `toShow` gave it, under `serverID` (a replacement may get
    /// a new one). When the entry changed while the server was being asked, what it shows is
    /// older than the entry: it still needs showing, in place of `serverID`.
    public mutating func shown(_ entry: Entry, serverID: UInt32) {
        forgetClick(on: entry.id)
        forgetActions(on: serverID)
        set(entry.id) {
            $0.needsShowing = $0.subject != entry.subject
            $0.serverID = serverID
            $0.isAdopted = false
        }
    }

    /// No notification server: the entry waits for one.
    public mutating func awaitServer(_ id: UInt64) {
        forgetClick(on: id)
        set(id) {
            $0.serverID = nil
            $0.needsShowing = true
        }
    }

    /// The server refused the entry for good: it is dropped (its notices stay unread on the
    /// server and in the badge).
    public mutating func drop(_ id: UInt64) {
        forgetClick(on: id)
        entries.removeAll { $0.id == id }
    }

    // MARK: - Internals

    private mutating func append(_ subject: Subject, for account: Account) {
        entries.append(Entry(id: nextID, account: account, subject: subject, serverID: nil, needsShowing: true, isAdopted: false))
        nextID += 1
    }

    /// A summary joins the account's open summary, or opens one; while held, the summary of
    /// what is kept aside.
    private mutating func add(_ summary: NoticeSummary, for account: Account, heldBy hold: Hold? = nil) {
        if hold != nil {
            held.hold(summary, of: account)
        } else if let open = entries.first(where: { $0.account == account && $0.subject.summary != nil }),
           let shown = open.subject.summary {
            set(open.id) {
                $0.subject = .summary(shown.merging(summary))
                $0.needsShowing = true
            }
        } else {
            append(.summary(summary), for: account)
        }
    }

    /// The entry is shown anew or gone: a click on its notification (by whatever id) counts again.
    private mutating func forgetClick(on id: UInt64) {
        if let serverID = entry(id: id)?.serverID { forgetActions(on: serverID) }
    }

    private mutating func forgetActions(on serverID: UInt32) {
        answered = answered.filter { $0.serverID != serverID }
    }

    private mutating func set(_ id: UInt64, _ change: (inout Entry) -> Void) {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return }
        change(&entries[index])
    }

    private mutating func remove(_ id: UInt64) {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return }
        if let serverID = entries[index].serverID { closings.append(serverID) }
        forgetClick(on: id)
        entries.remove(at: index)
    }

    /// Folds the oldest groups into their account's summary until the limit holds. Groups
    /// shown before fold first; when only summaries and warnings are older, a new group joins
    /// its account's summary if there is one, and else the oldest of them goes, so that a new
    /// notice is not folded away at once for another account's summary. With nothing older, the
    /// new groups fold too; when only summaries and warnings are left, the oldest goes.
    private mutating func enforceLimit() {
        defer { freshFrom = nextID }
        while entries.count > limit {
            let fresh = freshFrom
            if let folded = entries.first(where: { $0.id < fresh && $0.subject.group != nil }) {
                fold(folded)
            } else if let newest = entries.first(where: { $0.id >= fresh && $0.subject.group != nil }) {
                let hasSummary = entries.contains { $0.account == newest.account && $0.subject.summary != nil }
                if !hasSummary, let oldest = entries.first(where: { $0.id < fresh }) {
                    remove(oldest.id)
                } else {
                    fold(newest)
                }
            } else {
                remove(entries[0].id)
            }
        }
    }

    /// A group becomes its account's summary: joins the one open, or becomes it in place.
    private mutating func fold(_ folded: Entry) {
        guard let group = folded.subject.group else { return }
        let summary = NoticeSummary(folding: group)
        if let open = entries.first(where: { $0.account == folded.account && $0.subject.summary != nil }),
           let held = open.subject.summary {
            set(open.id) {
                $0.subject = .summary(held.merging(summary))
                $0.needsShowing = true
            }
            remove(folded.id)
        } else {
            set(folded.id) {
                $0.subject = .summary(summary)
                $0.needsShowing = true
            }
        }
    }
}

/// An action served on a notification: its server id and the action's key.
private struct AnsweredAction: Hashable {
    let serverID: UInt32
    let key: String
}

/// What one poll of an account's unread inbox means for the desktop: which notices to show,
/// the account's new high-water mark, its unread count, and which rows are read now.
///
/// A row is new when its id is above the high-water mark: gitbay's inbox ids only grow, so the
/// mark is all the daemon must persist to never show a notice twice, across restarts too.
public enum InboxDiff {
    /// - Parameters:
    ///   - page: the first page of `notifications list` (unread rows, newest first).
    ///   - pageLimit: the most rows the server returns on one page: 50 for a bare list.
    ///   - highWater: the highest inbox id already accounted for; nil the first time an account
    ///     is seen.
    ///   - maxIndividual: the most new notices shown one by one; more become one summary.
    public static func evaluate(
        page: InboxPage, pageLimit: Int = 50, highWater: Int64?, maxIndividual: Int = 3
    ) -> InboxCycle {
        // Ids are positive and unique; anything else is a row the list's contract does not allow,
        // dropped and counted. A read row in the unread list is stale: it was read after the
        // server built the page. Its id is real, so it still moves the mark.
        var seenIDs = Set<Int64>()
        var unread: [InboxItem] = []
        var ignoredRows = 0
        var newestID: Int64 = 0
        for item in page.items {
            guard item.id > 0, seenIDs.insert(item.id).inserted else {
                ignoredRows += 1
                continue
            }
            newestID = max(newestID, item.id)
            if item.readAt == nil {
                unread.append(item)
            } else {
                ignoredRows += 1
            }
        }
        // Oldest first, whatever order the server used, so individual notices appear in the
        // order things happened.
        unread.sort { $0.id < $1.id }

        // A full page (or one with a next page) says nothing about the rows past it.
        let isComplete = page.items.count < pageLimit && page.next == nil
        let unreadCount: UnreadCount = isComplete ? .exact(unread.count) : .needsDashboard(atLeast: unread.count)

        let newRows = highWater.map { mark in unread.filter { $0.id > mark } } ?? unread
        // When an incomplete page ends on a row that is still new, more new rows may lie past
        // it; they are never seen one by one (the mark moves past them), so the summary must
        // say "at least".
        let mayContinue = !isComplete && newRows.count == unread.count
        let notices: [InboxCycle.Notice]
        if newRows.isEmpty {
            notices = []
        } else if highWater == nil {
            // Nothing old is replayed one by one: the first sight is at most one summary.
            notices = [.summary(count: newRows.count, isAtLeast: mayContinue, rowIDs: newRows.map(\.id), isFirstSight: true)]
        } else if newRows.count <= maxIndividual && !mayContinue {
            notices = newRows.map(InboxCycle.Notice.item)
        } else {
            notices = [.summary(count: newRows.count, isAtLeast: mayContinue, rowIDs: newRows.map(\.id), isFirstSight: false)]
        }

        return InboxCycle(
            notices: notices,
            highWater: max(highWater ?? 0, newestID),
            unread: unreadCount,
            read: .unreadPage(Set(unread.map(\.id)), isComplete: isComplete),
            unreadRows: Array(unread.reversed()),
            ignoredRows: ignoredRows
        )
    }
}

/// The outcome of `InboxDiff.evaluate` for one poll of one account.
public struct InboxCycle: Equatable, Sendable {
    public enum Notice: Equatable, Sendable {
        /// One new row, to show as its own notification.
        case item(InboxItem)
        /// `count` rows summed up in one notification that opens the inbox; `rowIDs` are the
        /// ones the page listed. `isAtLeast`: the page was full, so the true count may be larger
        /// ("50+"). `isFirstSight`: the account was never seen before, so these are what is
        /// unread ("5 unread") rather than new.
        case summary(count: Int, isAtLeast: Bool, rowIDs: [Int64], isFirstSight: Bool)
    }

    /// In the order to show them; individual items oldest first.
    public let notices: [Notice]
    /// The mark to persist once the notices are shown: never below the one passed in, and 0
    /// after a first sight of an empty inbox (seen, nothing in it), so the next row is shown
    /// as new rather than as another first sight.
    public let highWater: Int64
    public let unread: UnreadCount
    /// Which rows the page proves read, for withdrawing notifications of rows read elsewhere.
    public let read: ReadRows
    /// The page's unread rows, newest first, new or not: what the tray lists, old ones too.
    public let unreadRows: [InboxItem]
    /// Rows dropped as broken (id not positive, a repeated id) or stale (already read), for the
    /// log.
    public let ignoredRows: Int
}

/// An account's unread count as far as one poll can tell.
public enum UnreadCount: Equatable, Sendable {
    case exact(Int)
    /// The page was full: ask `dashboard` for `unread`, then `resolved(dashboardUnread:)`.
    case needsDashboard(atLeast: Int)
    /// An older server whose dashboard has no `unread`: at least this many.
    case atLeast(Int)

    /// The count once `dashboard` answered: its `unread` when present (it counts every row,
    /// not just one page); otherwise, on an older server, what the page proved.
    public func resolved(dashboardUnread: Int?) -> UnreadCount {
        guard case .needsDashboard(let floor) = self else { return self }
        guard let dashboardUnread, dashboardUnread >= 0 else { return .atLeast(floor) }
        return .exact(OutsideCount.clamped(dashboardUnread))
    }

    /// The number for a badge: exact, or the floor of what is known.
    public var badgeCount: Int {
        switch self {
        case .exact(let count), .needsDashboard(let count), .atLeast(let count): count
        }
    }

    /// Whether the count is only a floor ("50+").
    public var isAtLeast: Bool {
        if case .exact = self { false } else { true }
    }
}

/// Which inbox rows are known to be read, so their notifications can be withdrawn.
public struct ReadRows: Equatable, Sendable {
    private enum Evidence: Equatable, Sendable {
        /// A poll's page of unread rows, newest first: a row missing from it is read when the
        /// page was the whole list, or when its id is within the page's range (everything above
        /// the page's oldest row would be on it). Below that range nothing is known.
        case unreadPage(Set<Int64>, isComplete: Bool, oldest: Int64?)
        /// Rows this daemon marked read ("Mark read").
        case marked(Set<Int64>)
    }

    private let evidence: Evidence

    public static func unreadPage(_ unread: Set<Int64>, isComplete: Bool) -> ReadRows {
        ReadRows(evidence: .unreadPage(unread, isComplete: isComplete, oldest: unread.min()))
    }

    public static func marked(_ ids: [Int64]) -> ReadRows {
        ReadRows(evidence: .marked(Set(ids)))
    }

    /// Nothing is known to be read (a poll that did not read the list).
    public static let none = ReadRows.marked([])

    public func contains(_ id: Int64) -> Bool {
        switch evidence {
        case .marked(let ids):
            ids.contains(id)
        case .unreadPage(let unread, let isComplete, let oldest):
            !unread.contains(id) && (isComplete || oldest.map { id > $0 } ?? false)
        }
    }
}

import PushCore
import Testing

@Suite struct InboxDiffTests {
    static func row(_ id: Int64, readAt: String? = nil) -> InboxItem {
        InboxItem(
            id: id, repo: "krz/gitbay", kind: .issue, actor: "cmc", summary: "opened issue #\(id)",
            path: "krz/gitbay/issues/\(id)", createdAt: "2026-09-20T10:11:12.123Z", readAt: readAt)
    }

    /// Unread rows with these ids, in the order given (the server sends newest first).
    static func page(_ ids: [Int64], next: String? = nil) -> InboxPage {
        InboxPage(items: ids.map { row($0) }, next: next)
    }

    static func newestFirst(_ ids: ClosedRange<Int64>) -> [Int64] {
        ids.reversed()
    }

    // MARK: - First sight

    @Test func firstSightIsOneSummaryOfWhatIsUnread() {
        let cycle = InboxDiff.evaluate(page: Self.page([12, 9, 4]), highWater: nil)
        #expect(cycle.notices == [.summary(count: 3, isAtLeast: false, rowIDs: [4, 9, 12], isFirstSight: true)])
        #expect(cycle.highWater == 12)
        #expect(cycle.unread == .exact(3))
    }

    /// What the tray lists: every unread row of the page, newest first, whether a summary only
    /// counts them or not; the read and broken ones are not among them.
    @Test func theUnreadRowsAreThePagesNewestFirstNewOrNot() {
        let page = InboxPage(items: [Self.row(12), Self.row(11, readAt: "2026-09-20T11:00:00Z"), Self.row(9), Self.row(-3), Self.row(4)], next: nil)
        let first = InboxDiff.evaluate(page: page, highWater: nil)
        #expect(first.unreadRows.map(\.id) == [12, 9, 4])
        let later = InboxDiff.evaluate(page: page, highWater: 10)
        #expect(later.notices == [.item(Self.row(12))])
        #expect(later.unreadRows.map(\.id) == [12, 9, 4])
    }

    @Test func firstSightOfAFullPageSaysAtLeast() {
        let cycle = InboxDiff.evaluate(page: Self.page(Self.newestFirst(101...150)), highWater: nil)
        #expect(cycle.notices == [.summary(count: 50, isAtLeast: true, rowIDs: Array(101...150), isFirstSight: true)])
        #expect(cycle.highWater == 150)
        #expect(cycle.unread == .needsDashboard(atLeast: 50))
    }

    @Test func firstSightOfAnEmptyInboxSetsAMarkSoTheNextRowIsShownAsNew() {
        let first = InboxDiff.evaluate(page: Self.page([]), highWater: nil)
        #expect(first.notices.isEmpty)
        #expect(first.highWater == 0)
        #expect(first.unread == .exact(0))

        let second = InboxDiff.evaluate(page: Self.page([7]), highWater: first.highWater)
        #expect(second.notices == [.item(Self.row(7))])
        #expect(second.highWater == 7)
    }

    // MARK: - New rows

    /// `count` new rows above a mark of 1000, on a page that also holds two older unread rows.
    @Test(arguments: [0, 1, 3, 4, 500])
    func newRows(_ count: Int) {
        let newIDs = (0..<Int64(count)).map { 1001 + $0 }
        let page = Self.page(newIDs.reversed() + [999, 998])
        let cycle = InboxDiff.evaluate(page: page, pageLimit: 1000, highWater: 1000)

        switch count {
        case 0:
            #expect(cycle.notices.isEmpty)
        case 1...3:
            #expect(cycle.notices == newIDs.map { .item(Self.row($0)) })  // oldest first
        default:
            #expect(cycle.notices == [.summary(count: count, isAtLeast: false, rowIDs: newIDs, isFirstSight: false)])
        }
        #expect(cycle.highWater == 1000 + Int64(count))
        #expect(cycle.unread == .exact(count + 2))
        #expect(cycle.ignoredRows == 0)
    }

    @Test func maxIndividualIsTheSplitBetweenItemsAndASummary() {
        let page = Self.page([13, 12, 11])
        #expect(InboxDiff.evaluate(page: page, highWater: 10, maxIndividual: 3).notices.count == 3)
        #expect(InboxDiff.evaluate(page: page, highWater: 10, maxIndividual: 2).notices
            == [.summary(count: 3, isAtLeast: false, rowIDs: [11, 12, 13], isFirstSight: false)])
    }

    @Test func aFullPageOfNewRowsSaysAtLeast() {
        let cycle = InboxDiff.evaluate(page: Self.page(Self.newestFirst(201...250)), highWater: 100)
        #expect(cycle.notices == [.summary(count: 50, isAtLeast: true, rowIDs: Array(201...250), isFirstSight: false)])
        #expect(cycle.highWater == 250)
        #expect(cycle.unread == .needsDashboard(atLeast: 50))
    }

    @Test func aFullPageThatReachesOldRowsCountsExactly() {
        // 10 new rows, then 40 already accounted for: nothing new can lie past the page.
        let cycle = InboxDiff.evaluate(page: Self.page(Self.newestFirst(91...140)), highWater: 130)
        #expect(cycle.notices == [.summary(count: 10, isAtLeast: false, rowIDs: Array(131...140), isFirstSight: false)])
        #expect(cycle.unread == .needsDashboard(atLeast: 50))
    }

    @Test func fewNewRowsOnAFullPageAreStillASummary() {
        // Rows past the page would never be seen one by one, so they must not pass silently.
        let cycle = InboxDiff.evaluate(page: Self.page([9, 8]), pageLimit: 2, highWater: 5)
        #expect(cycle.notices == [.summary(count: 2, isAtLeast: true, rowIDs: [8, 9], isFirstSight: false)])
    }

    @Test func aPageWithANextCursorIsNotComplete() {
        let cycle = InboxDiff.evaluate(page: Self.page([9, 8], next: "opaque"), pageLimit: 200, highWater: 5)
        #expect(cycle.notices == [.summary(count: 2, isAtLeast: true, rowIDs: [8, 9], isFirstSight: false)])
        #expect(cycle.unread == .needsDashboard(atLeast: 2))
        // Rows below the page's oldest may be unread still.
        #expect(!cycle.read.contains(3))
    }

    // MARK: - The mark

    @Test func rowsAtOrBelowTheMarkAreNeverShownAndTheMarkNeverFalls() {
        // A server restored from a backup: every id is below the mark.
        let cycle = InboxDiff.evaluate(page: Self.page([90, 80]), highWater: 100)
        #expect(cycle.notices.isEmpty)
        #expect(cycle.highWater == 100)
        #expect(cycle.unread == .exact(2))

        let atMark = InboxDiff.evaluate(page: Self.page([100]), highWater: 100)
        #expect(atMark.notices.isEmpty)
        #expect(atMark.highWater == 100)
    }

    @Test func rowsOutOfOrderAreShownOldestFirst() {
        let cycle = InboxDiff.evaluate(page: Self.page([5, 9, 3, 7]), highWater: 4)
        #expect(cycle.notices == [5, 7, 9].map { .item(Self.row($0)) })
        #expect(cycle.highWater == 9)
        #expect(cycle.ignoredRows == 0)
    }

    @Test func duplicatedIdsCountOnce() {
        let cycle = InboxDiff.evaluate(page: Self.page([9, 9, 8, 9]), highWater: 7)
        #expect(cycle.notices == [.item(Self.row(8)), .item(Self.row(9))])
        #expect(cycle.unread == .exact(2))
        #expect(cycle.ignoredRows == 2)
    }

    @Test func rowsWithoutAPositiveIdAreIgnored() {
        let cycle = InboxDiff.evaluate(page: Self.page([0, -3]), highWater: nil)
        #expect(cycle.notices.isEmpty)
        #expect(cycle.highWater == 0)
        #expect(cycle.unread == .exact(0))
        #expect(cycle.ignoredRows == 2)
    }

    @Test func aReadRowIsStaleButMovesTheMark() {
        let page = InboxPage(items: [Self.row(12, readAt: "2026-09-20T11:00:00Z"), Self.row(11)], next: nil)
        let cycle = InboxDiff.evaluate(page: page, highWater: 10)
        #expect(cycle.notices == [.item(Self.row(11))])
        #expect(cycle.highWater == 12)
        #expect(cycle.unread == .exact(1))
        #expect(cycle.ignoredRows == 1)
        #expect(cycle.read.contains(12))
        #expect(!cycle.read.contains(11))
    }

    // MARK: - Read rows

    @Test func rowsMissingFromACompletePageWereReadElsewhere() {
        let cycle = InboxDiff.evaluate(page: Self.page([8, 7]), highWater: 7)
        #expect([5, 6].allSatisfy(cycle.read.contains))
        #expect(![7, 8].contains(where: cycle.read.contains))
        #expect(cycle.notices == [.item(Self.row(8))])
    }

    @Test func aFullPageProvesReadOnlyWhatIsWithinItsRange() {
        // 50 unread rows, 11 to 60 but for 30: 30 is read; 5 and 4, below the page, may not be.
        let page = Self.page(Self.newestFirst(10...60).filter { $0 != 30 })
        let cycle = InboxDiff.evaluate(page: page, highWater: 60)
        #expect(cycle.read.contains(30))
        #expect(!cycle.read.contains(5))
        #expect(!cycle.read.contains(4))
        #expect(!cycle.read.contains(60))
        #expect(cycle.notices.isEmpty)
    }

    @Test func anEmptyPageProvesEverythingRead() {
        let cycle = InboxDiff.evaluate(page: Self.page([]), highWater: 40)
        #expect(cycle.read.contains(40) && cycle.read.contains(38))
        #expect(cycle.unread == .exact(0))
        #expect(cycle.highWater == 40)
    }

    @Test func rowsMarkedReadHereAreReadAndNoOthers() {
        let read = ReadRows.marked([3, 5])
        #expect(read.contains(3) && read.contains(5))
        #expect(!read.contains(4))
        #expect(!ReadRows.none.contains(1))
    }

    // MARK: - The unread count

    @Test func theDashboardResolvesAFullPage() {
        let pending = UnreadCount.needsDashboard(atLeast: 50)
        #expect(pending.resolved(dashboardUnread: 73) == .exact(73))
        #expect(pending.resolved(dashboardUnread: nil) == .atLeast(50))
        #expect(pending.resolved(dashboardUnread: -1) == .atLeast(50))
        #expect(pending.resolved(dashboardUnread: Int.max) == .exact(OutsideCount.maximum))
        #expect(UnreadCount.exact(4).resolved(dashboardUnread: 99) == .exact(4))
    }

    @Test(arguments: [
        (UnreadCount.exact(4), 4), (.needsDashboard(atLeast: 50), 50), (.atLeast(50), 50),
    ])
    func badgeCounts(_ count: UnreadCount, _ badge: Int) {
        #expect(count.badgeCount == badge)
    }
}

import PushCore
import Testing

/// Matching payloads and inbox rows of the same notice, so each is shown once.
@Suite struct NoticeLedgerTests {
    static func row(_ id: Int64, actor: String = "noor", summary: String = "opened issue #12", number: Int = 12) -> InboxItem {
        InboxItem(
            id: id, repo: "krz/gitbay", kind: .issue, actor: actor, summary: summary, path: "krz/gitbay/issues/\(number)",
            createdAt: "2026-09-20T10:00:00Z", readAt: nil)
    }

    /// What a poll of `rows` after `highWater` shows, through the ledger.
    static func poll(_ ledger: inout NoticeLedger, _ rows: [InboxItem], highWater: Int64?) -> [InboxCycle.Notice] {
        let page = InboxPage(items: rows.reversed(), next: nil)
        let cycle = InboxDiff.evaluate(page: page, highWater: highWater, shown: [])
        return ledger.takePoll(cycle, page: page, highWater: highWater)
    }

    @Test func aRowAlreadyShownByAPayloadIsNotShownAgainAndPairsWithIt() {
        var ledger = NoticeLedger()
        guard case .new(let reference) = ledger.arrive(NoticeLedger.Key(Self.row(5))) else {
            Issue.record("the first payload was not new")
            return
        }
        #expect(ledger.row(of: reference) == nil)
        #expect(Self.poll(&ledger, [Self.row(5)], highWater: 4).isEmpty)
        #expect(ledger.row(of: reference) == Self.row(5))
    }

    @Test func aPayloadOfARowAPollShowedIsAlreadyShown() {
        var ledger = NoticeLedger()
        #expect(Self.poll(&ledger, [Self.row(5)], highWater: 4) == [.item(Self.row(5))])
        #expect(ledger.arrive(NoticeLedger.Key(Self.row(5))) == .alreadyShown)
    }

    @Test func theSamePayloadTwiceIsShownOnce() {
        var ledger = NoticeLedger()
        let key = NoticeLedger.Key(path: "krz/gitbay/issues/12", text: "noor opened issue #12")
        #expect(ledger.arrive(key) == .new(reference: 1))
        #expect(ledger.arrive(key) == .alreadyShown)
    }

    @Test func onlyPathAndTextTogetherMatch() {
        var ledger = NoticeLedger()
        _ = ledger.arrive(NoticeLedger.Key(Self.row(5)))
        let otherText = Self.row(6, summary: "closed issue #12")
        let otherPath = Self.row(7, number: 13)
        #expect(Self.poll(&ledger, [otherText, otherPath], highWater: 4) == [.item(otherText), .item(otherPath)])
    }

    /// Two notices saying the same thing: the second payload is taken for the first, but the
    /// poll that finds the second row shows it, so neither is lost.
    @Test func twoNoticesWithTheSameTextAreNeitherLostNorDoubled() {
        var ledger = NoticeLedger()
        let key = NoticeLedger.Key(Self.row(5))
        #expect(ledger.arrive(key) == .new(reference: 1))
        #expect(ledger.arrive(key) == .alreadyShown)
        #expect(Self.poll(&ledger, [Self.row(5), Self.row(6)], highWater: 4) == [.item(Self.row(6))])
        #expect(ledger.row(of: 1) == Self.row(5))
    }

    @Test func aSummaryCountsOnlyTheRowsNotShownYet() {
        var ledger = NoticeLedger()
        _ = ledger.arrive(NoticeLedger.Key(Self.row(3, number: 3)))
        _ = ledger.arrive(NoticeLedger.Key(Self.row(4, number: 4)))
        let rows = (1...6).map { Self.row(Int64($0), number: $0) }
        #expect(Self.poll(&ledger, rows, highWater: 0) == [.summary(count: 4, isAtLeast: false, newestID: 6, isFirstSight: false)])
    }

    @Test func aSummaryOfRowsAllShownAlreadyIsNoNotice() {
        var ledger = NoticeLedger()
        let rows = (1...4).map { Self.row(Int64($0), number: $0) }
        for row in rows { _ = ledger.arrive(NoticeLedger.Key(row)) }
        #expect(Self.poll(&ledger, rows, highWater: 0).isEmpty)
    }

    @Test func aFirstSightSummaryStaysAndItsRowsAreRemembered() {
        var ledger = NoticeLedger()
        _ = ledger.arrive(NoticeLedger.Key(Self.row(1, number: 1)))
        let rows = (1...2).map { Self.row(Int64($0), number: $0) }
        #expect(Self.poll(&ledger, rows, highWater: nil) == [.summary(count: 2, isAtLeast: false, newestID: 2, isFirstSight: true)])
        #expect(ledger.arrive(NoticeLedger.Key(Self.row(2, number: 2))) == .alreadyShown)
    }

    @Test func rowsAtOrBelowTheMarkOrReadAreNotRecorded() {
        var ledger = NoticeLedger()
        let read = InboxItem(
            id: 9, repo: "krz/gitbay", kind: .issue, actor: "eve", summary: "closed issue #9", path: "krz/gitbay/issues/9",
            createdAt: "2026-09-20T10:00:00Z", readAt: "2026-09-20T10:01:00Z")
        _ = Self.poll(&ledger, [Self.row(3), read], highWater: 3)
        #expect(ledger.arrive(NoticeLedger.Key(Self.row(3))) == .new(reference: 1))
        #expect(ledger.arrive(NoticeLedger.Key(read)) == .new(reference: 2))
    }

    @Test func aWithdrawnPayloadLeavesItsRowToThePoll() {
        var ledger = NoticeLedger()
        guard case .new(let reference) = ledger.arrive(NoticeLedger.Key(Self.row(5))) else {
            Issue.record("the first payload was not new")
            return
        }
        ledger.withdraw(reference)
        #expect(Self.poll(&ledger, [Self.row(5)], highWater: 4) == [.item(Self.row(5))])
    }

    @Test func aLookUpFindsTheNewestUnheldRowAndThePollThenShowsItNotAgain() {
        var ledger = NoticeLedger()
        _ = Self.poll(&ledger, [Self.row(5)], highWater: 4)
        _ = ledger.arrive(NoticeLedger.Key(Self.row(9, summary: "closed issue #12")))
        let rows = [Self.row(7, summary: "closed issue #12"), Self.row(8, summary: "closed issue #12"), Self.row(5)]
        // Row 8 is the newest of its key; nobody holds it yet.
        #expect(ledger.lookUp(1, in: rows) == rows[1])
        #expect(ledger.lookUp(1, in: []) == rows[1])
        #expect(Self.poll(&ledger, rows, highWater: 5) == [.item(rows[0])])
        #expect(ledger.lookUp(99, in: rows) == nil)
    }

    @Test func aLookUpFindsNothingWhenTheRowIsNotUnread() {
        var ledger = NoticeLedger()
        _ = ledger.arrive(NoticeLedger.Key(Self.row(5)))
        #expect(ledger.lookUp(1, in: [Self.row(6, summary: "closed issue #12")]) == nil)
        // Found once it is there.
        #expect(ledger.lookUp(1, in: [Self.row(5)]) == Self.row(5))
    }

    @Test func theOldestNoticesAreForgottenPastTheCapacity() {
        var ledger = NoticeLedger(capacity: 2)
        let rows = (1...3).map { Self.row(Int64($0), number: $0) }
        _ = Self.poll(&ledger, rows, highWater: 0)
        #expect(ledger.arrive(NoticeLedger.Key(rows[2])) == .alreadyShown)
        #expect(ledger.arrive(NoticeLedger.Key(rows[0])) == .new(reference: 1))
    }
}

import PushCore
import Testing

/// What came while popups were held, and the one summary per account at the end.
@Suite struct HeldNoticesTests {
    static let cmc = try! Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc")
    static let krz = try! Account(instance: GitbayInstance(parsing: "https://example.com:8443"), username: "krz")
    static let withActions = NotificationCapabilities(bodyMarkup: false, actions: true)

    static func row(_ id: Int64) -> InboxItem {
        InboxItem(
            id: id, repo: "krz/gitbay", kind: .issue, actor: "alba", summary: "opened issue #\(id)",
            path: "krz/gitbay/issues/\(id)", createdAt: "2026-09-20T10:11:12.123Z", readAt: nil)
    }

    @Test func oneSummaryPerAccountOfWhatCameWhileSnoozed() throws {
        var held = HeldNotices()
        held.hold([Self.row(1), Self.row(2)], of: Self.cmc, reason: .snoozed)
        held.hold([Self.row(3), Self.row(4), Self.row(5)], of: Self.cmc, reason: .snoozed)
        held.hold([Self.row(9)], of: Self.krz, reason: .quietHours)
        #expect(held.accounts == [Self.cmc, Self.krz])

        let summaryReleased = held.release(Self.cmc)
        let summary = try #require(summaryReleased)
        let content = NotificationContent.summary(summary, account: Self.cmc, capabilities: Self.withActions)
        #expect(content.summary == "5 new on gitbay.org as cmc while snoozed")
        #expect(content.actions == ["default", "Open the inbox", "mark-read", "Mark all read"])
        // Mark read marks exactly what it summarises.
        #expect(summary.markReadIDs == [1, 2, 3, 4, 5])
        #expect(held.release(Self.cmc) == nil)

        let quietReleased = held.release(Self.krz)
        let quiet = try #require(quietReleased)
        #expect(NotificationContent.summary(quiet, account: Self.krz, capabilities: Self.withActions).summary
            == "1 new on example.com:8443 as krz during quiet hours")
        #expect(quiet.markReadIDs == [9])
        #expect(held.isEmpty)
    }

    @Test func aRowHeldTwiceCountsOnceAndTheFirstReasonNamesTheSummary() throws {
        var held = HeldNotices()
        held.hold([Self.row(1)], of: Self.cmc, reason: .quietHours)
        held.hold([Self.row(1), Self.row(2)], of: Self.cmc, reason: .snoozed)
        let summaryReleased = held.release(Self.cmc)
        let summary = try #require(summaryReleased)
        #expect(summary.count == 2)
        #expect(summary.wording == .duringQuietHours)
        #expect(summary.markReadIDs == [1, 2])
    }

    @Test func whatWasReadMeanwhileIsNotInTheSummary() throws {
        var held = HeldNotices()
        held.hold([Self.row(1), Self.row(2), Self.row(3)], of: Self.cmc, reason: .snoozed)
        held.removing(.unreadPage([2], isComplete: true), of: Self.cmc)
        let summaryReleased = held.release(Self.cmc)
        let summary = try #require(summaryReleased)
        #expect(summary.count == 1)
        #expect(summary.markReadIDs == [2])

        held.hold([Self.row(4)], of: Self.cmc, reason: .snoozed)
        held.removing(.unreadPage([], isComplete: true), of: Self.cmc)
        #expect(held.release(Self.cmc) == nil)
    }

    @Test func aSummaryOfMoreRowsThanItKnowsOffersNoMarkRead() throws {
        var held = HeldNotices()
        held.hold((1...Int64(NoticeSummary.maximumRowIDs + 1)).map(Self.row), of: Self.cmc, reason: .snoozed)
        let summaryReleased = held.release(Self.cmc)
        let summary = try #require(summaryReleased)
        #expect(summary.count == NoticeSummary.maximumRowIDs + 1)
        #expect(summary.markReadIDs == nil)
        let content = NotificationContent.summary(summary, account: Self.cmc, capabilities: Self.withActions)
        #expect(content.summary == "201 new on gitbay.org as cmc while snoozed")
        #expect(content.actions == ["default", "Open the inbox"])
    }

    @Test func aSummaryFromTheServersCountOffersNoMarkRead() {
        let waiting = NoticeSummary(count: 27, isAtLeast: false, wording: .unread, rowIDs: [])
        #expect(waiting.markReadIDs == nil)
        let atLeast = NoticeSummary(count: 3, isAtLeast: true, wording: .unread, rowIDs: [1, 2, 3])
        #expect(atLeast.markReadIDs == nil)
        let new = NoticeSummary(count: 3, isAtLeast: false, wording: .new, rowIDs: [7, 8, 9])
        #expect(new.markReadIDs == [7, 8, 9])
    }
}

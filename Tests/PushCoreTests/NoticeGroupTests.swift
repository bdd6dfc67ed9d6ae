import PushCore
import Testing

/// Notices of one repository grouped in one notification: which rows a group holds, what a
/// click on it opens, and what its notification says.
@Suite struct NoticeGroupTests {
    static let account = DesktopContentTests.account
    static let full = DesktopContentTests.full

    static func row(_ id: Int64, repo: String = "krz/gitbay", kind: ItemKind? = .issue, summary: String? = nil) -> InboxItem {
        DesktopContentTests.row(
            id: id, repo: repo, kind: kind, actor: "ana", summary: summary ?? "opened issue #\(id)",
            path: "\(repo)/issues/\(id)")
    }

    @Test func rowsAreGroupedByRepositoryWithTheNewestGroupLast() {
        let groups = NoticeGroup.grouping([Self.row(3, repo: "a/x"), Self.row(4, repo: "b/y"), Self.row(2, repo: "b/y")], of: Self.account)
        #expect(groups.map(\.key) == [
            NoticeGroup.Key(account: Self.account, repository: "a/x"), NoticeGroup.Key(account: Self.account, repository: "b/y"),
        ])
        #expect(groups.map(\.inboxIDs) == [[3], [4, 2]])
    }

    @Test func theRepositoryComesFromThePathAndRowsWithNoItemShareOneGroup() {
        let rows = [
            DesktopContentTests.row(id: 1, repo: "bank/login", path: "krz/gitbay/issues/1"),
            DesktopContentTests.row(id: 2, repo: "krz/gitbay", path: "../../etc/passwd"),
            DesktopContentTests.row(id: 3, repo: "x/y", path: "krz/gitbay/wiki/Home"),
        ]
        let groups = NoticeGroup.grouping(rows, of: Self.account)
        #expect(groups.map(\.key.repository) == ["krz/gitbay", nil])
        #expect(groups.map(\.inboxIDs) == [[1], [3, 2]])
    }

    @Test func addingKeepsNewestFirstReplacesARepeatedIdAndIgnoresOtherRepositories() throws {
        let group = try #require(NoticeGroup.grouping([Self.row(5)], of: Self.account).first)
        let grown = group.adding([Self.row(9), Self.row(5, summary: "closed issue #5"), Self.row(7, repo: "other/repo")])
        #expect(grown.inboxIDs == [9, 5])
        #expect(grown.items[1].summary == "closed issue #5")
        #expect(grown.newest.id == 9)
        // What came with this addition is what the notification lists next.
        #expect(grown.fresh == [9, 5])
        #expect(grown.adding([Self.row(11)]).fresh == [11])
    }

    @Test func aGroupKeepsAtMostItsLimitDroppingTheOldest() throws {
        let rows = (1...Int64(NoticeGroup.maximumItems + 5)).map { Self.row($0) }
        let group = try #require(NoticeGroup.grouping(rows, of: Self.account).first)
        #expect(group.items.count == NoticeGroup.maximumItems)
        #expect(group.items.last?.id == 6)
    }

    @Test func removingShrinksTheGroupAndRemovingEveryRowLeavesNone() throws {
        let group = try #require(NoticeGroup.grouping([Self.row(1), Self.row(2), Self.row(3)], of: Self.account).first)
        #expect(group.removing(.marked([2, 99]))?.inboxIDs == [3, 1])
        #expect(group.removing(.marked([1, 2, 3])) == nil)
        #expect(group.removing(.unreadPage([1], isComplete: true))?.inboxIDs == [1])
    }

    @Test func oneNoticeOpensItsItemAndSeveralOpenTheInbox() throws {
        let one = try #require(NoticeGroup.grouping([Self.row(12)], of: Self.account).first)
        #expect(one.target == PushTarget(account: Self.account, destination: NotificationDestination(path: "krz/gitbay/issues/12")))
        #expect(one.adding([Self.row(13)]).target == PushTarget(account: Self.account, destination: nil))
        // Shrunk back to one, it opens that one again.
        #expect(one.adding([Self.row(13)]).removing(.marked([12]))?.target.destination == NotificationDestination(path: "krz/gitbay/issues/13"))
    }

    @Test func severalListTheNewestThreeThenHowManyMore() throws {
        let rows = (1...5).map { Self.row($0, summary: $0 == 5 ? "said <b>&</b>" : nil) }
        let group = try #require(NoticeGroup.grouping(rows, of: Self.account).first)
        let content = NotificationContent.group(group, capabilities: Self.full)
        #expect(content.summary == "krz/gitbay")
        #expect(content.body == "ana said &lt;b&gt;&amp;&lt;/b&gt;\nana opened issue #4\nana opened issue #3\nand 2 more")
        #expect(content.actions == ["default", "Open the inbox", "mark-read", "Mark all read", "mute", "Mute"])
        #expect(content.category == "x-gitbay.issue")
        #expect(NotificationContent.group(group, capabilities: .plain).actions.isEmpty)
    }

    @Test func mixedKindsHaveNoCategoryAndEachLineIsBounded() throws {
        let rows = [Self.row(1, kind: .mr, summary: String(repeating: "x", count: 10_000)), Self.row(2, kind: .build)]
        let content = NotificationContent.group(try #require(NoticeGroup.grouping(rows, of: Self.account).first), capabilities: .plain)
        #expect(content.category == nil)
        let lines = content.body.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[1].count == NotificationContent.maximumGroupLineLength)
    }
}

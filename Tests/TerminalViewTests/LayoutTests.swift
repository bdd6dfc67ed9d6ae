import PushCore
@testable import TerminalView
import Testing

/// Fixtures: items as the contract gives them.
enum Items {
    static let now = GitbayTime.seconds(since1970: "2026-09-20T12:00:00.000Z")!

    static let issue = ItemDetails.issue(IssueDetails(
        discussion: Discussion(
            number: 42, title: "Crash on empty repo", state: "open", author: "alice", createdAt: "2026-09-18T12:00:00.000Z",
            body: "Steps to reproduce the crash.", bodyFormat: "md", milestone: "v1", labels: ["bug"],
            reactions: [Reaction(reaction: "heart", count: 2, me: true)],
            comments: [
                ItemComment(id: 17, author: "bob", body: "Reproduced.", bodyFormat: "md", createdAt: "2026-09-20T09:00:00.000Z",
                            reactions: [Reaction(reaction: "+1", count: 1, me: false)]),
                ItemComment(id: 18, author: "system", body: "labelled bug", bodyFormat: nil, createdAt: "2026-09-20T10:00:00.000Z", reactions: []),
            ]),
        assignees: ["cmc"]))

    static let mergeRequest = ItemDetails.mergeRequest(MergeRequestDetails(
        discussion: Discussion(number: 31, title: "Fix it", state: "open", author: "bob", createdAt: "2026-09-20T11:00:00.000Z"),
        draft: true, source: "fix", targetRef: "main", headSHA: "0123456789abcdef", reviewRequests: ["cmc"],
        checks: [.init(context: "ci/test", state: "success", duration: "1m12s"), .init(context: "ci/lint", state: "failure")],
        checksCombined: "failure", unresolvedThreads: 2,
        commits: [.init(sha: "0123456789abcdef", subject: "Fix the thing")],
        reviews: [.init(reviewer: "cmc", verdict: "approve", stale: true, counts: false),
                  .init(reviewer: "dan", verdict: "request_changes", stale: false, counts: true)],
        gates: .init(approvalsRequired: 1, approvals: [], changesRequested: ["dan"], unmet: ["1 approval needed", "changes requested by dan"])))

    static let build = ItemDetails.build(BuildDetails(
        number: 431, job: "test", status: "failure", sha: "0123456789", ref: "main", createdAt: "2026-09-20T11:00:00.000Z",
        finishedAt: "2026-09-20T11:01:12.000Z", failedStep: 2, failedReason: "exit 1", durationSeconds: 72,
        steps: ["go vet ./...", "go test ./...", "go build"]))

    static let account = try! Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc")
    static let other = try! Account(instance: GitbayInstance(parsing: "https://example.org"), username: "cmc")

    static func row(_ id: Int64, _ path: String, kind: ItemKind? = .issue, summary: String = "opened issue") -> InboxItem {
        InboxItem(id: id, repo: "krz/gitbay", kind: kind, actor: "eve", summary: summary, path: path,
                  createdAt: "2026-09-20T09:00:00.000Z", readAt: nil)
    }
}

@Suite struct ItemLayoutTests {
    static func text(_ details: ItemDetails, width: Int = 80) -> [String] {
        ItemLayout.lines(details, width: width, now: Items.now).map(\.text)
    }

    @Test func anIssueShowsItsFactsBodyCommentsAndSystemEntriesInOrder() {
        #expect(Self.text(Items.issue) == [
            "Crash on empty repo",
            "issue #42 · open · by alice · 2 days ago",
            "Labels: bug · Assignees: cmc · Milestone: v1",
            "heart ×2 (you)",
            "",
            "Steps to reproduce the crash.",
            "",
            "── 1 comment, 1 event " + String(repeating: "─", count: 80 - 22),
            "",
            "bob · 3 hours ago",
            "  Reproduced.",
            "  +1 ×1",
            "· labelled bug · 2 hours ago",
        ])
    }

    @Test func theStateIsColouredBySense() {
        let lines = ItemLayout.lines(Items.issue, width: 80, now: Items.now)
        let state = lines[1].spans.first { $0.text == "open" }
        #expect(state?.style == Style(color: .green, bold: true))
        #expect(ItemLayout.state("merged").spans.first?.style.color == .magenta)
        #expect(ItemLayout.state("source_gone").text == "source gone")
        // A state a newer server adds is shown as it came.
        #expect(ItemLayout.state("locked").text == "locked")
    }

    @Test func aMergeRequestShowsGatesChecksStaleReviewsAndCommits() {
        let text = Self.text(Items.mergeRequest)
        #expect(text[1] == "merge request !31 · open · draft · by bob · 1 hour ago")
        #expect(text.contains("fix → main at 01234567"))
        #expect(text.contains("Review requested: cmc"))
        #expect(text.contains("Merge gates: ✗ 2 unmet gates"))
        #expect(text.contains("  ✗ 1 approval needed"))
        #expect(text.contains("  ✗ changes requested by dan"))
        #expect(text.contains("Checks: failure"))
        #expect(text.contains("  ✓ ci/test  success  1m12s"))
        #expect(text.contains("  ✗ ci/lint  failure"))
        #expect(text.contains("  ✓ cmc approved · stale: of an older head"))
        #expect(text.contains("  ✗ dan requested changes"))
        #expect(text.contains("  2 unresolved diff threads"))
        #expect(text.contains("  01234567 Fix the thing"))
        #expect(text.contains("No description."))
    }

    @Test func aReadyMergeRequestSaysSo() {
        let ready = ItemDetails.mergeRequest(MergeRequestDetails(
            discussion: Discussion(number: 1, title: "t", state: "open", author: "a", createdAt: "c"),
            source: "b", targetRef: "main", gates: .init(approvalsRequired: 1, approvals: ["x"], unmet: [])))
        #expect(Self.text(ready).contains("Merge gates: ✓ ready to merge"))
    }

    @Test func aBuildMarksItsFailedStepAndReason() {
        #expect(Self.text(Items.build) == [
            "Build #431 · test",
            "build #431 · failure · main at 01234567",
            "started 1 hour ago · finished 59 minutes ago · took 1m12s",
            "",
            "Steps (3)",
            "  ✓ 1  go vet ./...",
            "  ✗ 2  go test ./...",
            "      failed: exit 1",
            "  · 3  go build  (not run)",
        ])
    }

    @Test func aFailedStepThatNamesNoStepIsStillSaid() {
        let odd = ItemDetails.build(BuildDetails(
            number: 1, job: "j", status: "failure", sha: "s", ref: "r", createdAt: "c", failedStep: 9, failedReason: "oom", steps: ["a"]))
        #expect(Self.text(odd).contains("  step 9 failed: oom"))
    }

    @Test(arguments: [20, 33, 57, 80, 131])
    func noLineIsWiderThanTheWidth(_ width: Int) {
        let long = ItemDetails.issue(IssueDetails(discussion: Discussion(
            number: 1, title: String(repeating: "long title ", count: 20), state: "open", author: String(repeating: "a", count: 64),
            createdAt: "c", body: "x" + String(repeating: "y", count: 300) + "\n\n    " + String(repeating: "z", count: 200),
            labels: (1...30).map { "label\($0)" },
            comments: [ItemComment(id: 1, author: "b", body: String(repeating: "日本語 ", count: 60), bodyFormat: "md", createdAt: "c", reactions: [])])))
        for details in [long, Items.issue, Items.mergeRequest, Items.build] {
            for line in ItemLayout.lines(details, width: width, now: Items.now) {
                #expect(line.width <= width, "\(line.text)")
            }
        }
    }
}

@Suite struct InboxLayoutTests {
    @Test func accountsAreHeadedAndRowsAligned() {
        let inboxes = [
            AccountInbox(account: Items.account, listing: .success(InboxListing(rows: [
                Items.row(9, "krz/gitbay/issues/12"), Items.row(8, "krz/gitbay/mrs/3", kind: .mr, summary: "opened merge request"),
            ], hasMore: false))),
            AccountInbox(account: Items.other, listing: .failure(ReadProblem(.tokenRejected, "Token rejected", "rejected", fix: "mint one"))),
        ]
        let (lines, rows) = InboxLayout.lines(inboxes, width: 70, now: Items.now)
        #expect(lines.map(\.text) == [
            "cmc@gitbay.org · 2 unread",
            "  issue krz/gitbay#12  eve opened issue                    3 hours ago",
            "  mr    krz/gitbay!3   eve opened merge request            3 hours ago",
            "",
            "cmc@example.org · Token rejected",
            "  rejected",
            "  What to do: mint one",
        ])
        #expect(rows.map(\.line) == [1, 2])
        #expect(rows.map(\.item.id) == [9, 8])
        #expect(rows.allSatisfy { $0.account == Items.account })
    }

    /// A reply to the item that could not be posted is kept: its row says so, before who did what.
    @Test func aRowWhoseReplyIsKeptSaysSo() {
        let listing = InboxListing(
            rows: [Items.row(9, "krz/gitbay/issues/12"), Items.row(8, "krz/gitbay/issues/13")], hasMore: false,
            drafted: ["krz/gitbay/issues/13", "krz/other/issues/1"])
        let (lines, _) = InboxLayout.lines([AccountInbox(account: Items.account, listing: .success(listing))], width: 70, now: Items.now)
        #expect(lines.map(\.text) == [
            "cmc@gitbay.org · 2 unread",
            "  issue krz/gitbay#12  eve opened issue                    3 hours ago",
            "  issue krz/gitbay#13  reply kept  eve opened issue        3 hours ago",
        ])
    }

    @Test func anEmptyInboxAndMoreThanWasRead() {
        let inboxes = [
            AccountInbox(account: Items.account, listing: .success(InboxListing(rows: [], hasMore: false))),
            AccountInbox(account: Items.other, listing: .success(InboxListing(rows: [Items.row(1, "x/y/issues/1")], hasMore: true))),
        ]
        let text = InboxLayout.lines(inboxes, width: 80, now: Items.now).lines.map(\.text)
        #expect(text[0] == "cmc@gitbay.org · nothing unread")
        #expect(text[2] == "cmc@example.org · 1+ unread")
        #expect(text.last == "  More unread on the web: https://example.org/notifications")
    }

    @Test func aPathThatNamesNoItemIsShownAsSent() {
        #expect(InboxLayout.reference(Items.row(1, "krz/gitbay/wiki/Home")) == "krz/gitbay/wiki/Home")
        #expect(InboxLayout.reference(Items.row(1, "krz/gitbay/builds/7", kind: .build)) == "krz/gitbay#7")
    }

    @Test func noAccountsSaysHowToAddOne() {
        #expect(InboxLayout.lines([], width: 80, now: Items.now).lines.map(\.text)
            == ["No gitbay accounts in the keyring. Add one: gbnotifyctl account add URL"])
    }
}

@Suite struct FrameRendererTests {
    static let line = StyledLine("red", .colored(.red, bold: true)) + StyledLine(" plain") + StyledLine(" sel", Style(reverse: true))

    @Test func colouredFramesPlaceEveryRowAndResetStyles() {
        let bytes = String(decoding: FrameRenderer(colors: true).render([Self.line, StyledLine("two")]), as: UTF8.self)
        #expect(bytes == "\u{1B}[1;1H\u{1B}[0;1;31mred\u{1B}[0m plain\u{1B}[0;7m sel\u{1B}[0m\u{1B}[2;1Htwo")
    }

    @Test func noColorKeepsAttributesButNoColours() {
        let bytes = String(decoding: FrameRenderer(colors: false).render([Self.line]), as: UTF8.self)
        #expect(bytes == "\u{1B}[1;1H\u{1B}[0;1mred\u{1B}[0m plain\u{1B}[0;7m sel\u{1B}[0m")
    }

    @Test func plainTextHasNoEscapeAtAll() {
        let text = FrameRenderer.plain([Self.line, StyledLine("trailing   "), StyledLine("\u{1B}[2Jx")])
        #expect(text == "red plain sel\ntrailing\n[2Jx\n")
        #expect(!text.contains("\u{1B}"))
    }
}

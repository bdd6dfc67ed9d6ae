import PushCore
@testable import TerminalView
import Testing

/// The view's decisions, key by key and answer by answer, without a terminal.
@Suite struct ViewStateTests {
    static let size = TerminalSize(rows: 10, columns: 60)
    static let issue12 = NotificationDestination(path: "krz/gitbay/issues/12")!

    static func itemView(_ details: ItemDetails = Items.issue, size: TerminalSize = size) -> ViewState {
        var (state, effects) = ViewState.item(account: "cmc@gitbay.org", destination: issue12, size: size, now: Items.now)
        #expect(effects == [.loadItem(screen: 1, account: "cmc@gitbay.org", destination: issue12)])
        let loaded = state.handle(.itemLoaded(screen: 1, account: Items.account, .success(details)))
        if case .build = details {
            #expect(loaded == [])
        } else {
            // An issue or a merge request may have a reply kept for it.
            #expect(loaded == [.loadDraft(screen: 1, account: Items.account, destination: issue12)])
            #expect(state.handle(.draftLoaded(screen: 1, .success(nil))) == [])
        }
        return state
    }

    static let inboxRows = [
        Items.row(9, "krz/gitbay/issues/12"), Items.row(8, "krz/gitbay/mrs/3", kind: .mr), Items.row(7, "krz/gitbay/wiki/Home", kind: nil),
    ]

    static func inboxView(rows: [InboxItem] = inboxRows, size: TerminalSize = size) -> ViewState {
        var (state, effects) = ViewState.inbox(account: nil, size: size, now: Items.now)
        #expect(effects == [.loadInbox(screen: 1, account: nil)])
        let inboxes = [AccountInbox(account: Items.account, listing: .success(InboxListing(rows: rows, hasMore: false)))]
        #expect(state.handle(.inboxLoaded(screen: 1, .success(inboxes))) == [])
        return state
    }

    static func texts(_ state: ViewState) -> [String] { state.frame().map(\.text) }

    @Test func aLoadingItemIsDrawnAtOnceAndEveryFrameFillsTheScreen() {
        let (state, _) = ViewState.item(account: "cmc@gitbay.org", destination: Self.issue12, size: Self.size, now: Items.now)
        let frame = state.frame()
        #expect(frame.count == 10)
        #expect(frame.allSatisfy { $0.width == 60 })
        #expect(frame[0].text.hasPrefix(" krz/gitbay#12 · cmc@gitbay.org"))
        #expect(frame[1].text.hasPrefix(" Loading krz/gitbay#12 for cmc@gitbay.org…"))
        #expect(frame[9].text.hasPrefix("Loading… · q quit"))
        #expect(Self.texts(Self.itemView()).allSatisfy { ScreenText.width(of: $0) == 60 })
    }

    @Test func scrollingStaysWithinTheItem() {
        var state = Self.itemView(Items.mergeRequest)
        let total = ItemLayout.lines(Items.mergeRequest, width: 58, now: Items.now).count
        #expect(total > 16)
        // Eight body lines; a page is seven, so one line stays in view.
        #expect(Self.texts(state)[1].hasPrefix(" Fix it"))
        #expect(Self.texts(state)[0].hasSuffix(" 1-8/\(total) "))
        _ = state.handle(.key(.character("j")))
        #expect(Self.texts(state)[1].hasPrefix(" merge request !31"))
        #expect(Self.texts(state)[0].hasSuffix(" 2-9/\(total) "))
        _ = state.handle(.key(.pageDown))
        #expect(Self.texts(state)[0].hasSuffix(" 9-16/\(total) "))
        _ = state.handle(.key(.character("G")))
        #expect(Self.texts(state)[0].hasSuffix(" \(total - 7)-\(total)/\(total) "))
        _ = state.handle(.key(.down))
        _ = state.handle(.key(.character(" ")))
        #expect(Self.texts(state)[0].hasSuffix(" \(total - 7)-\(total)/\(total) "))
        _ = state.handle(.key(.pageUp))
        #expect(Self.texts(state)[0].hasSuffix(" \(total - 14)-\(total - 7)/\(total) "))
        _ = state.handle(.key(.character("g")))
        _ = state.handle(.key(.up))
        #expect(Self.texts(state)[1].hasPrefix(" Fix it"))
    }

    @Test func aResizeLaysTheItemOutAgain() {
        var state = Self.itemView()
        #expect(state.handle(.resized(TerminalSize(rows: 30, columns: 100))) == [])
        let frame = state.frame()
        #expect(frame.count == 30)
        #expect(frame.allSatisfy { $0.width == 100 })
        #expect(frame[0].text.hasSuffix(" all "))
        #expect(frame.contains { $0.text.hasPrefix(" ── 1 comment, 1 event ───") })
    }

    @Test func qQuitsWithZeroAndCtrlCWith130() {
        var state = Self.itemView()
        _ = state.handle(.key(.character("x")))
        #expect(state.exitStatus == nil)
        _ = state.handle(.key(.character("q")))
        #expect(state.exitStatus == 0)
        var interrupted = Self.itemView()
        _ = interrupted.handle(.key(.control("c")))
        #expect(interrupted.exitStatus == 130)
    }

    @Test func markReadOpenAndReloadAskForTheItemOfItsAccount() {
        var state = Self.itemView()
        #expect(state.handle(.key(.character("r"))) == [.markRead(account: Items.account, path: "krz/gitbay/issues/12")])
        #expect(Self.texts(state)[9].hasPrefix("Marking krz/gitbay#12 read…"))
        #expect(state.handle(.markedRead(account: Items.account, path: "krz/gitbay/issues/12", .success(2))) == [])
        #expect(Self.texts(state)[9].hasPrefix("Marked 2 notices of krz/gitbay#12 read"))
        #expect(state.handle(.key(.character("o"))) == [.open(PushTarget(account: Items.account, destination: Self.issue12))])
        #expect(state.handle(.opened(.success("https://gitbay.org/krz/gitbay/issues/12"))) == [])
        #expect(Self.texts(state)[9].hasPrefix("Opened https://gitbay.org/krz/gitbay/issues/12 in the"))
        // The account as the answer named it, not as typed.
        #expect(state.handle(.key(.character("R"))) == [.loadItem(screen: 1, account: "cmc@gitbay.org", destination: Self.issue12)])
    }

    /// `+` sets +1 on the item, or takes it back when the account gave it; the item is read
    /// again once the server said so, and a failure is said in the status line.
    @Test func plusTogglesThumbsUpAndReadsTheItemAgain() {
        var state = Self.itemView()
        #expect(state.handle(.key(.character("+"))) == [
            .react(screen: 1, account: Items.account, destination: Self.issue12, reaction: "+1", remove: false),
        ])
        #expect(Self.texts(state)[9].hasPrefix("Reacting +1…"))
        #expect(state.handle(.reacted(screen: 1, reaction: "+1", remove: false, failure: nil)) == [
            .loadItem(screen: 1, account: "cmc@gitbay.org", destination: Self.issue12),
        ])
        #expect(Self.texts(state)[9].hasPrefix("Reacted +1 on krz/gitbay#12"))

        guard case .issue(let issue) = Items.issue else { Issue.record("not an issue"); return }
        let given = ItemDetails.issue(IssueDetails(discussion: Discussion(
            number: 12, title: issue.discussion.title, state: "open", author: "alice", createdAt: issue.discussion.createdAt,
            reactions: [Reaction(reaction: "+1", count: 3, me: true)])))
        _ = state.handle(.itemLoaded(screen: 1, account: Items.account, .success(given)))
        #expect(state.handle(.key(.character("+"))) == [
            .react(screen: 1, account: Items.account, destination: Self.issue12, reaction: "+1", remove: true),
        ])
        let refused = ReadProblem(.noAccess, "Read-only token", "this token is read-only")
        #expect(state.handle(.reacted(screen: 1, reaction: "+1", remove: true, failure: refused)) == [])
        #expect(Self.texts(state)[9].hasPrefix("Could not react: read-only token"))
    }

    @Test func aFailedLoadIsDrawnAndWaits() {
        var (state, _) = ViewState.item(account: "cmc@gitbay.org", destination: Self.issue12, size: Self.size, now: Items.now)
        let problem = ReadProblem(.notFound, "No such item", "issue #12 not found in krz/gitbay")
        _ = state.handle(.itemLoaded(screen: 1, account: Items.account, .failure(problem)))
        let text = Self.texts(state)
        #expect(text[1].hasPrefix(" ✗ No such item"))
        #expect(text[3].hasPrefix(" issue #12 not found in krz/gitbay"))
        #expect(text[9].hasPrefix("R reload · o open in browser · q quit"))
        // The item is not there, but its page and its notices are the account's.
        #expect(state.handle(.key(.character("o"))) == [.open(PushTarget(account: Items.account, destination: Self.issue12))])
        #expect(state.handle(.key(.character("r"))) == [.markRead(account: Items.account, path: "krz/gitbay/issues/12")])
        #expect(state.exitStatus == nil)
    }

    @Test func anAccountThatIsNotThereLeavesNothingToOpenOrMark() {
        var (state, _) = ViewState.item(account: "nobody@example.org", destination: Self.issue12, size: Self.size, now: Items.now)
        let problem = ReadProblem(.noAccount, "No such account", "there is no account nobody@example.org")
        _ = state.handle(.itemLoaded(screen: 1, account: nil, .failure(problem)))
        #expect(Self.texts(state)[1].hasPrefix(" ✗ No such account"))
        #expect(Self.texts(state)[9].hasPrefix("R reload · q quit"))
        #expect(state.handle(.key(.character("o"))) == [])
        #expect(state.handle(.key(.character("r"))) == [])
        #expect(Self.texts(state)[9].hasPrefix("Nothing to mark read"))
    }

    @Test func theInboxSelectsRowsAndOpensTheSelectedOne() {
        var state = Self.inboxView()
        var text = Self.texts(state)
        #expect(text[0].hasPrefix(" Inbox · 3 unread"))
        #expect(text[1].hasPrefix(" cmc@gitbay.org · 3 unread"))
        #expect(state.frame()[2].spans.allSatisfy { $0.style.reverse })
        _ = state.handle(.key(.character("j")))
        #expect(state.frame()[3].spans.allSatisfy { $0.style.reverse })
        #expect(!state.frame()[2].spans.contains { $0.style.reverse })
        let mr = NotificationDestination(path: "krz/gitbay/mrs/3")!
        #expect(state.handle(.key(.enter)) == [.loadItem(screen: 2, account: "cmc@gitbay.org", destination: mr)])
        text = Self.texts(state)
        #expect(text[0].hasPrefix(" krz/gitbay!3 · cmc@gitbay.org"))
        #expect(text[9].hasPrefix("Loading… · q back"))
        // q goes back to the inbox, with the selection where it was.
        #expect(state.handle(.key(.character("q"))) == [])
        #expect(state.exitStatus == nil)
        #expect(state.frame()[3].spans.allSatisfy { $0.style.reverse })
        // A late answer for the closed screen changes nothing.
        _ = state.handle(.itemLoaded(screen: 2, account: Items.account, .success(Items.build)))
        #expect(Self.texts(state)[0].hasPrefix(" Inbox"))
        _ = state.handle(.key(.character("q")))
        #expect(state.exitStatus == 0)
    }

    @Test func aRowThatNamesNoItemOpensTheInboxInTheBrowser() {
        var state = Self.inboxView()
        _ = state.handle(.key(.character("G")))
        #expect(state.handle(.key(.enter)) == [])
        #expect(Self.texts(state)[9].hasPrefix("This notice names no issue"))
        #expect(state.handle(.key(.character("o"))) == [.open(PushTarget(account: Items.account, destination: nil))])
        #expect(state.handle(.key(.character("r"))) == [.markRead(account: Items.account, path: "krz/gitbay/wiki/Home")])
    }

    @Test func markingReadReadsTheInboxAgainNowOrWhenItIsShownAgain() {
        var state = Self.inboxView()
        #expect(state.handle(.key(.character("r"))) == [.markRead(account: Items.account, path: "krz/gitbay/issues/12")])
        #expect(state.handle(.markedRead(account: Items.account, path: "krz/gitbay/issues/12", .success(1)))
            == [.loadInbox(screen: 1, account: nil)])
        let inboxes = [AccountInbox(account: Items.account, listing: .success(InboxListing(rows: Array(Self.inboxRows.dropFirst()), hasMore: false)))]
        _ = state.handle(.inboxLoaded(screen: 1, .success(inboxes)))
        #expect(Self.texts(state)[0].hasPrefix(" Inbox · 2 unread"))

        _ = state.handle(.key(.enter))
        #expect(state.handle(.markedRead(account: Items.account, path: "krz/gitbay/mrs/3", .success(1))) == [])
        #expect(state.handle(.key(.escape)) == [.loadInbox(screen: 1, account: nil)])
    }

    @Test func aFailedMarkReadIsSaidInTheStatusLine() {
        var state = Self.itemView()
        let problem = ReadProblem(.noAccess, "Read-only token", "this token is read-only")
        _ = state.handle(.markedRead(account: Items.account, path: "krz/gitbay/issues/12", .failure(problem)))
        let status = state.frame()[9]
        #expect(status.text.hasPrefix("Could not mark krz/gitbay#12 read: read-only token: this to…"))
        #expect(status.spans.first?.style == Style(color: .red, bold: true))
        // The next key clears it.
        _ = state.handle(.key(.character("j")))
        #expect(Self.texts(state)[9].hasPrefix("↑↓ PgUp PgDn"))
    }

    @Test func theSelectionScrollsIntoViewWithItsHeading() {
        let rows = (1...20).map { Items.row(Int64(100 - $0), "krz/gitbay/issues/\($0)") }
        var state = Self.inboxView(rows: rows)
        _ = state.handle(.key(.character("G")))
        var text = Self.texts(state)
        #expect(text[8].contains("krz/gitbay#20"))
        _ = state.handle(.key(.pageUp))
        _ = state.handle(.key(.pageUp))
        _ = state.handle(.key(.pageUp))
        text = Self.texts(state)
        // Back at the first row, its account's heading shows above it.
        #expect(text[1].hasPrefix(" cmc@gitbay.org · 20 unread"))
        #expect(state.frame()[2].spans.allSatisfy { $0.style.reverse })
    }

    @Test func tinyTerminalsStillGetAFrameOfTheirSize() {
        for size in [TerminalSize(rows: 1, columns: 5), TerminalSize(rows: 2, columns: 1), TerminalSize(rows: 3, columns: 10)] {
            var state = Self.itemView(size: size)
            _ = state.handle(.key(.character("G")))
            let frame = state.frame()
            #expect(frame.count == size.rows)
            #expect(frame.allSatisfy { $0.width == size.columns })
        }
    }
}

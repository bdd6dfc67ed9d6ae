import FoundationEssentials
import PushCore
import Testing

/// What the rules and the holds (snooze, quiet hours) do to what the book puts on screen: only
/// notices that pop up join a notification, and while an account is held they wait for its
/// end, as one summary.
@Suite struct ScreenBookNoiseTests {
    static let cmc = ScreenBookTests.cmc
    static let bob = ScreenBookTests.bob
    static let snoozed = Hold(reason: .snoozed, until: 10_000)
    static let quiet = Hold(reason: .quietHours, until: 10_000)

    static func row(_ id: Int64, actor: String = "ana", repo: String = "krz/gitbay") -> InboxItem {
        DesktopContentTests.row(id: id, repo: repo, actor: actor, summary: "opened issue #\(id)", path: "\(repo)/issues/\(id)")
    }

    static func rules(_ text: String) throws -> RuleSet {
        try Config.parse(text).rules
    }

    /// A book past each account's first update, so what follows is news, not a start.
    static func startedBook(rules: RuleSet = .none, accounts: [Account] = [cmc]) -> ScreenBook {
        var book = ScreenBook(limit: 5)
        book.rules = rules
        for account in accounts { book.take(ScreenBookTests.update(account)) }
        return book
    }

    @Test func silentAndHiddenNoticesNeverJoinANotification() throws {
        var book = Self.startedBook(rules: try Self.rules("""
            [rule bots]
            actor = *-bot
            show = silent

            [rule noisy]
            repo = krz/noisy
            show = none
            """))
        book.take(ScreenBookTests.update(Self.cmc, [Self.row(1, actor: "ci-bot"), Self.row(2, repo: "krz/noisy")], unread: 2))
        #expect(book.entries.isEmpty)
        book.take(ScreenBookTests.update(Self.cmc, [Self.row(3, actor: "eve"), Self.row(4, actor: "ci-bot")], unread: 4))
        #expect(ScreenBookTests.subjects(book) == ["cmc krz/gitbay [3]"])
    }

    @Test func whileHeldNothingShowsAndTheEndShowsOneSummaryOfWhatCame() {
        var book = Self.startedBook()
        book.take(ScreenBookTests.update(Self.cmc, [Self.row(1), Self.row(2, repo: "krz/other")], unread: 2), heldBy: Self.snoozed)
        book.take(ScreenBookTests.update(Self.cmc, [Self.row(3)], unread: 3), heldBy: Self.snoozed)
        #expect(book.entries.isEmpty)
        #expect(book.heldAccounts == [Self.cmc])

        book.endHold(of: Self.cmc)
        #expect(ScreenBookTests.subjects(book) == ["cmc whileSnoozed 3"])
        #expect(book.entries.first?.subject.summary?.markReadIDs == [1, 2, 3])
        #expect(book.heldAccounts.isEmpty)
        // Ended once: a second end shows nothing more.
        book.endHold(of: Self.cmc)
        #expect(book.entries.count == 1)
    }

    @Test func aHoldIsPerAccountAndQuietHoursNameTheirSummary() {
        var book = Self.startedBook(accounts: [Self.cmc, Self.bob])
        book.take(ScreenBookTests.update(Self.cmc, [Self.row(1)]), heldBy: Self.quiet)
        book.take(ScreenBookTests.update(Self.bob, [Self.row(2)]))
        #expect(ScreenBookTests.subjects(book) == ["bob krz/gitbay [2]"])
        book.endHold(of: Self.cmc)
        #expect(ScreenBookTests.subjects(book) == ["bob krz/gitbay [2]", "cmc duringQuietHours 1"])
    }

    @Test func whatIsReadWhileHeldLeavesTheSummaryAndAllReadLeavesNone() {
        var book = Self.startedBook()
        book.take(ScreenBookTests.update(Self.cmc, [Self.row(1), Self.row(2)]), heldBy: Self.snoozed)
        book.take(ScreenBookTests.update(Self.cmc, unread: 1, read: .marked([1])), heldBy: Self.snoozed)
        book.endHold(of: Self.cmc)
        #expect(ScreenBookTests.subjects(book) == ["cmc whileSnoozed 1"])

        var allRead = Self.startedBook()
        allRead.take(ScreenBookTests.update(Self.cmc, [Self.row(1)]), heldBy: Self.snoozed)
        allRead.take(ScreenBookTests.update(Self.cmc, unread: 0, read: .marked([1])), heldBy: Self.snoozed)
        allRead.endHold(of: Self.cmc)
        #expect(allRead.entries.isEmpty)
    }

    @Test func silentNoticesAreNotHeldEither() throws {
        var book = Self.startedBook(rules: try Self.rules("[rule bots]\nactor = *-bot\nshow = silent\n"))
        book.take(ScreenBookTests.update(Self.cmc, [Self.row(1, actor: "ci-bot")]), heldBy: Self.snoozed)
        book.endHold(of: Self.cmc)
        #expect(book.entries.isEmpty)
    }

    @Test func aStartWhileHeldKeepsItsUnreadSummaryForTheEnd() {
        var book = ScreenBook(limit: 5)
        book.take(ScreenBookTests.update(Self.cmc, unread: 27), heldBy: Self.snoozed)
        #expect(book.entries.isEmpty)
        book.take(ScreenBookTests.update(Self.cmc, [Self.row(30)], unread: 28), heldBy: Self.snoozed)
        book.endHold(of: Self.cmc)
        // What was waiting at the start is unread, not new: the merged summary says so.
        #expect(ScreenBookTests.subjects(book) == ["cmc unread 28"])
    }

    @Test func anAccountLeavingTheKeyringTakesWhatWasHeldWithIt() {
        var book = Self.startedBook()
        book.take(ScreenBookTests.update(Self.cmc, [Self.row(1)]), heldBy: Self.snoozed)
        book.forget(Self.cmc)
        #expect(book.heldAccounts.isEmpty)
    }

    @Test func aGroupSoundsAndUrgesAsTheLoudestOfItsNewNotices() throws {
        let rules = try Self.rules("""
            sound = message-new-instant

            [rule builds]
            actor = ci
            urgency = low
            sound = none
            """)
        var book = Self.startedBook(rules: rules)
        book.take(ScreenBookTests.update(Self.cmc, [Self.row(1, actor: "ci")]))
        let quiet = NotificationContent.entry(
            try #require(book.entries.first), capabilities: DesktopContentTests.full, namesAccount: false, rules: rules)
        #expect(quiet.urgency == .low)
        #expect(quiet.sound == nil)

        book.take(ScreenBookTests.update(Self.cmc, [Self.row(2, actor: "eve")], unread: 2))
        let loud = NotificationContent.entry(
            try #require(book.entries.first), capabilities: DesktopContentTests.full, namesAccount: false, rules: rules)
        #expect(loud.urgency == .normal)
        #expect(loud.sound == "message-new-instant")
    }

    @Test func muteGivesTheGroupsPlaceToANewNotificationThatSaysSoAndMarksNothing() throws {
        var book = Self.startedBook()
        var next: UInt32 = 1
        book.take(ScreenBookTests.update(Self.cmc, [Self.row(1), Self.row(2)]))
        ScreenBookTests.showAll(&book, from: &next)
        let group = try #require(book.entries.first)

        let mutedEntry = book.mute(group.id, undoUntil: 1_789_905_612)
        let muted = try #require(mutedEntry)
        #expect(muted.subject == .muted(repository: "krz/gitbay", until: 1_789_905_612))
        #expect(muted.serverID == nil)
        #expect(book.takeClosings() == [1])
        #expect(ScreenBookTests.subjects(book) == ["cmc muted krz/gitbay"])
        let content = NotificationContent.entry(muted, capabilities: DesktopContentTests.full, namesAccount: false)
        #expect(content.summary == "Muted krz/gitbay on cmc@gitbay.org")
        #expect(content.actions == [NotificationContent.undoAction, "Undo"])

        // A later poll leaves it alone; its time over (or Undo), it goes.
        book.take(ScreenBookTests.update(Self.cmc, unread: 2))
        #expect(book.entries.count == 1)
        ScreenBookTests.showAll(&book, from: &next)
        book.withdraw(muted.id)
        #expect(book.entries.isEmpty)
        #expect(book.takeClosings() == [2])
    }

    @Test func onlyARepositorysNotificationCanBeMuted() throws {
        var book = Self.startedBook()
        book.take(AccountUpdate(
            account: Self.cmc, notices: [.summary(count: 7, isAtLeast: false, rowIDs: [], isFirstSight: false)], unread: .exact(7)))
        let summary = try #require(book.entries.first)
        let muted = book.mute(summary.id, undoUntil: 1_789_905_612)
        #expect(muted == nil)
        #expect(ScreenBookTests.subjects(book) == ["cmc new 7"])
    }
}

@Suite struct SavedMutedEntryTests {
    static func saved(repository: String) -> String {
        """
        {"version":1,"serverOwner":":1.4","entries":[{"id":3,"account":{"instance":"https://gitbay.org","user":"cmc"},\
        "subject":{"muted":{"repository":"\(repository)"}},"serverID":7,"needsShowing":false,"isAdopted":false}]}
        """
    }

    /// Undo's window is kept with the "Muted" notification: read back by a restarted daemon,
    /// it offers Undo until the same second, and goes at once if that has passed (or if an
    /// earlier daemon kept no time with it).
    @Test func undosWindowIsKeptWithTheMutedNotificationAcrossARestart() throws {
        var book = ScreenBookNoiseTests.startedBook()
        var next: UInt32 = 1
        book.take(ScreenBookTests.update(ScreenBookNoiseTests.cmc, [ScreenBookNoiseTests.row(1)]))
        ScreenBookTests.showAll(&book, from: &next)
        let group = try #require(book.entries.first)
        let mutedEntry = book.mute(group.id, undoUntil: 2_000_000_007)
        let muted = try #require(mutedEntry)
        ScreenBookTests.showAll(&book, from: &next)
        let kept = try JSONDecoder().decode(ScreenBook.Saved.self, from: JSONEncoder().encode(book.saved(serverOwner: ":1.4")))

        var within = ScreenBook(limit: 3, adopting: kept, serverOwner: ":1.4")
        let adopted = try #require(within.entries.first)
        #expect(ScreenBook.offersUndo(adopted, at: 2_000_000_006))
        #expect(!ScreenBook.offersUndo(adopted, at: 2_000_000_007))
        #expect(within.endUndoWindows(at: 2_000_000_003).map { $0.until } == [2_000_000_007])
        #expect(within.entries.map { $0.id } == [muted.id])

        var past = ScreenBook(limit: 3, adopting: kept, serverOwner: ":1.4")
        #expect(past.endUndoWindows(at: 2_000_000_007).isEmpty)
        #expect(past.entries.isEmpty)
        let shownID = try #require(adopted.serverID)
        #expect(past.takeClosings() == [shownID])

        let timeless = try JSONDecoder().decode(ScreenBook.Saved.self, from: Data(Self.saved(repository: "krz/gitbay").utf8))
        var old = ScreenBook(limit: 3, adopting: timeless, serverOwner: ":1.4")
        let timelessEntry = try #require(old.entries.first)
        #expect(!ScreenBook.offersUndo(timelessEntry, at: 0))
        #expect(old.endUndoWindows(at: 0).isEmpty)
        #expect(old.takeClosings() == [7])
    }

    @Test func aMutedEntryReadsBackOnlyWithARepositoryName() throws {
        let saved = try JSONDecoder().decode(ScreenBook.Saved.self, from: Data(Self.saved(repository: "krz/gitbay").utf8))
        #expect(saved.entries.first?.subject == .muted(repository: "krz/gitbay", until: nil))
        for hostile in ["-x/y", "krz", "a/b/c", "../etc"] {
            #expect(throws: DecodingError.self) {
                try JSONDecoder().decode(ScreenBook.Saved.self, from: Data(Self.saved(repository: hostile).utf8))
            }
        }
    }
}

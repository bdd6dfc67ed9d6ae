import PushCore
import Testing

/// What the desktop puts on screen, decided without a bus: groups, summaries, folding past
/// `max-notifications`, withdrawals, the server's closings and restarts, and taking over what
/// an earlier daemon left open.
@Suite struct ScreenBookTests {
    static let cmc = DesktopContentTests.account
    static let bob = try! Account(instance: GitbayInstance(parsing: "https://example.com"), username: "bob")

    static func row(_ id: Int64, repo: String = "krz/gitbay") -> InboxItem {
        DesktopContentTests.row(id: id, repo: repo, summary: "opened issue #\(id)", path: "\(repo)/issues/\(id)")
    }

    static func update(
        _ account: Account = cmc, _ rows: [InboxItem] = [], unread: Int? = nil, read: ReadRows = .none
    ) -> AccountUpdate {
        AccountUpdate(account: account, notices: rows.map(InboxCycle.Notice.item), unread: .exact(unread ?? rows.count), read: read)
    }

    /// Shows everything the book asks to, with server ids 1, 2, ... in order, as a server would.
    static func showAll(_ book: inout ScreenBook, from next: inout UInt32) {
        for entry in book.toShow {
            if let id = entry.serverID {
                book.shown(entry, serverID: id)
            } else {
                book.shown(entry, serverID: next)
                next += 1
            }
        }
    }

    static func subjects(_ book: ScreenBook) -> [String] {
        book.entries.map { entry in
            switch entry.subject {
            case .group(let group): "\(entry.account.username) \(group.key.repository ?? "-") \(group.inboxIDs)"
            case .summary(let summary): "\(entry.account.username) \(summary.wording) \(summary.count)"
            case .tokenRejected: "\(entry.account.username) token"
            case .muted(let repository, _): "\(entry.account.username) muted \(repository)"
            case .said(let said, _): "\(entry.account.username) said \(said)"
            }
        }
    }

    @Test func aRowStartsAGroupAndTheNextOfItsRepositoryReplacesItInPlace() {
        var book = ScreenBook(limit: 3)
        var next: UInt32 = 1
        book.take(Self.update(Self.cmc, [Self.row(1)]))
        #expect(book.toShow.map(\.serverID) == [nil])
        Self.showAll(&book, from: &next)
        book.take(Self.update(Self.cmc, [Self.row(2)], unread: 2))
        #expect(book.toShow.map(\.serverID) == [1])
        #expect(book.toShow.first?.subject.group?.fresh == [2])
        #expect(Self.subjects(book) == ["cmc krz/gitbay [2, 1]"])
        #expect(book.takeClosings().isEmpty)
    }

    /// The server is asked while news goes on: a notice that joined the group meanwhile is not
    /// on screen yet, so the entry still needs showing, in place of the id the answer gave.
    @Test func anEntryThatChangedWhileTheServerShowedItStillNeedsShowingInPlace() {
        var book = ScreenBook(limit: 3)
        book.take(Self.update(Self.cmc, [Self.row(1)]))
        let sent = book.toShow[0]
        book.take(Self.update(Self.cmc, [Self.row(2)], unread: 2))
        book.shown(sent, serverID: 7)
        #expect(book.toShow.map(\.serverID) == [7])
        #expect(book.toShow.first?.subject.group?.inboxIDs == [2, 1])

        let resent = book.toShow[0]
        book.shown(resent, serverID: 7)
        #expect(book.toShow.isEmpty)
    }

    @Test func theFirstUpdateOfAnAccountSumsUpWhatIsUnreadOnce() {
        var book = ScreenBook(limit: 3)
        book.take(AccountUpdate(account: Self.cmc, unread: .atLeast(50)))
        #expect(Self.subjects(book) == ["cmc unread 50"])
        #expect(book.entries.first?.subject.summary?.isAtLeast == true)
        book.take(AccountUpdate(account: Self.cmc, unread: .atLeast(50)))
        #expect(book.entries.count == 1)
        // An empty inbox: nothing to sum up.
        book.take(AccountUpdate(account: Self.bob, unread: .exact(0)))
        #expect(book.entries.count == 1)
    }

    @Test func readRowsShrinkAGroupWithoutABannerAndAnEmptyOneIsWithdrawn() {
        var book = ScreenBook(limit: 3)
        var next: UInt32 = 1
        book.take(Self.update(Self.cmc, [Self.row(1), Self.row(2)]))
        Self.showAll(&book, from: &next)
        book.take(Self.update(Self.cmc, unread: 1, read: .marked([1])))
        #expect(Self.subjects(book) == ["cmc krz/gitbay [2]"])
        #expect(book.toShow.isEmpty)
        book.take(Self.update(Self.cmc, unread: 0, read: .unreadPage([], isComplete: true)))
        #expect(book.entries.isEmpty)
        #expect(book.takeClosings() == [1])
        #expect(book.takeClosings().isEmpty)
    }

    @Test func pastTheLimitTheOldestGroupsFoldIntoOneSummaryPerAccount() {
        var book = ScreenBook(limit: 3)
        var next: UInt32 = 1
        book.take(AccountUpdate(account: Self.cmc, unread: .exact(0)))
        for id in Int64(1)...3 {
            book.take(Self.update(Self.cmc, [Self.row(id, repo: "krz/r\(id)")], unread: Int(id)))
            Self.showAll(&book, from: &next)
        }
        #expect(book.entries.count == 3)
        // A fourth repository: the two oldest groups become one summary, in the oldest's place
        // (one alone would free no room); the second's notification goes.
        book.take(Self.update(Self.cmc, [Self.row(4, repo: "krz/r4")], unread: 4))
        #expect(Self.subjects(book) == ["cmc more 2", "cmc krz/r3 [3]", "cmc krz/r4 [4]"])
        #expect(book.takeClosings() == [2])
        #expect(book.toShow.map(\.serverID) == [1, nil])
        #expect(book.entries.first?.subject.summary?.rowIDs == [1, 2])
        Self.showAll(&book, from: &next)
        // A fifth: the next oldest group joins that summary, whose count grows in place.
        book.take(Self.update(Self.cmc, [Self.row(5, repo: "krz/r5")], unread: 5))
        #expect(Self.subjects(book) == ["cmc more 3", "cmc krz/r4 [4]", "cmc krz/r5 [5]"])
        #expect(book.takeClosings() == [3])
        #expect(book.toShow.map(\.serverID) == [1, nil])
    }

    /// Four accounts and room for three: the new notice of the fourth shows itself, and the
    /// oldest account's summary goes. (Before, the new notice folded too and showed as "1 more
    /// unread" at once: a soak with 250 accounts showed no notice by itself once the screen was
    /// full of summaries.)
    @Test func aNewNoticeShowsItselfWhenOnlyOtherAccountsSummariesAreOlder() throws {
        var book = ScreenBook(limit: 3)
        var next: UInt32 = 1
        let accounts = try (0..<4).map { try Account(instance: GitbayInstance(parsing: "https://git\($0).example"), username: "u\($0)") }
        for (index, account) in accounts.enumerated() {
            book.take(AccountUpdate(account: account, unread: .exact(0)))
            book.take(Self.update(account, [Self.row(Int64(index + 1))], unread: 1))
            Self.showAll(&book, from: &next)
        }
        #expect(Self.subjects(book) == ["u1 more 1", "u2 more 1", "u3 krz/gitbay [4]"])
        #expect(book.takeClosings() == [1])
        Self.showAll(&book, from: &next)
        // One more of the first account, whose summary went: again the oldest goes.
        book.take(Self.update(accounts[0], [Self.row(5)], unread: 2))
        #expect(Self.subjects(book) == ["u2 more 1", "u3 more 1", "u0 krz/gitbay [5]"])
        Self.showAll(&book, from: &next)
        // One more of the third, whose summary is open: it joins it, so that nothing on screen
        // is dropped for it.
        book.take(Self.update(accounts[2], [Self.row(6)], unread: 2))
        #expect(Self.subjects(book) == ["u2 more 2", "u3 more 1", "u0 more 1"])
    }

    @Test func foldingKeepsEveryUnreadNoticeAccountedFor() {
        // Whatever comes, the open notifications never exceed the limit, and every notice
        // handed over is in exactly one of them until it is read.
        for limit in 1...4 {
            var book = ScreenBook(limit: limit)
            var next: UInt32 = 1
            var handed: [Account: Int] = [:]
            for (step, account) in [Self.cmc, Self.bob, Self.cmc, Self.cmc, Self.bob, Self.cmc, Self.bob, Self.cmc].enumerated() {
                let id = Int64(step + 1)
                handed[account, default: 0] += 1
                if step < 2 { book.take(AccountUpdate(account: account, unread: .exact(0))) }
                book.take(Self.update(account, [Self.row(id, repo: "krz/r\(id)")], unread: handed[account]!))
                #expect(book.entries.count <= limit, "limit \(limit), step \(step)")
                Self.showAll(&book, from: &next)
            }
            let shownRows = book.entries.reduce(0) { sum, entry in
                sum + (entry.subject.group?.items.count ?? 0) + (entry.subject.summary?.count ?? 0)
            }
            // With a limit below the number of accounts, a whole account's summary may go.
            if limit >= 2 { #expect(shownRows == 8, "limit \(limit)") }
        }
    }

    /// Issue 14: summaries of Int.max rows, folded and merged (before, the queue of notices
    /// waiting for a server added such counts up and crashed), stay within `OutsideCount`.
    @Test func hostileCountsFoldIntoSummariesThatNeverOverflow() {
        var book = ScreenBook(limit: 1)
        let huge = InboxCycle.Notice.summary(count: .max, isAtLeast: true, rowIDs: [], isFirstSight: false)
        for account in [Self.cmc, Self.bob, Self.cmc, Self.bob] {
            book.take(AccountUpdate(account: account, notices: [huge, huge], unread: .atLeast(.max)))
        }
        #expect(book.entries.count == 1)
        #expect(Self.subjects(book).allSatisfy { $0.hasSuffix(" \(OutsideCount.maximum)") }, "\(Self.subjects(book))")
    }

    @Test func aSummaryShrinksAsItsRowsAreReadAndGoesWithTheLast() {
        var book = ScreenBook(limit: 3)
        book.take(AccountUpdate(account: Self.cmc, unread: .exact(0)))
        book.take(AccountUpdate(
            account: Self.cmc, notices: [.summary(count: 5, isAtLeast: false, rowIDs: [1, 2, 3, 4, 5], isFirstSight: false)],
            unread: .exact(5)))
        book.shown(book.entries[0], serverID: 9)
        book.take(AccountUpdate(account: Self.cmc, unread: .exact(3), read: .marked([1, 2])))
        #expect(book.entries.first?.subject.summary?.count == 3)
        #expect(book.toShow.isEmpty)
        book.take(AccountUpdate(account: Self.cmc, unread: .exact(0), read: .marked([3, 4, 5])))
        #expect(book.entries.isEmpty)
        #expect(book.takeClosings() == [9])
    }

    @Test func aStartSummaryGoesWhenNothingIsUnreadAnyMore() {
        var book = ScreenBook(limit: 3)
        book.take(AccountUpdate(account: Self.cmc, unread: .exact(27)))
        book.shown(book.entries[0], serverID: 4)
        book.take(AccountUpdate(account: Self.cmc, unread: .exact(26)))
        #expect(book.entries.count == 1)
        book.take(AccountUpdate(account: Self.cmc, unread: .exact(0)))
        #expect(book.entries.isEmpty)
        #expect(book.takeClosings() == [4])
    }

    @Test func aRejectedTokenIsOneWarningUntilTheAccountAnswersAgain() {
        var book = ScreenBook(limit: 3)
        book.tokenRejected(for: Self.cmc)
        book.tokenRejected(for: Self.cmc)
        #expect(Self.subjects(book) == ["cmc token"])
        book.shown(book.entries[0], serverID: 3)
        book.take(AccountUpdate(account: Self.cmc, unread: .exact(0)))
        #expect(book.entries.isEmpty)
        #expect(book.takeClosings() == [3])
    }

    @Test func whatTheServerClosedIsNoLongerOpenAndNeverShownAgain() {
        var book = ScreenBook(limit: 3)
        var next: UInt32 = 1
        book.take(Self.update(Self.cmc, [Self.row(1)]))
        Self.showAll(&book, from: &next)
        #expect(book.closedByServer(1)?.subject.group?.inboxIDs == [1])
        #expect(book.closedByServer(1) == nil)
        #expect(book.entries.isEmpty)
        // The next notice of that repository starts afresh, listing only itself.
        book.take(Self.update(Self.cmc, [Self.row(2)], unread: 2))
        #expect(Self.subjects(book) == ["cmc krz/gitbay [2]"])
        #expect(book.toShow.map(\.serverID) == [nil])
    }

    @Test func aClickIsServedOnceHoweverOftenTheServerRepeatsItUntilTheNotificationIsShownAgain() {
        var book = ScreenBook(limit: 3)
        var next: UInt32 = 1
        book.take(Self.update(Self.cmc, [Self.row(1)]))
        Self.showAll(&book, from: &next)
        // GNOME Shell 43 sends a click on a notification shown and replaced twice three times.
        book.take(Self.update(Self.cmc, [Self.row(2)], unread: 2))
        Self.showAll(&book, from: &next)
        #expect(book.actionInvoked("default", on: 1)?.subject.group?.inboxIDs == [2, 1])
        #expect(book.actionInvoked("default", on: 1) == nil)
        #expect(book.actionInvoked("default", on: 1) == nil)
        // Not ours: nothing.
        #expect(book.actionInvoked("default", on: 9) == nil)
        // A server that kept it open (resident): once it shows something new, a click counts again.
        book.take(Self.update(Self.cmc, [Self.row(3)], unread: 3))
        Self.showAll(&book, from: &next)
        #expect(book.actionInvoked("default", on: 1)?.subject.group?.inboxIDs == [3, 2, 1])
        #expect(book.actionInvoked("default", on: 1) == nil)
        // Closed, then the id used again by the server for another notification of ours.
        book.closedByServer(1)
        book.take(Self.update(Self.cmc, [Self.row(4)], unread: 4))
        book.shown(book.toShow[0], serverID: 1)
        #expect(book.actionInvoked("default", on: 1)?.subject.group?.inboxIDs == [4])
    }

    /// mako and LXQt keep a notification open after an action: "Mark read" after "Open" on it
    /// is the user's second choice, served; each heard again is not.
    @Test func anotherActionOnANotificationKeptOpenIsServedOnce() {
        var book = ScreenBook(limit: 3)
        var next: UInt32 = 1
        book.take(Self.update(Self.cmc, [Self.row(1)]))
        Self.showAll(&book, from: &next)
        #expect(book.actionInvoked("default", on: 1)?.subject.group?.inboxIDs == [1])
        #expect(book.actionInvoked("mark-read", on: 1)?.subject.group?.inboxIDs == [1])
        #expect(book.actionInvoked("mark-read", on: 1) == nil)
        #expect(book.actionInvoked("default", on: 1) == nil)
        // Closed: forgotten with it, so the id's next notification starts afresh.
        book.closedByServer(1)
        book.take(Self.update(Self.cmc, [Self.row(2)], unread: 2))
        book.shown(book.toShow[0], serverID: 1)
        #expect(book.actionInvoked("mark-read", on: 1)?.subject.group?.inboxIDs == [2])
    }

    @Test func aServerThatWentAwayTookItsNotificationsButWhatWaitsStays() {
        var book = ScreenBook(limit: 3)
        var next: UInt32 = 1
        book.take(Self.update(Self.cmc, [Self.row(1)]))
        Self.showAll(&book, from: &next)
        book.take(Self.update(Self.cmc, [Self.row(2, repo: "krz/other")], unread: 2))
        book.awaitServer(book.toShow[0].id)
        book.serverChanged()
        #expect(Self.subjects(book) == ["cmc krz/other [2]"])
        #expect(book.toShow.count == 1)
        #expect(book.takeClosings().isEmpty)
    }

    @Test func anEarlierDaemonsNotificationsAreTakenOverOnlyOnTheSameServer() {
        var book = ScreenBook(limit: 3)
        var next: UInt32 = 5
        book.take(AccountUpdate(account: Self.cmc, unread: .exact(27)))
        book.take(Self.update(Self.cmc, [Self.row(40)], unread: 28))
        Self.showAll(&book, from: &next)
        let saved = book.saved(serverOwner: ":1.7")

        var adopted = ScreenBook(limit: 3, adopting: saved, serverOwner: ":1.7")
        #expect(adopted.entries.map(\.serverID) == [5, 6])
        #expect(adopted.entries.allSatisfy { $0.isAdopted })
        #expect(adopted.entry(serverID: 6)?.subject.group?.target.destination == NotificationDestination(path: "krz/gitbay/issues/40"))
        // The restarted daemon's first update adds no second summary beside the old one.
        adopted.take(AccountUpdate(account: Self.cmc, unread: .exact(28)))
        #expect(adopted.entries.count == 2)
        #expect(adopted.toShow.isEmpty)
        // A new notice of the same repository replaces the adopted notification in place.
        adopted.take(Self.update(Self.cmc, [Self.row(41)], unread: 29))
        #expect(adopted.toShow.map(\.serverID) == [6])

        #expect(ScreenBook(limit: 3, adopting: saved, serverOwner: ":1.8").entries.isEmpty)
        #expect(ScreenBook(limit: 3, adopting: saved, serverOwner: nil).entries.isEmpty)
        // Only what was on screen is kept.
        #expect(ScreenBook(limit: 3).saved(serverOwner: ":1.7").entries.isEmpty)
    }

    /// GNOME Shell 48 withdrew them all as the earlier daemon left the bus: the restarted one
    /// takes none over and sums up what is unread as after a first start, naming no old id.
    @Test func nothingIsTakenOverOnAServerThatWithdrawsWhatALeavingSenderShowed() {
        var book = ScreenBook(limit: 10)
        var next: UInt32 = 6
        for id in 1...8 { book.take(Self.update(Self.cmc, [Self.row(Int64(id), repo: "krz/r\(id)")], unread: id)) }
        Self.showAll(&book, from: &next)
        let saved = book.saved(serverOwner: ":1.7")
        #expect(saved.entries.count == 8)

        let gnome48 = ServerQuirks(serverName: "gnome-shell", version: "48.7")
        var restarted = ScreenBook(limit: 10, adopting: saved, serverOwner: ":1.7", server: gnome48)
        #expect(restarted.entries.isEmpty)
        restarted.take(AccountUpdate(account: Self.cmc, unread: .exact(8)))
        #expect(Self.subjects(restarted) == ["cmc unread 8"])
        #expect(restarted.toShow.map(\.serverID) == [nil])
        #expect(restarted.takeClosings().isEmpty)
        // GNOME 43 kept them: taken over, as before.
        let gnome43 = ServerQuirks(serverName: "gnome-shell", version: "43.9")
        #expect(ScreenBook(limit: 3, adopting: saved, serverOwner: ":1.7", server: gnome43).entries.count == 3)
    }

    /// At GNOME Shell 48's 10 kept open, 8 repositories' notices stay 8 notifications; the 11th
    /// repository folds the oldest.
    @Test func tenKeptOpenFoldOnlyPastTen() {
        var book = ScreenBook(limit: ServerQuirks(serverName: "gnome-shell", version: "48.7").keptOpen(maxNotifications: nil))
        var next: UInt32 = 1
        for id in 1...10 {
            book.take(Self.update(Self.cmc, [Self.row(Int64(id), repo: "krz/r\(id)")], unread: id))
            Self.showAll(&book, from: &next)
        }
        #expect(book.entries.count == 10)
        #expect(book.entries.allSatisfy { $0.subject.group != nil })
        #expect(book.takeClosings().isEmpty)
        book.take(Self.update(Self.cmc, [Self.row(11, repo: "krz/r11")], unread: 11))
        #expect(book.entries.count <= 10)
        #expect(book.entries.contains { if case .summary = $0.subject { true } else { false } })
    }

    @Test func anAccountThatLeftTakesItsNotificationsWithIt() {
        var book = ScreenBook(limit: 3)
        var next: UInt32 = 1
        book.take(Self.update(Self.cmc, [Self.row(1)]))
        book.take(Self.update(Self.bob, [Self.row(2)]))
        Self.showAll(&book, from: &next)
        book.forget(Self.cmc)
        #expect(Self.subjects(book) == ["bob krz/gitbay [2]"])
        #expect(book.takeClosings() == [1])
    }

    @Test func aLowerLimitFoldsAtOnce() {
        var book = ScreenBook(limit: 3)
        var next: UInt32 = 1
        book.take(AccountUpdate(account: Self.cmc, unread: .exact(0)))
        book.take(Self.update(Self.cmc, [Self.row(1, repo: "a/a"), Self.row(2, repo: "b/b"), Self.row(3, repo: "c/c")], unread: 3))
        Self.showAll(&book, from: &next)
        book.setLimit(1)
        #expect(book.entries.count == 1)
        #expect(book.entries.first?.subject.summary?.count == 3)
    }
}

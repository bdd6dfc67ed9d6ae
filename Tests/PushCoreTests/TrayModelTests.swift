import PushCore
import Testing

/// The tray item decided without a bus: its words, status and count, the menu and its ids, which
/// signals a change calls for, and what a chosen item asks for.
@Suite struct TrayModelTests {
    static let cmc = DesktopContentTests.account
    static let bob = ScreenBookTests.bob

    static func row(_ id: Int64, repo: String = "krz/gitbay", actor: String = "ann", summary: String? = nil) -> InboxItem {
        DesktopContentTests.row(
            id: id, repo: repo, actor: actor, summary: summary ?? "opened issue #\(id)", path: "\(repo)/issues/\(id)")
    }

    static func shelf(_ account: Account, unread: Int? = nil, _ rows: [InboxItem] = []) -> TrayState.Shelf {
        TrayState.Shelf(account: account, unread: .exact(unread ?? rows.count), newest: rows)
    }

    static func shelf(unread: Int? = nil, _ rows: [InboxItem] = []) -> TrayState.Shelf {
        shelf(cmc, unread: unread, rows)
    }

    /// One poll's cycle handed to the tray's inbox, as the daemon hands it.
    static func take(_ cycle: InboxCycle, into inbox: inout TrayInbox) {
        inbox.take(
            AccountUpdate(account: cmc, notices: cycle.notices, unread: cycle.unread, read: cycle.read, unreadRows: cycle.unreadRows),
            rules: .none)
    }

    static func labels(_ menu: TrayMenu) -> [String] {
        menu.items.map { $0.kind == .separator ? "--" : $0.isEnabled ? $0.label : "(\($0.label))" }
    }

    // MARK: - Words, status and count

    @Test func nothingUnreadIsPassiveWithNoCount() {
        var model = TrayModel()
        _ = model.show(TrayState(shelves: [Self.shelf(unread: 0)]))
        #expect(model.looks.title == "Nothing unread")
        #expect(model.looks.status == .passive)
        #expect(model.looks.countText == "")
        #expect(model.looks.toolTipBody == "")
    }

    @Test func oneAccountIsNamedAndSeveralAreCounted() {
        var model = TrayModel()
        _ = model.show(TrayState(shelves: [Self.shelf(unread: 7), Self.shelf(Self.bob, unread: 0)]))
        #expect(model.looks.title == "7 unread on cmc@gitbay.org")
        #expect(model.looks.toolTipBody == "")
        _ = model.show(TrayState(shelves: [Self.shelf(unread: 5), Self.shelf(Self.bob, unread: 2)]))
        #expect(model.looks.title == "7 unread on 2 accounts")
        #expect(model.looks.toolTipBody == "5 on cmc@gitbay.org\n2 on bob@example.com")
        #expect(model.looks.status == .active)
        #expect(model.looks.countText == "7")
    }

    @Test(arguments: [(99, "99"), (100, "99+"), (1_000_000, "99+"), (1, "1")])
    func countPast99IsCut(_ count: Int, _ text: String) {
        var model = TrayModel()
        _ = model.show(TrayState(shelves: [Self.shelf(unread: count)]))
        #expect(model.looks.countText == text)
    }

    @Test func aFloorCountSaysSo() {
        var model = TrayModel()
        let shelf = TrayState.Shelf(account: Self.cmc, unread: .atLeast(50), newest: [])
        _ = model.show(TrayState(shelves: [shelf]))
        #expect(model.looks.countText == "50+")
        #expect(model.looks.title == "50+ unread on cmc@gitbay.org")
    }

    @Test func aNewNoticeNeedsAttentionUntilTheMenuOpens() {
        var model = TrayModel()
        #expect(model.show(TrayState(shelves: [Self.shelf(unread: 3)])).contains(.status))
        #expect(model.looks.status == .active)
        let changes = model.show(TrayState(shelves: [Self.shelf(unread: 4, [Self.row(10)])]))
        #expect(changes.contains(.status))
        #expect(model.looks.status == .needsAttention)
        #expect(model.menuOpened() == [.status])
        #expect(model.looks.status == .active)
        // The same notice again is not new; a newer one is.
        #expect(!model.show(TrayState(shelves: [Self.shelf(unread: 4, [Self.row(10)])])).contains(.status))
        _ = model.show(TrayState(shelves: [Self.shelf(unread: 5, [Self.row(11), Self.row(10)])]))
        #expect(model.looks.status == .needsAttention)
        // Read elsewhere before the menu opened: nothing new is left.
        _ = model.show(TrayState(shelves: [Self.shelf(unread: 4, [Self.row(10)])]))
        #expect(model.looks.status == .active)
    }

    @Test func oneAccountsTooltipNamesItsNewestNoticeWithMarkupEscaped() {
        var model = TrayModel()
        _ = model.show(TrayState(shelves: [Self.shelf(Self.cmc, [Self.row(3, actor: "ann", summary: "said <b>&</b>\nhi"), Self.row(2)])]))
        #expect(model.looks.toolTipBody == "krz/gitbay — ann said &lt;b&gt;&amp;&lt;/b&gt; hi")
    }

    // MARK: - Signals only for changes

    @Test func aStateThatChangesNothingCallsForNoSignal() {
        var model = TrayModel()
        let state = TrayState(shelves: [Self.shelf(unread: 2, [Self.row(1), Self.row(2)])])
        _ = model.show(state)
        #expect(model.show(state) == [])
    }

    /// The menu counts what it does not list, so a new count is a new layout, and the same rows
    /// with the same count are none.
    @Test func aCountChangeChangesTheLineOfWhatIsNotListed() {
        var model = TrayModel()
        _ = model.show(TrayState(shelves: [Self.shelf(unread: 30, [Self.row(2)])]))
        #expect(Self.labels(model.layout()).contains("29 more unread on cmc@gitbay.org"))
        let revision = model.revision
        let changes = model.show(TrayState(shelves: [Self.shelf(unread: 31, [Self.row(2)])]))
        #expect(changes == [.title, .toolTip, .icon, .layout])
        #expect(model.revision == revision + 1)
        #expect(Self.labels(model.layout()).contains("30 more unread on cmc@gitbay.org"))
        #expect(model.show(TrayState(shelves: [Self.shelf(unread: 31, [Self.row(2)])])) == [])
    }

    @Test func aNewNoticeChangesTheLayoutAndItsRevision() {
        var model = TrayModel()
        _ = model.show(TrayState(shelves: [Self.shelf([Self.row(2)])]))
        let revision = model.revision
        #expect(model.show(TrayState(shelves: [Self.shelf([Self.row(3), Self.row(2)])])).contains(.layout))
        #expect(model.revision == revision + 1)
        #expect(model.layout().revision == revision + 1)
    }

    @Test func aRowBeyondTheTenListedChangesNoLayout() {
        var model = TrayModel()
        let ten = (11...20).reversed().map { Self.row(Int64($0)) }
        _ = model.show(TrayState(shelves: [Self.shelf(unread: 11, ten + [Self.row(5)])]))
        #expect(!model.show(TrayState(shelves: [Self.shelf(unread: 11, ten + [Self.row(4)])])).contains(.layout))
    }

    @Test func snoozingChangesTheLayout() {
        var model = TrayModel()
        _ = model.show(TrayState())
        #expect(model.show(TrayState(isSnoozed: true)) == [.layout])
    }

    // MARK: - The menu

    @Test func oneAccountsMenu() {
        var model = TrayModel()
        _ = model.show(TrayState(shelves: [Self.shelf(unread: 2, [Self.row(12), Self.row(9, repo: "krz/docs", actor: "bo", summary: "built #9")])]))
        #expect(Self.labels(model.layout()) == [
            "krz/gitbay — ann opened issue #12", "krz/docs — bo built #9", "Mark all read", "--",
            "Snooze for 1 hour", "Snooze until tomorrow 08:00", "(Resume notifications)", "--", "Open inbox",
        ])
    }

    @Test func severalAccountsHaveHeadingsAndAnAccountWithoutRowsItsCount() {
        var model = TrayModel()
        _ = model.show(TrayState(shelves: [Self.shelf(unread: 27), Self.shelf(Self.bob, [Self.row(4)])], isSnoozed: true))
        #expect(Self.labels(model.layout()) == [
            "(cmc@gitbay.org)", "27 unread on cmc@gitbay.org", "--",
            "(bob@example.com)", "krz/gitbay — ann opened issue #4", "Mark all read", "--",
            "Snooze for 1 hour", "Snooze until tomorrow 08:00", "Resume notifications", "--", "Open inbox",
        ])
    }

    /// The count line stays for what the menu has no room for: under the rows listed, it says
    /// how many more; it opens the account's inbox. With every row listed, there is none.
    @Test func whatDoesNotFitIsCountedUnderTheRows() throws {
        var model = TrayModel()
        let rows = (1...15).reversed().map { Self.row(Int64($0)) }
        _ = model.show(TrayState(shelves: [Self.shelf(unread: 27, rows), Self.shelf(Self.bob, unread: 60, [Self.row(3)])]))
        let labels = Self.labels(model.layout())
        #expect(labels.filter { $0.contains("unread") } == ["17 more unread on cmc@gitbay.org", "59 more unread on bob@example.com"])
        #expect(labels.firstIndex(of: "17 more unread on cmc@gitbay.org") == labels.firstIndex(of: "krz/gitbay — ann opened issue #6").map { $0 + 1 })
        let more = try #require(model.lastLayout?.items.first { $0.label == "17 more unread on cmc@gitbay.org" })
        #expect(model.request(forItem: more.id, activationToken: "t") == .open(PushTarget(account: Self.cmc, destination: nil), activationToken: "t"))

        _ = model.show(TrayState(shelves: [TrayState.Shelf(account: Self.cmc, unread: .needsDashboard(atLeast: 50), newest: rows)]))
        #expect(Self.labels(model.layout()).contains("40+ more unread on cmc@gitbay.org"))
        _ = model.show(TrayState(shelves: [Self.shelf(unread: 10, Array(rows.prefix(10)))]))
        #expect(!Self.labels(model.layout()).contains { $0.contains("unread") })
    }

    @Test func theNewestTenAreListed() {
        var model = TrayModel()
        let rows = (1...15).reversed().map { Self.row(Int64($0)) }
        _ = model.show(TrayState(shelves: [Self.shelf(rows)]))
        let menu = model.layout()
        let notices = menu.items.compactMap { item -> Int64? in
            guard case .open(let target) = item.action else { return nil }
            return target.destination?.number
        }
        #expect(notices == Array((6...15).reversed()))
        let markAll = menu.items.first { $0.label == "Mark all read" }
        #expect(markAll?.action == .markAllRead(Self.cmc, rowIDs: Array((6...15).reversed())))
    }

    @Test func labelsAreOneBoundedLineWithUnderscoresDoubled() {
        var model = TrayModel()
        let hostile = Self.row(3, repo: "krz/my_repo", actor: "a_b", summary: "said\n<b>hi</b>\u{202E}" + String(repeating: "x", count: 200))
        _ = model.show(TrayState(shelves: [Self.shelf(Self.cmc, [hostile])]))
        let label = model.layout().items[0].label
        #expect(label.hasPrefix("krz/my__repo — a__b said <b>hi</b>xxx"))
        #expect(!label.contains("\n") && !label.contains("\u{202E}"))
        #expect(label.count - label.split(separator: "__", omittingEmptySubsequences: false).count + 1 == TrayMenu.maximumLabelLength)
        #expect(label.hasSuffix("…"))
    }

    @Test func theRepositoryComesFromThePathNotTheRowsText() {
        let row = InboxItem(
            id: 1, repo: "evil/elsewhere", kind: .issue, actor: "ann", summary: "opened issue #1", path: "krz/gitbay/issues/1",
            createdAt: "", readAt: nil)
        #expect(TrayMenu.label(of: row) == "krz/gitbay — ann opened issue #1")
    }

    // MARK: - Ids and requests

    @Test func idsStayWhileItemsAreListedAndAreNeverReused() {
        var model = TrayModel()
        _ = model.show(TrayState(shelves: [Self.shelf([Self.row(2), Self.row(1)])]))
        let first = model.layout()
        _ = model.show(TrayState(shelves: [Self.shelf([Self.row(3), Self.row(2)])]))
        let second = model.layout()
        let id = { (menu: TrayMenu, label: String) in menu.items.first { $0.label == label }?.id }
        #expect(id(first, "krz/gitbay — ann opened issue #2") == id(second, "krz/gitbay — ann opened issue #2"))
        #expect(id(first, "Open inbox") == id(second, "Open inbox"))
        let issue1 = id(first, "krz/gitbay — ann opened issue #1")
        #expect(issue1 != nil)
        #expect(!second.items.contains { $0.id == issue1 })
        #expect(Set(first.items.map(\.id)).count == first.items.count)
        #expect(!first.items.contains { $0.id == 0 })
    }

    @Test func aChosenNoticeOpensItsItemWithTheToken() {
        var model = TrayModel()
        _ = model.show(TrayState(shelves: [Self.shelf([Self.row(12)])]))
        let menu = model.layout()
        let request = model.request(forItem: menu.items[0].id, activationToken: "tok")
        #expect(request == .open(PushTarget(account: Self.cmc, destination: NotificationDestination(path: "krz/gitbay/issues/12")), activationToken: "tok"))
    }

    @Test func choicesAreAnsweredFromTheLayoutTheHostWasGiven() {
        var model = TrayModel()
        _ = model.show(TrayState(shelves: [Self.shelf([Self.row(12)])]))
        let shown = model.layout()
        // Read elsewhere after the host fetched the menu: the user chose what they saw.
        _ = model.show(TrayState(shelves: [Self.shelf(unread: 0)]))
        let request = model.request(forItem: shown.items[0].id, activationToken: nil)
        #expect(request == .open(PushTarget(account: Self.cmc, destination: NotificationDestination(path: "krz/gitbay/issues/12")), activationToken: nil))
    }

    @Test func everyFixedItemAsksForItsRequest() {
        var model = TrayModel()
        _ = model.show(TrayState(shelves: [Self.shelf([Self.row(12), Self.row(11)])], isSnoozed: true))
        let menu = model.layout()
        func request(_ label: String) -> TrayRequest? {
            menu.items.first { $0.label == label }.flatMap { model.request(forItem: $0.id, activationToken: nil) }
        }
        #expect(request("Mark all read") == .markAllRead(Self.cmc, rowIDs: [12, 11]))
        #expect(request("Snooze for 1 hour") == .snooze(.forAnHour))
        #expect(request("Snooze until tomorrow 08:00") == .snooze(.untilTomorrowMorning))
        #expect(request("Resume notifications") == .resume)
        #expect(request("Open inbox") == .openInbox(activationToken: nil))
    }

    @Test func headingsDisabledItemsSeparatorsAndMadeUpIdsAskForNothing() {
        var model = TrayModel()
        #expect(model.request(forItem: 1, activationToken: nil) == nil)
        _ = model.show(TrayState(shelves: [Self.shelf([Self.row(1)]), Self.shelf(Self.bob, [Self.row(2)])]))
        let menu = model.layout()
        for item in menu.items where item.action == nil || !item.isEnabled {
            #expect(model.request(forItem: item.id, activationToken: nil) == nil)
        }
        #expect(menu.items.contains { $0.label == "Resume notifications" && !$0.isEnabled })
        for id in [0, -1, .max, 10_000] as [Int32] {
            #expect(model.request(forItem: id, activationToken: nil) == nil)
        }
    }

    // MARK: - The state from the stage's updates

    @Test func theInboxFollowsUpdates() {
        var inbox = TrayInbox()
        inbox.take(ScreenBookTests.update(Self.cmc, [Self.row(1), Self.row(2)]), rules: .none)
        #expect(inbox.state.shelves.map { $0.newest.map(\.id) } == [[2, 1]])
        inbox.take(ScreenBookTests.update(Self.bob, [Self.row(5)]), rules: .none)
        inbox.take(ScreenBookTests.update(Self.cmc, [Self.row(3)], unread: 2, read: .marked([1])), rules: .none)
        #expect(inbox.state.shelves.map { $0.newest.map(\.id) } == [[3, 2], [5]])
        #expect(inbox.state.total == 3)
        inbox.take(ScreenBookTests.update(Self.cmc, unread: 0), rules: .none)
        #expect(inbox.state.shelves[0].newest.isEmpty)
        inbox.keep(only: [Self.cmc])
        #expect(inbox.state.shelves.map(\.account) == [Self.cmc])
        inbox.setSnoozed(true)
        #expect(inbox.state.isSnoozed)
    }

    @Test func theInboxKeepsABoundedShelf() {
        var inbox = TrayInbox()
        let rows = (1...200).map { Self.row(Int64($0)) }
        inbox.take(ScreenBookTests.update(Self.cmc, rows), rules: .none)
        #expect(inbox.state.shelves[0].newest.count == TrayInbox.keptPerAccount)
        #expect(inbox.state.shelves[0].newest.first?.id == 200)
    }

    /// What was unread before the daemon started: the first poll sums it up in one notification,
    /// and the tray lists its rows, the newest ten, with the rest counted under them.
    @Test func aBacklogAtTheFirstPollIsListed() {
        let page = InboxPage(items: (1...14).reversed().map { Self.row(Int64($0)) }, next: nil)
        let cycle = InboxDiff.evaluate(page: page, highWater: nil)
        #expect(cycle.notices.count == 1)
        var inbox = TrayInbox()
        Self.take(cycle, into: &inbox)
        var model = TrayModel()
        _ = model.show(inbox.state)
        let labels = Self.labels(model.layout())
        #expect(Array(labels.prefix(11)) == (5...14).reversed().map { "krz/gitbay — ann opened issue #\($0)" } + ["4 more unread on cmc@gitbay.org"])

        // A later poll that finds the same rows, and more new ones than are shown one by one.
        let next = InboxDiff.evaluate(page: InboxPage(items: (1...20).reversed().map { Self.row(Int64($0)) }, next: nil), highWater: cycle.highWater)
        Self.take(next, into: &inbox)
        #expect(inbox.state.shelves[0].newest.map(\.id) == Array((1...20).reversed()))
    }

    /// What was unread before the daemon heard of the account is listed but asks for no
    /// attention (a restart would otherwise call for it every time); a row that comes as news
    /// after it does, and so does a burst the first poll already brings as news.
    @Test func rowsUnreadBeforeTheStartAskForNoAttention() {
        let first = InboxDiff.evaluate(page: InboxPage(items: [Self.row(4), Self.row(3)], next: nil), highWater: nil)
        var inbox = TrayInbox()
        Self.take(first, into: &inbox)
        var model = TrayModel()
        _ = model.show(inbox.state)
        #expect(model.looks.status == .active)
        #expect(model.layout().items.filter { if case .open = $0.action { true } else { false } }.count == 2)

        let next = InboxDiff.evaluate(page: InboxPage(items: [Self.row(5), Self.row(4), Self.row(3)], next: nil), highWater: first.highWater)
        Self.take(next, into: &inbox)
        _ = model.show(inbox.state)
        #expect(model.looks.status == .needsAttention)

        // A restart after a burst the mark already covers: no notices at all, no attention.
        var restarted = TrayInbox()
        restarted.take(AccountUpdate(account: Self.cmc, unread: next.unread, read: next.read, unreadRows: next.unreadRows), rules: .none)
        var again = TrayModel()
        _ = again.show(restarted.state)
        #expect(again.looks.status == .active)

        // Five new at the first poll after a mark: one summary, but news.
        let burst = InboxDiff.evaluate(page: InboxPage(items: (1...5).reversed().map { Self.row(Int64($0)) }, next: nil), highWater: 0)
        var bursting = TrayInbox()
        Self.take(burst, into: &bursting)
        var third = TrayModel()
        _ = third.show(bursting.state)
        #expect(third.looks.status == .needsAttention)
    }

    /// A row the rules keep off the screen is not listed, whether it came new or in a backlog;
    /// it is still counted.
    @Test func rowsTheRulesHideAreNotListed() throws {
        let rules = try ScreenBookNoiseTests.rules("[rule bots]\nactor = *-bot\nshow = none\n")
        var inbox = TrayInbox()
        let rows = [Self.row(3, actor: "ci-bot"), Self.row(2), Self.row(1, actor: "ci-bot")]
        inbox.take(AccountUpdate(account: Self.cmc, notices: [.item(rows[0])], unread: .exact(3), unreadRows: rows), rules: rules)
        #expect(inbox.state.shelves[0].newest.map(\.id) == [2])
        var model = TrayModel()
        _ = model.show(inbox.state)
        #expect(Self.labels(model.layout()).contains("2 more unread on cmc@gitbay.org"))
    }
}

/// When the tray's snoozes end, in the test zone (UTC+1 in December, UTC+2 in summer).
@Suite struct TraySnoozeEndTests {
    @Test func forAnHourIsAnHour() {
        let now = TestZone.utc(2026, 12, 2, 14, 10)
        #expect(TrayRequest.Snooze.forAnHour.end(from: now, zone: TestZone.offsets) == now + 3600)
    }

    /// 08:00 local is 07:00 UTC in December: tomorrow's, chosen in the evening, after midnight
    /// and just after 08:00.
    @Test(arguments: [
        (TestZone.utc(2026, 12, 2, 21, 0), TestZone.utc(2026, 12, 3, 7, 0)),
        (TestZone.utc(2026, 12, 2, 1, 0), TestZone.utc(2026, 12, 3, 7, 0)),
        (TestZone.utc(2026, 12, 2, 7, 1), TestZone.utc(2026, 12, 3, 7, 0)),
    ])
    func untilTomorrowMorningIsTheNextDays0800(now: Int64, end: Int64) {
        #expect(TrayRequest.Snooze.untilTomorrowMorning.end(from: now, zone: TestZone.offsets) == end)
    }

    /// The night the clocks go back (2026-10-25, 03:00 → 02:00): 08:00 is still 08:00 local,
    /// now an hour later in UTC.
    @Test func untilTomorrowMorningFollowsTheLocalClockAcrossDST() {
        let evening = TestZone.utc(2026, 10, 24, 20, 0)  // 22:00 local, UTC+2
        #expect(TrayRequest.Snooze.untilTomorrowMorning.end(from: evening, zone: TestZone.offsets) == TestZone.utc(2026, 10, 25, 7, 0))
    }
}

@Suite struct TrayPixmapCodingTests {
    @Test func pixmapsTravelAsTheirBytesInSizeOrder() throws {
        let pixmaps = TrayPixmap.sizes.map { size in
            TrayPixmap(size: size, argb: (0..<size * size * 4).map { UInt8(truncatingIfNeeded: $0 &+ size) })
        }
        let bytes = try #require(TrayPixmap.encode(pixmaps))
        #expect(bytes.count == TrayPixmap.encodedSize)
        #expect(try TrayPixmap.decode(bytes) == pixmaps)
    }

    @Test func anythingButEverySizeOnceIsRefused() {
        #expect(TrayPixmap.encode([]) == nil)
        #expect(TrayPixmap.encode([TrayPixmap(size: 22, argb: [])]) == nil)
        #expect(throws: TrayPixmap.DecodingError.self) { try TrayPixmap.decode([]) }
        #expect(throws: TrayPixmap.DecodingError.self) { try TrayPixmap.decode([UInt8](repeating: 0, count: TrayPixmap.encodedSize + 1)) }
    }
}

import PushCore
import Testing

@Suite struct DesktopContentTests {
    static let account = try! Account(instance: GitbayInstance(parsing: "https://GitBay.org/"), username: "cmc")
    static let full = NotificationCapabilities(bodyMarkup: true, actions: true)

    static func row(
        id: Int64 = 7, repo: String = "krz/gitbay", kind: ItemKind? = .issue, actor: String = "ana",
        summary: String = "opened issue #12", path: String = "krz/gitbay/issues/12"
    ) -> InboxItem {
        InboxItem(
            id: id, repo: repo, kind: kind, actor: actor, summary: summary, path: path, createdAt: "2026-01-01T00:00:00Z",
            readAt: nil)
    }

    @Test func capabilitiesFromAdvertisedNames() {
        #expect(NotificationCapabilities(advertised: ["body", "body-markup", "actions", "x-vendor"]) == Self.full)
        #expect(NotificationCapabilities(advertised: ["body", "persistence"]) == .plain)
    }

    @Test func itemShowsRepositoryActorAndSummaryWithBothActions() {
        let content = NotificationContent.item(Self.row(), capabilities: Self.full)
        #expect(content.summary == "krz/gitbay")
        #expect(content.body == "ana opened issue #12")
        #expect(content.actions == ["default", "Open", "mark-read", "Mark read"])
        #expect(content.category == "x-gitbay.issue")
        #expect(content.urgency == .normal)
    }

    @Test(arguments: [(ItemKind?.some(.mr), "x-gitbay.mr"), (.some(.build), "x-gitbay.build"), (nil, nil)])
    func categoryFollowsKind(_ kind: ItemKind?, _ category: String?) {
        #expect(NotificationContent.item(Self.row(kind: kind), capabilities: Self.full).category == category)
    }

    @Test func markupIsEscapedOnlyForMarkupServers() {
        let row = Self.row(actor: "<b>eve</b>", summary: "said a & b <i>")
        #expect(NotificationContent.item(row, capabilities: Self.full).body == "&lt;b&gt;eve&lt;/b&gt; said a &amp; b &lt;i&gt;")
        let plain = NotificationContent.item(row, capabilities: NotificationCapabilities(bodyMarkup: false, actions: true))
        #expect(plain.body == "<b>eve</b> said a & b <i>")
    }

    @Test func noActionsWithoutTheCapability() {
        #expect(NotificationContent.item(Self.row(), capabilities: .plain).actions.isEmpty)
        #expect(NotificationContent.summary(count: 4, isAtLeast: false, isUnread: false, account: Self.account, capabilities: .plain)
            .actions.isEmpty)
    }

    @Test func hostileTextIsOneBoundedLine() {
        let row = Self.row(repo: "o/r\n\u{1B}[31mx", actor: "a", summary: String(repeating: "x", count: 10_000) + "\n")
        let content = NotificationContent.item(row, capabilities: Self.full)
        #expect(content.summary == "o/r  [31mx")
        #expect(content.body.count == NotificationContent.maximumBodyLength)
        #expect(content.body.hasSuffix("…"))
        #expect(!content.body.contains("\n"))
    }

    @Test func escapingHappensAfterTheCutSoNoEntityIsSplit() {
        let row = Self.row(actor: "a", summary: String(repeating: "&", count: 1000))
        let body = NotificationContent.item(row, capabilities: Self.full).body
        #expect(body.hasSuffix("&amp;…"))
    }

    @Test func summaries() {
        let new = NotificationContent.summary(count: 7, isAtLeast: false, isUnread: false, account: Self.account, capabilities: Self.full)
        #expect(new.summary == "7 new on gitbay.org as cmc")
        #expect(new.actions == ["default", "Open the inbox"])
        #expect(new.category == nil)
        let unread = NotificationContent.summary(count: 50, isAtLeast: true, isUnread: true, account: Self.account, capabilities: Self.full)
        #expect(unread.summary == "50+ unread on gitbay.org as cmc")
    }

    @Test func tokenRejectedSaysHowToFixIt() {
        let content = NotificationContent.tokenRejected(account: Self.account, capabilities: Self.full)
        #expect(content.summary == "Sign in again to gitbay.org")
        #expect(content.body.contains("gbnotifyctl account add https://gitbay.org"))
        #expect(content.urgency == .critical)
    }
}

@Suite struct DesktopUnreadTallyTests {
    static let one = DesktopContentTests.account
    static let two = try! Account(instance: GitbayInstance(parsing: "https://example.com"), username: "cmc")

    @Test func totalAcrossAccountsWithLatestCountEach() {
        var tally = UnreadTally()
        var changes: [Bool] = []
        changes.append(tally.set(3, for: Self.one))
        changes.append(tally.set(2, for: Self.two))
        #expect(tally.total == 5)
        changes.append(tally.set(3, for: Self.one))
        changes.append(tally.set(1, for: Self.one))
        #expect(tally.total == 3)
        #expect(changes == [true, true, false, true])
    }

    @Test func lowerStopsAtZeroAndRemoveDropsTheAccount() {
        var tally = UnreadTally()
        tally.set(2, for: Self.one)
        tally.set(4, for: Self.two)
        var changes: [Bool] = []
        changes.append(tally.lower(by: 3, for: Self.one))
        changes.append(tally.lower(by: 1, for: Self.one))
        #expect(tally.total == 4)
        changes.append(tally.remove(Self.two))
        #expect(tally.total == 0)
        changes.append(tally.remove(Self.two))
        changes.append(tally.set(-3, for: Self.one))
        #expect(changes == [true, false, true, false, false])
    }
}

@Suite struct DesktopWaitingNoticesTests {
    static let one = DesktopContentTests.account
    static let two = DesktopUnreadTallyTests.two

    @Test func fewItemsComeOutNewestFirst() {
        var waiting = WaitingNotices()
        waiting.add([.item(DesktopContentTests.row(id: 1)), .item(DesktopContentTests.row(id: 2))], for: Self.one)
        waiting.add([.item(DesktopContentTests.row(id: 3))], for: Self.one)
        let released = waiting.release()
        #expect(released.count == 1)
        #expect(released.first?.account == Self.one)
        #expect(released.first?.release == .items([3, 2, 1].map { DesktopContentTests.row(id: $0) }))
        #expect(waiting.isEmpty)
    }

    @Test func manyItemsOrAnySummaryBecomeOneSummaryPerAccount() {
        var waiting = WaitingNotices()
        waiting.add((1...4).map { .item(DesktopContentTests.row(id: $0)) }, for: Self.one)
        waiting.add([.summary(count: 5, isAtLeast: true, newestID: 9, isFirstSight: true)], for: Self.two)
        let released = waiting.release()
        #expect(released.map(\.account) == [Self.one, Self.two].sorted { $0.id < $1.id })
        let byAccount = Dictionary(uniqueKeysWithValues: released.map { ($0.account, $0.release) })
        #expect(byAccount[Self.one] == .summary(count: 4, isAtLeast: false, isUnread: false))
        #expect(byAccount[Self.two] == .summary(count: 5, isAtLeast: true, isUnread: true))
    }

    @Test func boundedButCounted() {
        var waiting = WaitingNotices(limit: 2)
        waiting.add((1...1000).map { .item(DesktopContentTests.row(id: $0)) }, for: Self.one)
        #expect(waiting.release().first?.release == .summary(count: 1000, isAtLeast: false, isUnread: false))
    }

    @Test func readElsewhereWhileWaitingIsNotShown() {
        var waiting = WaitingNotices()
        waiting.add([.item(DesktopContentTests.row(id: 1)), .item(DesktopContentTests.row(id: 2))], for: Self.one)
        waiting.remove([1], for: Self.one)
        #expect(waiting.release().first?.release == .items([DesktopContentTests.row(id: 2)]))
        waiting.add([.item(DesktopContentTests.row(id: 3))], for: Self.one)
        waiting.remove([3], for: Self.one)
        #expect(waiting.isEmpty)
        waiting.add([.item(DesktopContentTests.row(id: 4))], for: Self.two)
        waiting.forget(Self.two)
        #expect(waiting.isEmpty)
    }
}

@Suite struct DesktopClickLaunchTests {
    static let account = DesktopContentTests.account

    static func target(_ path: String) -> PushTarget {
        PushTarget(account: account, destination: NotificationDestination(path: path))
    }

    @Test func browserOpensTheURLRebuiltFromTheInstanceWithTheToken() {
        let launch = ClickLaunch.forClick(
            Self.target("krz/gitbay/issues/12"), config: .defaults, activationToken: "tok-1", isInstalled: { _ in true })
        #expect(launch.argv == ["xdg-open", "https://gitbay.org/krz/gitbay/issues/12"])
        #expect(launch.url == "https://gitbay.org/krz/gitbay/issues/12")
        #expect(launch.environment == ["XDG_ACTIVATION_TOKEN": "tok-1", "DESKTOP_STARTUP_ID": "tok-1"])
    }

    @Test(arguments: ["../../etc/passwd", "javascript:alert(1)", "https://evil.example/o/r/issues/1", "o/r/wiki/1"])
    func unroutablePathsOpenTheInbox(_ path: String) {
        let launch = ClickLaunch.forClick(
            Self.target(path), config: .defaults, activationToken: nil, browser: ["/stub"], isInstalled: { _ in true })
        #expect(launch.argv == ["/stub", "https://gitbay.org/notifications"])
        #expect(launch.environment.isEmpty)
    }

    @Test func terminalRunsGbnotifysViewOfTheItemOrTheInbox() throws {
        let config = try Config.parse("open-with = terminal\nterminal = kitty -e\n")
        let launch = ClickLaunch.forClick(
            Self.target("krz/gitbay/mrs/3"), config: config, activationToken: "tok-2", isInstalled: { _ in false })
        #expect(launch.argv == ["kitty", "-e", "gbnotifyctl", "show", "cmc@gitbay.org", "krz/gitbay/mrs/3"])
        #expect(launch.environment == ["XDG_ACTIVATION_TOKEN": "tok-2", "DESKTOP_STARTUP_ID": "tok-2"])
        // Nothing for the OpenURI portal to open instead.
        #expect(launch.url == nil)
        let inbox = ClickLaunch.forClick(Self.target("krz"), config: config, activationToken: nil, isInstalled: { _ in false })
        #expect(inbox.argv == ["kitty", "-e", "gbnotifyctl", "inbox", "cmc@gitbay.org"])
        #expect(inbox.url == nil)
    }

    @Test func theViewerIsTheGbnotifyctlBesideTheDaemonWhenThereIsOne() throws {
        let config = try Config.parse("open-with = terminal\nterminal = kitty -e\n")
        let beside = ClickLaunch.forClick(
            Self.target("krz/gitbay/issues/1"), config: config, activationToken: nil, programDirectory: "/opt/gb/bin",
            isInstalled: { $0 == "/opt/gb/bin/gbnotifyctl" })
        #expect(beside.argv == ["kitty", "-e", "/opt/gb/bin/gbnotifyctl", "show", "cmc@gitbay.org", "krz/gitbay/issues/1"])
        // Not there (a split install): PATH's.
        let onPath = ClickLaunch.forClick(
            Self.target("krz/gitbay/issues/1"), config: config, activationToken: nil, programDirectory: "/opt/gb/bin",
            isInstalled: { $0 == "gbnotifyctl" })
        #expect(onPath.argv[2] == "gbnotifyctl")
        #expect(ClickLaunch.viewerProgram(in: "/usr/bin/", isInstalled: { _ in true }) == "/usr/bin/gbnotifyctl")
        #expect(ClickLaunch.viewerProgram(in: "relative/bin", isInstalled: { _ in true }) == "gbnotifyctl")
        #expect(ClickLaunch.viewerProgram(in: nil, isInstalled: { _ in true }) == "gbnotifyctl")
    }

    @Test func inBrowserOpensTheItemOrTheInboxWhateverTheConfig() {
        let item = ClickLaunch.inBrowser(Self.target("krz/gitbay/builds/9"), activationToken: nil)
        #expect(item.argv == ["xdg-open", "https://gitbay.org/krz/gitbay/builds/9"])
        #expect(item.url == "https://gitbay.org/krz/gitbay/builds/9")
        #expect(item.environment.isEmpty)
        let inbox = ClickLaunch.inBrowser(Self.target("krz"), activationToken: "t", browser: ["/stub"])
        #expect(inbox.argv == ["/stub", "https://gitbay.org/notifications"])
    }

    @Test(arguments: ["", "a b", "tok\nEVIL=1", String(repeating: "x", count: 257)])
    func oddActivationTokensAreLeftOut(_ token: String) {
        let launch = ClickLaunch.forClick(
            Self.target("o/r/issues/1"), config: .defaults, activationToken: token, isInstalled: { _ in true })
        #expect(launch.environment.isEmpty)
    }
}

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

    static func group(_ rows: [InboxItem]) -> NoticeGroup {
        NoticeGroup.grouping(rows, of: account)[0]
    }

    static func item(_ row: InboxItem, capabilities: NotificationCapabilities = full) -> NotificationContent {
        NotificationContent.group(group([row]), capabilities: capabilities)
    }

    @Test func oneNoticeShowsRepositoryActorAndSummaryWithItsButtons() {
        let content = Self.item(Self.row())
        #expect(content.summary == "krz/gitbay")
        #expect(content.body == "ana opened issue #12")
        #expect(content.actions == ["default", "Open", "mark-read", "Mark read", "reply", "Reply…", "react", "👍"])
        #expect(content.inlineReply == nil)
        #expect(content.category == "x-gitbay.issue")
        #expect(content.urgency == .normal)
    }

    @Test(arguments: [(ItemKind?.some(.mr), "x-gitbay.mr"), (.some(.build), "x-gitbay.build"), (nil, nil)])
    func categoryFollowsKind(_ kind: ItemKind?, _ category: String?) {
        #expect(Self.item(Self.row(kind: kind)).category == category)
    }

    @Test func theTitleIsTheRepositoryOfThePathNeverTheRowsRepoText() {
        #expect(Self.item(Self.row(repo: "bank/login", path: "krz/gitbay/issues/12")).summary == "krz/gitbay")
        // A path that names no item: the instance, which is where a click then leads.
        #expect(Self.item(Self.row(repo: "krz/gitbay", path: "../../etc/passwd")).summary == "gitbay.org")
    }

    @Test func markupIsEscapedOnlyForMarkupServers() {
        let row = Self.row(actor: "<b>eve</b>", summary: "said a & b <i>")
        #expect(Self.item(row).body == "&lt;b&gt;eve&lt;/b&gt; said a &amp; b &lt;i&gt;")
        let plain = Self.item(row, capabilities: NotificationCapabilities(bodyMarkup: false, actions: true))
        #expect(plain.body == "<b>eve</b> said a & b <i>")
    }

    @Test func noActionsWithoutTheCapability() {
        #expect(Self.item(Self.row(), capabilities: .plain).actions.isEmpty)
        let summary = NoticeSummary(count: 4, isAtLeast: false, wording: .new, rowIDs: [])
        #expect(NotificationContent.summary(summary, account: Self.account, capabilities: .plain).actions.isEmpty)
    }

    @Test func hostileTextIsOneBoundedLineWithoutFormatCharacters() {
        let row = Self.row(actor: "a\u{202E}b", summary: String(repeating: "x", count: 10_000) + "\n\u{1B}[31m")
        let content = Self.item(row)
        #expect(content.body.count == NotificationContent.maximumGroupLineLength)
        #expect(content.body.hasPrefix("ab x"))
        #expect(content.body.hasSuffix("…"))
        #expect(!content.body.contains("\n"))
    }

    @Test func escapingHappensAfterTheCutSoNoEntityIsSplit() {
        let body = Self.item(Self.row(actor: "a", summary: String(repeating: "&", count: 1000))).body
        #expect(body.hasSuffix("&amp;…"))
    }

    @Test func aGroupListsWhatIsNewNewestFirstAndCountsTheRest() {
        let first = Self.group([Self.row(id: 1, summary: "opened issue #1", path: "krz/gitbay/issues/1")])
        let grown = first.adding([
            Self.row(id: 2, summary: "opened issue #2", path: "krz/gitbay/issues/2"),
            Self.row(id: 3, summary: "opened issue #3", path: "krz/gitbay/issues/3"),
        ])
        let content = NotificationContent.group(grown, capabilities: Self.full)
        #expect(content.summary == "krz/gitbay")
        // Notice 1 was shown before: counted, never listed again.
        #expect(content.body == "ana opened issue #3\nana opened issue #2\nand 1 more")
        #expect(content.actions == ["default", "Open the inbox", "mark-read", "Mark all read", "mute", "Mute"])
        let many = first.adding((2...9).map { Self.row(id: $0, path: "krz/gitbay/issues/\($0)") })
        #expect(NotificationContent.group(many, capabilities: Self.full).body.split(separator: "\n").last == "and 6 more")
    }

    @Test func withSeveralAccountsTheBodyNamesTheAccountFirst() {
        let content = NotificationContent.group(Self.group([Self.row()]), capabilities: Self.full, accountLine: "cmc@gitbay.org")
        #expect(content.body == "cmc@gitbay.org\nana opened issue #12")
    }

    @Test func summaries() {
        func text(_ count: Int, _ isAtLeast: Bool, _ wording: NoticeSummary.Wording) -> String {
            NotificationContent.summary(
                NoticeSummary(count: count, isAtLeast: isAtLeast, wording: wording, rowIDs: []), account: Self.account,
                capabilities: Self.full
            ).summary
        }
        #expect(text(7, false, .new) == "7 new on gitbay.org as cmc")
        #expect(text(50, true, .unread) == "50+ unread on gitbay.org as cmc")
        #expect(text(5, false, .more) == "5 more unread on gitbay.org as cmc")
        let content = NotificationContent.summary(
            NoticeSummary(count: 1, isAtLeast: false, wording: .new, rowIDs: []), account: Self.account, capabilities: Self.full)
        #expect(content.actions == ["default", "Open the inbox"])
        #expect(content.body == "Open the inbox to see them.")
        #expect(content.category == nil)
    }

    @Test func tokenRejectedSaysHowToFixIt() {
        let content = NotificationContent.tokenRejected(account: Self.account, capabilities: Self.full)
        #expect(content.summary == "Sign in again to gitbay.org")
        #expect(content.body.contains("gbnotifyctl account add https://gitbay.org"))
        #expect(content.urgency == .normal)
        #expect(content.staysUntilDismissed)
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

    @Test func removeDropsTheAccountAndNegativeCountsAreZero() {
        var tally = UnreadTally()
        tally.set(2, for: Self.one)
        tally.set(4, for: Self.two)
        var changes: [Bool] = []
        changes.append(tally.remove(Self.two))
        #expect(tally.total == 2)
        changes.append(tally.remove(Self.two))
        changes.append(tally.set(-3, for: Self.one))
        #expect(tally.total == 0)
        #expect(changes == [true, false, true])
    }

    @Test func hugeCountsAreClampedAndTheTotalNeverOverflows() {
        var tally = UnreadTally()
        tally.set(Int.max, for: Self.one)
        tally.set(Int.max, for: Self.two)
        #expect(tally.total == 2 * OutsideCount.maximum)
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

@Suite struct ServerQuirksTests {
    @Test func onlyLXQtIsShownAfreshAndOnlyWhenItsActionsChange() {
        let lxqt = ServerQuirks(serverName: "lxqt-notificationd", version: "1.2.1")
        #expect(!lxqt.replacesInPlace(shownActions: ["default", "mark-read"], with: ["default"]))
        #expect(lxqt.replacesInPlace(shownActions: ["default", "mark-read"], with: ["default", "mark-read"]))
        // The same keys under other labels: a notice's "Open" becomes a group's "Open the inbox".
        #expect(!lxqt.replacesInPlace(shownActions: ["default", "Open"], with: ["default", "Open the inbox"]))
        // Taken over from an earlier daemon: what it showed is not known, so not trusted.
        #expect(!lxqt.replacesInPlace(shownActions: nil, with: ["default"]))
        #expect(ServerQuirks(serverName: "mako", version: "1.7.1").replacesInPlace(shownActions: nil, with: ["default"]))
        #expect(ServerQuirks(serverName: "dunst", version: "1.9.0").replacesInPlace(shownActions: ["default", "mark-read"], with: ["default"]))
        #expect(ServerQuirks(serverName: nil, version: nil).replacesInPlace(shownActions: ["mute"], with: []))
    }

    /// The table: each entry as its rig test saw the server (GnomeShellRigTests on 43,
    /// GnomeShell48RigTests on 48), and the safe default for every other server and version.
    @Test func whatEachServerKeepsAndWhetherItWithdrawsALeavingSendersNotifications() {
        let gnome43 = ServerQuirks(serverName: "gnome-shell", version: "43.9")
        #expect(gnome43.keptOpen(maxNotifications: nil) == 3)
        #expect(gnome43.adoptsAfterRestart)
        let gnome48 = ServerQuirks(serverName: "gnome-shell", version: "48.7")
        #expect(gnome48.keptOpen(maxNotifications: nil) == 10)
        #expect(!gnome48.adoptsAfterRestart)
        // The user's max-notifications wins, above or below the server's own limit.
        #expect(gnome48.keptOpen(maxNotifications: 12) == 12)
        #expect(gnome43.keptOpen(maxNotifications: 1) == 1)
        // Not seen: another GNOME, a server with no limit, one that did not say, one named
        // like GNOME's version ("480" is not 48).
        for unknown in [
            ServerQuirks(serverName: "gnome-shell", version: "46.0"), ServerQuirks(serverName: "gnome-shell", version: "480"),
            ServerQuirks(serverName: "Plasma", version: "6.3.6"), ServerQuirks(serverName: "mako", version: "0.0.0"),
            ServerQuirks(serverName: nil, version: nil), ServerQuirks(serverName: "gnome-shell", version: nil),
        ] {
            #expect(unknown.keptOpen(maxNotifications: nil) == ServerQuirks.defaultKeptOpen)
            #expect(unknown.adoptsAfterRestart)
            #expect(!unknown.keepsFirstButtons)
        }
        #expect(ServerQuirks.defaultKeptOpen == 3)
    }
}

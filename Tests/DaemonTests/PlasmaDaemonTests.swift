import DBus
import DesktopSuites
import Foundation
import GitbayClient
import Glibc
import PushCore
import StateStore
import TestSupport
import Testing

/// The real gbnotifyd on KDE Plasma 5.27 (Debian 12's, on Xvfb with kwin_x11), read through
/// plasmashell's own model, clicked through its popups' code and with a real pointer
/// (`PlasmaShell`, `OnScreen`): one session for the suite, a gbnotifyd per test. gbnotify's
/// desktop entry and icon are installed in it, as a package installs them.
///
/// Popups stay a minute here (Plasma's "Hide after" setting), except in the test of Plasma's
/// own 5 s: on a busy machine 5 s can pass between a popup and the click a test makes on it.
@Suite(.serialized, .desktop(.plasma, installing: .gbnotify))
struct PlasmaDaemonTests {
    let checks: PlasmaDaemonChecks

    init() throws {
        checks = try PlasmaDaemonChecks()
    }

    @Test func aNoticeIsShownWithOurEntryAndIconReplacedInPlaceAndWithdrawnWhenReadElsewhere() async throws {
        try await checks.aNoticeIsShownWithOurEntryAndIconReplacedInPlaceAndWithdrawnWhenReadElsewhere()
    }

    @Test func clicksThroughThePopupsCodeAndARealPointerOpenTheItemOnceWithAnActivationToken() async throws {
        try await checks.clicksThroughThePopupsCodeAndARealPointerOpenTheItemOnceWithAnActivationToken()
    }

    @Test func aRealPointerOnMarkReadMarksTheRowReadAndTheBadgeFalls() async throws {
        try await checks.aRealPointerOnMarkReadMarksTheRowReadAndTheBadgeFalls()
    }

    @Test func aRealPointerOnMuteMutesTheRepositoryAndOneOnUndoUnmutesIt() async throws {
        try await checks.aRealPointerOnMuteMutesTheRepositoryAndOneOnUndoUnmutesIt()
    }

    @Test func afterAKillDashNineTheRestartedDaemonAdoptsWhatItLeftAndAStopClearsTheBadge() async throws {
        try await checks.afterAKillDashNineTheRestartedDaemonAdoptsWhatItLeftAndAStopClearsTheBadge()
    }

    @Test func aNotifyPlasmaRefusesAsTooSoonIsShownOnceASecondLater() async throws {
        try await checks.aNotifyPlasmaRefusesAsTooSoonIsShownOnceASecondLater()
    }

    @Test func aPopupExpiredAfterFiveSecondsIsNotShownAgain() async throws {
        try await checks.aPopupExpiredAfterFiveSecondsIsNotShownAgain()
    }

    @Test func withTwoAccountsEachNotificationSaysWhichAccount() async throws {
        try await checks.withTwoAccountsEachNotificationSaysWhichAccount()
    }

    @Test func aReplyTypedIntoThePopupIsPostedOnceTheNoticeReadAndItIsSaid() async throws {
        try await checks.aReplyTypedIntoThePopupIsPostedOnceTheNoticeReadAndItIsSaid()
    }

    @Test func aReplyTypedOnTheKeyboardIntoThePopupsFieldIsPosted() async throws {
        try await checks.aReplyTypedOnTheKeyboardIntoThePopupsFieldIsPosted()
    }

    @Test func aReplyWhoseAnswerIsLostAfterTheInstancePostedItIsFoundInTheThreadAndSentOnce() async throws {
        try await checks.aReplyWhoseAnswerIsLostAfterTheInstancePostedItIsFoundInTheThreadAndSentOnce()
    }

    @Test func aReplyOverGitbaysLimitReachesTheDaemonAndIsKeptNamingIt() async throws {
        try await checks.aReplyOverGitbaysLimitReachesTheDaemonAndIsKeptNamingIt()
    }

    @Test func aReplyTheInstanceRefusesIsKeptAsADraftAndSaidInPlainWords() async throws {
        try await checks.aReplyTheInstanceRefusesIsKeptAsADraftAndSaidInPlainWords()
    }

    @Test(arguments: PlasmaDaemonChecks.Refusal.allCases)
    func aReplyTheInstanceTurnsAwayIsKeptAndSaysWhy(_ refusal: PlasmaDaemonChecks.Refusal) async throws {
        try await checks.aReplyTheInstanceTurnsAwayIsKeptAndSaysWhy(refusal)
    }

    @Test func aReplyKeptIsSaidInTheSessionsLanguageAndLoggedInEnglish() async throws {
        try await checks.aReplyKeptIsSaidInTheSessionsLanguageAndLoggedInEnglish()
    }
}

/// The same on KDE Plasma 6.3 (Debian 13's, from the root scripts/debian13-root builds).
@Suite(.serialized, .desktop(.plasma, release: .debian13, installing: .gbnotify))
struct Plasma6DaemonTests {
    let checks: PlasmaDaemonChecks

    init() throws {
        checks = try PlasmaDaemonChecks()
    }

    @Test func aNoticeIsShownWithOurEntryAndIconReplacedInPlaceAndWithdrawnWhenReadElsewhere() async throws {
        try await checks.aNoticeIsShownWithOurEntryAndIconReplacedInPlaceAndWithdrawnWhenReadElsewhere()
    }

    @Test func clicksThroughThePopupsCodeAndARealPointerOpenTheItemOnceWithAnActivationToken() async throws {
        try await checks.clicksThroughThePopupsCodeAndARealPointerOpenTheItemOnceWithAnActivationToken()
    }

    @Test func aRealPointerOnMarkReadMarksTheRowReadAndTheBadgeFalls() async throws {
        try await checks.aRealPointerOnMarkReadMarksTheRowReadAndTheBadgeFalls()
    }

    @Test func aRealPointerOnMuteMutesTheRepositoryAndOneOnUndoUnmutesIt() async throws {
        try await checks.aRealPointerOnMuteMutesTheRepositoryAndOneOnUndoUnmutesIt()
    }

    @Test func afterAKillDashNineTheRestartedDaemonAdoptsWhatItLeftAndAStopClearsTheBadge() async throws {
        try await checks.afterAKillDashNineTheRestartedDaemonAdoptsWhatItLeftAndAStopClearsTheBadge()
    }

    @Test func aNotifyPlasmaRefusesAsTooSoonIsShownOnceASecondLater() async throws {
        try await checks.aNotifyPlasmaRefusesAsTooSoonIsShownOnceASecondLater()
    }

    @Test func aPopupExpiredAfterFiveSecondsIsNotShownAgain() async throws {
        try await checks.aPopupExpiredAfterFiveSecondsIsNotShownAgain()
    }

    @Test func withTwoAccountsEachNotificationSaysWhichAccount() async throws {
        try await checks.withTwoAccountsEachNotificationSaysWhichAccount()
    }

    @Test func aReplyTypedIntoThePopupIsPostedOnceTheNoticeReadAndItIsSaid() async throws {
        try await checks.aReplyTypedIntoThePopupIsPostedOnceTheNoticeReadAndItIsSaid()
    }

    @Test func aReplyTypedOnTheKeyboardIntoThePopupsFieldIsPosted() async throws {
        try await checks.aReplyTypedOnTheKeyboardIntoThePopupsFieldIsPosted()
    }

    @Test func aReplyWhoseAnswerIsLostAfterTheInstancePostedItIsFoundInTheThreadAndSentOnce() async throws {
        try await checks.aReplyWhoseAnswerIsLostAfterTheInstancePostedItIsFoundInTheThreadAndSentOnce()
    }

    @Test func aReplyOverGitbaysLimitReachesTheDaemonAndIsKeptNamingIt() async throws {
        try await checks.aReplyOverGitbaysLimitReachesTheDaemonAndIsKeptNamingIt()
    }

    @Test func aReplyTheInstanceRefusesIsKeptAsADraftAndSaidInPlainWords() async throws {
        try await checks.aReplyTheInstanceRefusesIsKeptAsADraftAndSaidInPlainWords()
    }

    @Test(arguments: PlasmaDaemonChecks.Refusal.allCases)
    func aReplyTheInstanceTurnsAwayIsKeptAndSaysWhy(_ refusal: PlasmaDaemonChecks.Refusal) async throws {
        try await checks.aReplyTheInstanceTurnsAwayIsKeptAndSaysWhy(refusal)
    }
}

/// The checks of PlasmaDaemonTests and Plasma6DaemonTests, each on its suite's session.
struct PlasmaDaemonChecks {
    let session: DesktopSession
    let plasma: PlasmaShell
    let screen: OnScreen

    init() throws {
        session = try SharedDesktop.session()
        plasma = PlasmaShell(session)
        screen = OnScreen(session)
    }

    func aNoticeIsShownWithOurEntryAndIconReplacedInPlaceAndWithdrawnWhenReadElsewhere() async throws {
        let badge = try await BadgeWatch(on: session)
        defer { Task { await badge.close() } }
        try await DaemonOnDesktop.run { desktop in
            let (first, id) = try await desktop.show(actor: "eve", summary: "said <b>hi</b> & left")
            let held = try #require(try await plasma.notifications().first { $0.id == id })
            #expect(held.title == "krz/gitbay")
            // Escaped for Plasma's body markup: shown as sent. One account: no account line.
            #expect(held.body == "eve said <b>hi</b> & left")
            // The installed entry (its icon for the application), and the installed icon file
            // as the notification's own: app_icon is the file's URI, which Plasma loads as an
            // image, not as a theme name.
            #expect(held.desktopEntry == NotificationContent.desktopEntry)
            #expect(held.appName == NotificationContent.appName)
            #expect(held.appIcon == AppIcon.name)
            #expect(held.icon == nil && held.hasImage)
            // Plasma draws the inline-reply action as its text field, not among the buttons.
            #expect(held.actions.map(\.key) == ["default", NotificationContent.markReadAction, NotificationContent.reactAction])
            #expect(held.hasReplyAction)
            let shown = try await badge.plasma(showing: 1)
            #expect(shown.count == 1 && shown.countVisible)

            let (second, replaced) = try await desktop.show(actor: "ana", summary: "commented on issue #12")
            #expect(replaced == id)
            let ours = try await desktop.ours()
            #expect(ours.map(\.id) == [id])
            #expect(ours.first?.body == "ana commented on issue #12\nand 1 more")
            #expect(try await badge.plasma(showing: 2).count == 2)

            try await desktop.readElsewhere([first, second])
            desktop.poll()
            try await desktop.daemon.waitForWithdrawal(of: id)
            // Plasma removes what an application closed a moment later, in a batch.
            try await screen.waitUntilGone(titled: "krz/gitbay")
            #expect(try await desktop.ours().isEmpty)
            #expect(try await !badge.plasma(showing: 0).countVisible)
        }
    }

    func clicksThroughThePopupsCodeAndARealPointerOpenTheItemOnceWithAnActivationToken() async throws {
        try await DaemonOnDesktop.run { desktop in
            try await desktop.expectNoOpenURIPortal()
            let (_, single) = try await desktop.show(repo: "krz/gitbay", number: 12)
            try await desktop.click(single)
            let opened = try await desktop.browser.nextLaunch()
            #expect(opened.arguments == [desktop.url("krz/gitbay/issues/12")])
            // Plasma sends a token with its click; the browser gets it to take the focus with.
            #expect(!opened.activationToken.isEmpty)
            #expect(try await desktop.clicksServed(on: single) == 1)

            try await desktop.clickOnAGroupOfThreeOpensTheInboxOnce()

            let (_, pointed) = try await desktop.show(repo: "krz/pointer", number: 7, kind: "build")
            try await screen.pointerClickBody(ofPopupTitled: "krz/pointer")
            let clicked = try await desktop.browser.nextLaunch()
            #expect(clicked.arguments == [desktop.url("krz/pointer/builds/7")])
            #expect(!clicked.activationToken.isEmpty)
            #expect(try await desktop.clicksServed(on: pointed) == 1)
            // The launch is told after the browser started: wait for it, then count.
            try await desktop.daemon.waitForOpenings(3)
            #expect(desktop.daemon.events.value.count { if case .opened = $0 { true } else { false } } == 3)
        }
    }

    func aRealPointerOnMarkReadMarksTheRowReadAndTheBadgeFalls() async throws {
        let badge = try await BadgeWatch(on: session)
        defer { Task { await badge.close() } }
        try await DaemonOnDesktop.run { desktop in
            let (row, id) = try await desktop.show(repo: "krz/marked")
            #expect(try await badge.plasma(showing: 1).count == 1)
            try await screen.pointerClickButton("Mark read", onPopupTitled: "krz/marked")
            try await desktop.daemon.waitForMarkedRead([row], of: desktop.account)
            #expect(try await desktop.markReadRequests() == [["notifications", "read", String(row)]])
            #expect(try await desktop.readAt(row) != nil)
            #expect(try await desktop.clicksServed(on: id) == 1)
            #expect(try await !badge.plasma(showing: 0).countVisible)
        }
    }

    func aRealPointerOnMuteMutesTheRepositoryAndOneOnUndoUnmutesIt() async throws {
        // Mute among the three buttons a server not known to show more is handed.
        try await DaemonOnDesktop.run(config: "poll-interval = 3600\nbuttons = mark-read, mute\n") { desktop in
            let (row, _) = try await desktop.show(repo: "krz/noisy", number: 5)
            try await screen.pointerClickButton("Mute", onPopupTitled: "krz/noisy")
            try await desktop.daemon.waitForMute(of: "krz/noisy", on: desktop.account)
            // What the Undo button runs, at once: "Muted ..." is said for 10 s, and finding the
            // popup on a busy machine's accessibility tree has taken longer.
            try await plasma.invokeAction(NotificationContent.undoAction, on: try await desktop.mutedNotification("krz/noisy"))
            try await desktop.daemon.waitForMute(of: "krz/noisy", on: desktop.account, muted: false)
            #expect(try await desktop.watchRequests() == [["repo", "mute", "krz/noisy"], ["repo", "unwatch", "krz/noisy"]])
            #expect(try await desktop.readAt(row) == nil)
        }
    }

    func afterAKillDashNineTheRestartedDaemonAdoptsWhatItLeftAndAStopClearsTheBadge() async throws {
        let badge = try await BadgeWatch(on: session)
        defer { Task { await badge.close() } }
        try await DaemonOnDesktop.run { desktop in
            let (before, summaryTitle) = try await desktop.foldFourRepositories()
            #expect(try await badge.plasma(showing: 4).count == 4)

            desktop.daemon.send(SIGKILL)
            #expect(try await desktop.daemon.waitForExit() == 128 + SIGKILL)
            // Plasma keeps what the dead daemon showed, and its badge.
            #expect(try await desktop.ours() == before)
            #expect(try await plasma.badge(for: NotificationContent.desktopEntry).count == 4)

            let sentBefore = badge.updates.value.count
            try await desktop.restartAfterANoticeWhileDown(before: before, summaryTitle: summaryTitle)
            // The old count went at the start, until the first poll answered.
            #expect(try await badge.plasma(showing: 5).count == 5)
            #expect(badge.updates.value[sentBefore...].first.map { $0.count == 0 && !$0.visible } == true)

            // A real click on the popup the dead daemon showed: plasmashell's broadcast reaches
            // the new one, its activation token too.
            let d = try await desktop.open(titled: "krz/d")
            try await screen.pointerClickBody(ofPopupTitled: "krz/d")
            let opened = try await desktop.browser.nextLaunch()
            #expect(opened.arguments == [desktop.url("krz/d/issues/1")])
            #expect(!opened.activationToken.isEmpty)
            #expect(try await desktop.clicksServed(on: d.id) == 1)
            let summary = try await desktop.open(titled: summaryTitle)
            try await desktop.click(summary.id)
            #expect(try await desktop.browser.nextLaunch().arguments == [desktop.url("notifications")])
            #expect(try await desktop.clicksServed(on: summary.id) == 1)

            // A clean stop: the badge cleared, though five are unread, and ours withdrawn.
            desktop.daemon.send(SIGTERM)
            #expect(try await desktop.daemon.waitForExit() == 0)
            let cleared = try await badge.plasma(showing: 0)
            #expect(cleared.count == 0 && !cleared.countVisible)
            try await screen.waitUntilGone(titled: "krz/c")
            #expect(try await desktop.ours().filter { !$0.expired }.isEmpty)
        }
    }

    /// Plasma refuses a Notify whose app, summary and body equal the last one's within a second.
    /// plasmashell is stopped while an identical notification of another sender and then
    /// gbnotifyd's replacement queue up for it, so the two come a moment apart.
    func aNotifyPlasmaRefusesAsTooSoonIsShownOnceASecondLater() async throws {
        try await DaemonOnDesktop.run { desktop in
            let (_, id) = try await desktop.show(actor: "eve", summary: "opened issue #12")
            let monitor = try await BusMonitor(on: session)
            defer { Task { await monitor.stop() } }
            let plasmashell = try await desktop.serverProcess()
            let other = try await session.connect()
            defer { Task { await other.close() } }
            kill(plasmashell, SIGSTOP)
            do {
                let sameText = Task {
                    try await other.call(
                        destination: NotificationsInterface.name, path: NotificationsInterface.path,
                        interface: NotificationsInterface.name, member: "Notify",
                        arguments: [
                            .string(NotificationContent.appName), .uint32(0), .string(AppIcon.name), .string("krz/gitbay"),
                            .string("ana commented on issue #12\nand 1 more"),
                            .stringArray([
                                "default", "Open the inbox", NotificationContent.markReadAction, "Mark all read",
                                NotificationContent.muteAction, "Mute",
                            ]),
                            .vardict(["desktop-entry": .string(NotificationContent.desktopEntry), "suppress-sound": .bool(true)]),
                            .int32(-1),
                        ])
                }
                let sender = other.uniqueName
                try await monitor.wait(for: "the other sender's Notify") { $0.contains { $0.member == "Notify" && $0.sender == sender } }
                let row = try await desktop.standin.addNotification(
                    for: "cmc", repo: "krz/gitbay", actor: "ana", summary: "commented on issue #12", path: "krz/gitbay/issues/12")
                desktop.poll()
                try await monitor.wait(for: "gbnotifyd's Notify") { $0.contains { $0.member == "Notify" && $0.sender != sender } }
                kill(plasmashell, SIGCONT)
                let theirs = try #require(try await sameText.value.first?.uint32Value)

                // Plasma 5.27 refuses gbnotifyd's replacement, the same text within a second of
                // the other sender's Notify, and gbnotifyd shows it again a second later; 6.3
                // checks only new notifications, and takes the replacement at once.
                switch session.release {
                case .debian12: try await desktop.daemon.waitForLine(containing: "ExcessNotificationGeneration")
                case .debian13: break
                }
                let shownAs = try await desktop.shownAs(row: row)
                let ours = try await desktop.ours().filter { $0.id != theirs && !$0.expired }
                #expect(ours.map(\.id) == [shownAs], "\(ours)")
                #expect(ours.first?.body == "ana commented on issue #12\nand 1 more")
                #expect(shownAs == id, "not replaced in place")
                if session.release == .debian13 {
                    #expect(desktop.daemon.lines(containing: "ExcessNotificationGeneration").isEmpty)
                }
            } catch {
                kill(plasmashell, SIGCONT)
                throw error
            }
        }
    }

    /// Plasma expires a popup after about 5 s (NotificationClosed reason 1) into its history:
    /// no longer open, so the next notice of that repository is a notification of its own that
    /// lists only itself, and nothing is shown again.
    func aPopupExpiredAfterFiveSecondsIsNotShownAgain() async throws {
        // Plasma expires no popup under the pointer: keep it clear of them.
        try await session.pointerMove(to: ScreenPoint(x: 640, y: 400))
        try await DaemonOnDesktop.run(plasmaPopups: .standard) { desktop in
            let (_, first) = try await desktop.show(actor: "eve", summary: "opened issue #12")
            try await desktop.daemon.waitForServerClosing(first, reason: 1)
            let (_, second) = try await desktop.show(actor: "ana", summary: "commented on issue #12")
            #expect(second != first)
            let ours = try await desktop.ours()
            #expect(ours.map(\.body) == ["eve opened issue #12", "ana commented on issue #12"])
            #expect(ours.map(\.expired) == [true, false])
        }
    }

    func withTwoAccountsEachNotificationSaysWhichAccount() async throws {
        try await DaemonOnDesktop.expectEachNotificationToSayItsAccount()
    }

    // MARK: - Answers typed into the popup (issue 45)

    /// Issue krz/gitbay#12 on the stand-in, for a comment to land on; its notice on screen.
    private func issueOnScreen(_ desktop: DaemonOnDesktop) async throws -> (row: Int, notification: UInt32) {
        try await desktop.standin.addItem(.issue, repo: "krz/gitbay", data: #"{"number": 12, "title": "Crash", "state": "open", "author": "alice"}"#)
        return try await desktop.show(repo: "krz/gitbay", number: 12)
    }

    private func commentRequests(_ desktop: DaemonOnDesktop) async throws -> [Standin.LoggedRequest] {
        try await desktop.standin.requests().filter { $0.argv?.starts(with: ["issue", "comment"]) == true }
    }

    /// The comments the stand-in holds on krz/gitbay#12, as `issue show` answers them.
    private func comments(_ desktop: DaemonOnDesktop) async throws -> [ItemComment] {
        let client = GitbayClient(instance: desktop.account.instance, token: try APIToken(desktop.tokens[0]))
        let issue = try #require(NotificationDestination(path: "krz/gitbay/issues/12"))
        return try ItemDetails.decode(try await client.send(.show(issue)), as: .issue).comments
    }

    private func said(_ desktop: DaemonOnDesktop, _ said: AnswerSaid) async throws {
        try await desktop.daemon.waitForEvent("\(said) told") { $0 == .answered(desktop.account, said) }
    }

    func aReplyTypedIntoThePopupIsPostedOnceTheNoticeReadAndItIsSaid() async throws {
        try await DaemonOnDesktop.run { desktop in
            let (row, id) = try await issueOnScreen(desktop)
            let held = try #require(try await plasma.notifications().first { $0.id == id })
            #expect(held.hasReplyAction)
            #expect(held.replyPlaceholder == "Reply to krz/gitbay#12")
            #expect(held.replySubmitLabel == "Send")

            try await plasma.replyInline("Looks good to me — shipping it.", on: id)
            try await said(desktop, .replied(path: "krz/gitbay/issues/12"))
            let sent = try await commentRequests(desktop)
            #expect(sent.map(\.argv) == [["issue", "comment", "krz/gitbay", "12", "--file", "-"]])
            #expect(sent.map(\.stdin) == ["Looks good to me — shipping it."])
            #expect(try await comments(desktop).map(\.body) == ["Looks good to me — shipping it."])
            // Marked read as Mark read does, the answered notification withdrawn, and said.
            #expect(try await desktop.markReadRequests() == [["notifications", "read", String(row)]])
            #expect(try await desktop.readAt(row) != nil)
            try await desktop.waitUntilGone(id)
            let replied = try await plasma.notifications().filter { $0.title == "Replied to krz/gitbay#12" }
            #expect(replied.count == 1)
        }
    }

    /// As a user does it: Reply pressed with a real pointer, the text typed on the (XTest)
    /// keyboard into the field that takes the button's place, Return to send.
    func aReplyTypedOnTheKeyboardIntoThePopupsFieldIsPosted() async throws {
        try await DaemonOnDesktop.run { desktop in
            let (row, _) = try await issueOnScreen(desktop)
            try await screen.pointerClickButton("Reply", onPopupTitled: "krz/gitbay")
            // The field comes with its Send button (AT-SPI says nothing when it is drawn).
            try await withDeadline(.seconds(30), "the popup's text field") {
                while try await !screen.popups().contains(where: { $0.title == "krz/gitbay" && $0.buttons.contains { $0.label == "Send" } }) {
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            let typed = try await session.run(["xdotool", "type", "--delay", "20", "Typed on the keyboard."])
            #expect(typed.status == 0, "\(typed.stderr)")
            let sent = try await session.run(["xdotool", "key", "Return"])
            #expect(sent.status == 0, "\(sent.stderr)")
            try await said(desktop, .replied(path: "krz/gitbay/issues/12"))
            #expect(try await comments(desktop).map(\.body) == ["Typed on the keyboard."])
            #expect(try await commentRequests(desktop).count == 1)
            #expect(try await desktop.readAt(row) != nil)
        }
    }

    /// What the instance answers a comment it does not post (gitbay-api.md's refusals), and the
    /// plain words the notification starts with.
    enum Refusal: String, CaseIterable, Sendable {
        case noSuchItem, rateLimited, tooManyWrites, readOnlyToken, tokenRejected

        var fault: Standin.Fault? {
            let json = ["Content-Type": "application/json"]
            return switch self {
            case .noSuchItem: nil
            case .rateLimited:
                .init(.status(429, body: #"{"protocol_version":1,"error":"rate limited; retry in 7s"}"#, headers: json.merging(["Retry-After": "7"]) { $1 }), match: Self.comment)
            case .tooManyWrites:
                .init(.status(403, body: #"{"protocol_version":1,"exit_code":4,"error":"too many writes: at most 30 a minute; retry in 20s"}"#, headers: json.merging(["Retry-After": "20"]) { $1 }), match: Self.comment)
            case .readOnlyToken:
                .init(.status(403, body: #"{"protocol_version":1,"exit_code":4,"error":"this token is read-only; issue comment modifies state"}"#, headers: json), match: Self.comment)
            case .tokenRejected:
                .init(.status(401, body: #"{"protocol_version":1,"error":"invalid or expired token"}"#, headers: json.merging(["WWW-Authenticate": #"Bearer realm="gitbay api""#]) { $1 }), match: Self.comment)
            }
        }

        static let comment = Standin.Fault.Match(argvPrefix: ["issue", "comment"])

        var words: String {
            switch self {
            case .noSuchItem: "no such item, or one this account may not read"
            case .rateLimited: "too many writes for now; try again in 7 s"
            case .tooManyWrites: "too many writes for now; try again in 20 s"
            case .readOnlyToken: "the token is read-only and cannot post"
            case .tokenRejected: "the token was rejected (HTTP 401"
            }
        }
    }

    /// Each refusal: nothing posted, nothing sent again, the text kept as a draft, the notice
    /// unread, and the notification's words say why.
    func aReplyTheInstanceTurnsAwayIsKeptAndSaysWhy(_ refusal: Refusal) async throws {
        try await DaemonOnDesktop.run { desktop in
            if refusal != .noSuchItem {
                try await desktop.standin.addItem(.issue, repo: "krz/gitbay", data: #"{"number": 12, "title": "Crash", "state": "open", "author": "alice"}"#)
            }
            if let fault = refusal.fault { try await desktop.standin.addFault(fault) }
            let (row, id) = try await desktop.show(repo: "krz/gitbay", number: 12)
            try await plasma.replyInline("Kept, whatever the answer.", on: id)
            let told = try await desktop.daemon.waitForEvent("the reply kept") { event in
                if case .answered(_, .replyKept("krz/gitbay/issues/12", _)) = event { true } else { false }
            }
            guard case .answered(_, .replyKept(_, let failure))? = told.last else { return }
            let reason = failure.description
            #expect(reason.hasPrefix(refusal.words), "\(reason)")
            #expect(try await commentRequests(desktop).count == 1)
            #expect(try await desktop.readAt(row) == nil)
            let drafts = try StateDirectory(path: desktop.home.stateDirectory).loadDrafts().record.drafts
            #expect(drafts.map(\.text) == ["Kept, whatever the answer."])
            #expect(drafts.first?.reason == reason)
            let said = try await plasma.notifications().first { $0.title == "Your reply to krz/gitbay#12 was not posted" }
            #expect(said?.body.hasPrefix(refusal.words) == true, "\(said?.body ?? "not shown")")
        }
    }

    /// In a German session the notification says why in German, while the log and the kept
    /// draft keep the English.
    func aReplyKeptIsSaidInTheSessionsLanguageAndLoggedInEnglish() async throws {
        try await DaemonOnDesktop.run(environment: try await Translations.environment("de")) { desktop in
            try await desktop.standin.addItem(.issue, repo: "krz/gitbay", data: #"{"number": 12, "title": "Crash", "state": "open", "author": "alice"}"#)
            if let fault = Refusal.rateLimited.fault { try await desktop.standin.addFault(fault) }
            let (_, id) = try await desktop.show(repo: "krz/gitbay", number: 12)
            try await plasma.replyInline("Später.", on: id)
            let told = try await desktop.daemon.waitForEvent("the reply kept") { event in
                if case .answered(_, .replyKept("krz/gitbay/issues/12", _)) = event { true } else { false }
            }
            guard case .answered(_, .replyKept(_, let failure))? = told.last else { return }
            #expect(failure == .notPosted(.tooManyWrites(retryAfter: 7)))
            #expect(desktop.daemon.lines(containing: "was not posted and is kept as a draft: too many writes for now; try again in 7 s").count == 1)
            let drafts = try StateDirectory(path: desktop.home.stateDirectory).loadDrafts().record.drafts
            #expect(drafts.first?.reason == "too many writes for now; try again in 7 s")
            let shown = try await plasma.notifications()
            let said = shown.first { $0.title == "Ihre Antwort auf krz/gitbay#12 wurde nicht veröffentlicht" }
            #expect(said?.body.hasPrefix("vorerst zu viele Schreibvorgänge; versuchen Sie es in 7 s erneut. Nichts geht verloren") == true, "\(shown)")
        }
    }

    /// The instance posts the comment, and its answer is cut on the way back: the daemon reads
    /// the thread, finds the text, and says it was posted; it never sends it again.
    func aReplyWhoseAnswerIsLostAfterTheInstancePostedItIsFoundInTheThreadAndSentOnce() async throws {
        try await DaemonOnDesktop.run { desktop in
            let (row, id) = try await issueOnScreen(desktop)
            try await desktop.standin.addFault(.init(.truncate(bytes: 0), match: .init(argvPrefix: ["issue", "comment"])))
            try await plasma.replyInline("Posted, but you will not hear it from me.", on: id)
            try await said(desktop, .replied(path: "krz/gitbay/issues/12"))
            let sent = try await commentRequests(desktop)
            #expect(sent.map(\.fault) == ["truncate"])
            // No answer came: the thread was read to tell.
            let requests = try await desktop.standin.requests().compactMap(\.argv)
            #expect(requests.contains(["issue", "show", "krz/gitbay", "12"]))
            #expect(try await comments(desktop).map(\.body) == ["Posted, but you will not hear it from me."])
            #expect(try await desktop.readAt(row) != nil)
            #expect(!FileManager.default.fileExists(atPath: desktop.home.stateDirectory + "/drafts.json"))
        }
    }

    /// A reply longer than gitbay takes, typed into the popup: its `NotificationReplied` is
    /// within what the daemon's bus connection takes in, so the daemon sends nothing, keeps the
    /// text whole as a draft to be shortened, says why naming the limit, and leaves the notice
    /// unread.
    func aReplyOverGitbaysLimitReachesTheDaemonAndIsKeptNamingIt() async throws {
        try await DaemonOnDesktop.run { desktop in
            let (row, id) = try await issueOnScreen(desktop)
            let text = String(repeating: "ab", count: CommentText.maximumBytes / 2 + 700)
            try await plasma.replyInline(text, on: id)
            let told = try await desktop.daemon.waitForEvent("the reply kept") { event in
                if case .answered(_, .replyKept("krz/gitbay/issues/12", _)) = event { true } else { false }
            }
            if case .answered(_, .replyKept(_, let reason))? = told.last { #expect(reason.description.contains("(64 KiB)"), "\(reason)") }
            #expect(try await commentRequests(desktop).isEmpty)
            #expect(try await desktop.readAt(row) == nil)
            let drafts = try StateDirectory(path: desktop.home.stateDirectory).loadDrafts().record.drafts
            #expect(drafts.map(\.text) == [text])
        }
    }

    /// An archived repository refuses the comment: nothing posted, the text kept as a draft that
    /// `gbnotifyctl reply` offers again, a notification saying why, and the notice still unread.
    func aReplyTheInstanceRefusesIsKeptAsADraftAndSaidInPlainWords() async throws {
        try await DaemonOnDesktop.run { desktop in
            try await desktop.standin.addRepository("krz/gitbay", archived: true)
            let (row, id) = try await issueOnScreen(desktop)
            try await plasma.replyInline("Too late for this one?", on: id)
            let told = try await desktop.daemon.waitForEvent("the reply kept") { event in
                if case .answered(_, .replyKept("krz/gitbay/issues/12", _)) = event { true } else { false }
            }
            #expect(try await comments(desktop).isEmpty)
            #expect(try await commentRequests(desktop).map(\.status) == [403])
            #expect(try await desktop.readAt(row) == nil)
            let drafts = try StateDirectory(path: desktop.home.stateDirectory).loadDrafts().record.drafts
            #expect(drafts.map(\.text) == ["Too late for this one?"])
            #expect(drafts.map(\.path) == ["krz/gitbay/issues/12"])
            #expect(drafts.map(\.account) == [desktop.account])
            let notice = try await plasma.notifications().filter { $0.title == "Your reply to krz/gitbay#12 was not posted" }
            #expect(notice.count == 1)
            #expect(notice.first?.body.contains("gbnotifyctl reply \(desktop.account.reference) krz/gitbay/issues/12 offers it again") == true)
            if case .answered(_, .replyKept(_, let reason))? = told.last { #expect(reason.description.hasPrefix("the instance refused it")) }
        }
    }
}

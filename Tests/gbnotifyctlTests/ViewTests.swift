import DesktopSuites
import Foundation
import Glibc
import Testing
import TestSupport

/// `gbnotifyctl show` and `inbox` as a user meets them: the real view in a real terminal (tmux),
/// reading the stand-in with the account's token from the session's keyring, keys sent and the
/// screen read back. One tmux server and one stand-in for the suite.
@Suite(.serialized, .needsDesktopSession, SharedViewWorld()) struct ViewTests {
    static var world: ViewWorld {
        get throws { try #require(SharedViewWorld.current, "the suite runs in a shared view world") }
    }

    // MARK: - Drawing each kind

    @Test func anIssueIsDrawnWithItsFactsBodyAndComments() async throws {
        let world = try Self.world
        try await world.standin.addItem(.issue, repo: "krz/draw", data: ViewWorld.issue(number: 12))
        let pane = try await world.show("krz/draw/issues/12")
        let screen = try await pane.waitFor("the issue") { $0.contains(" Crash on an empty repository") }
        #expect(screen[0].hasPrefix(" krz/draw#12 · \(world.account)"))
        #expect(screen.contains { $0.hasPrefix(" issue #12 · open · by cmc · ") })
        #expect(screen.contains(" Labels: bug · Assignees: alba · Milestone: v1.33"))
        #expect(screen.contains { $0.hasPrefix(" ── 1 comment, 1 event ──") })
        #expect(screen.contains("   Reproduced on main."))
        #expect(screen.contains { $0.hasPrefix(" · alba added the label bug · ") })
        #expect(screen.last?.hasPrefix("↑↓ PgUp PgDn g G scroll · r mark read · c reply · e react · o open in browser · R reload · q quit") == true)
        try await pane.send("q")
        let exit = try await pane.waitForExit()
        #expect(exit.status == 0)
        #expect(exit.restoredTheTerminal, "\(exit)")
    }

    @Test func aMergeRequestIsDrawnWithGatesChecksAndReviews() async throws {
        let world = try Self.world
        try await world.standin.addItem(.mr, repo: "krz/draw", data: ViewWorld.mergeRequest)
        let pane = try await world.show("krz/draw/mrs/31")
        let screen = try await pane.waitFor("the merge request") { $0.contains(" Look up the default branch once per request") }
        #expect(screen.contains { $0.hasPrefix(" merge request !31 · open · draft · by alba · ") })
        #expect(screen.contains(" fix-empty-repo → main at 4f1c2a9e"))
        #expect(screen.contains(" Merge gates: ✗ 2 unmet gates"))
        #expect(screen.contains("   ✗ changes requested by noor"))
        #expect(screen.contains("   ✗ ci/lint  failure  21s"))
        #expect(screen.contains { $0.hasPrefix("   ✓ cmc approved · ") && $0.hasSuffix(" · stale: of an older head") })
        try await pane.send("q")
        #expect(try await pane.waitForExit().status == 0)
    }

    @Test func aBuildIsDrawnWithItsFailedStep() async throws {
        let world = try Self.world
        try await world.standin.addItem(.build, repo: "krz/draw", data: ViewWorld.build)
        let pane = try await world.show("krz/draw/builds/88")
        let screen = try await pane.waitFor("the build") { $0.contains(" Build #88 · test") }
        #expect(screen.contains(" build #88 · failure · main at 01234567"))
        #expect(screen.contains("   ✓ 1  go vet ./..."))
        #expect(screen.contains("   ✗ 2  go test ./..."))
        #expect(screen.contains("       failed: exit 1"))
        #expect(screen.contains("   · 3  go build  (not run)"))
        try await pane.send("q")
        #expect(try await pane.waitForExit().status == 0)
    }

    // MARK: - Keys

    @Test func theItemScrollsAndARedrawFitsANewSize() async throws {
        let world = try Self.world
        try await world.standin.addItem(.issue, repo: "krz/scroll", data: ViewWorld.issue(number: 1, comments: 40))
        let pane = try await world.show("krz/scroll/issues/1", columns: 100, rows: 20)
        var screen = try await pane.waitFor("the issue") { $0.contains(" Crash on an empty repository") }
        let total = try #require(Int(screen[0].split(separator: "/").last ?? ""), "\(screen[0])")
        #expect(screen[0].hasSuffix(" 1-18/\(total)"))
        try await pane.send("j", "j")
        screen = try await pane.waitFor("two lines down") { $0[0].hasSuffix(" 3-20/\(total)") }
        try await pane.send("NPage")
        try await pane.waitFor("a page down") { $0[0].hasSuffix(" 20-37/\(total)") }
        try await pane.send("G")
        screen = try await pane.waitFor("the end") { $0[0].hasSuffix(" \(total - 17)-\(total)/\(total)") }
        #expect(screen[18].hasPrefix("   comment 40 of 40"))
        try await pane.send("g")
        try await pane.waitFor("the top") { $0[1] == " Crash on an empty repository" }

        try await pane.resize(columns: 50, rows: 12)
        screen = try await pane.waitFor("the new size") { $0.count == 12 && $0[0].contains(" 1-10/") }
        #expect(screen.allSatisfy { $0.count <= 50 })
        #expect(screen.contains(" Running `issue list` in a repository with no"))
        try await pane.send("q")
        #expect(try await pane.waitForExit().restoredTheTerminal)
    }

    @Test func rMarksTheItemsRowsReadOnItsInstance() async throws {
        let world = try Self.world
        try await world.standin.addItem(.issue, repo: "krz/read", data: ViewWorld.issue(number: 5))
        let first = try await world.standin.addNotification(for: "cmc", repo: "krz/read", path: "krz/read/issues/5")
        let second = try await world.standin.addNotification(for: "cmc", repo: "krz/read", path: "krz/read/issues/5")
        let other = try await world.standin.addNotification(for: "cmc", repo: "krz/read", path: "krz/read/issues/6")
        let pane = try await world.show("krz/read/issues/5")
        try await pane.waitFor("the issue") { $0.contains(" Crash on an empty repository") }
        // The suite's other tests leave rows of their own read: what counts is what `r` marks.
        let readBefore = Set(try await world.standin.state().notifications.filter { $0.readAt != nil }.map(\.id))
        try await pane.send("r")
        try await pane.waitFor("the rows marked") { $0.last?.hasPrefix("Marked 2 notices of krz/read#5 read") == true }
        let rows = try await world.standin.state().notifications
        #expect(rows.filter { $0.readAt != nil && !readBefore.contains($0.id) }.map(\.id).sorted() == [first, second])
        #expect(rows.first { $0.id == other }?.readAt == nil)
        try await pane.send("r")
        try await pane.waitFor("nothing left") { $0.last?.hasPrefix("Nothing unread for krz/read#5") == true }
        try await pane.send("q")
        #expect(try await pane.waitForExit().status == 0)
    }

    /// `+` reacts +1 on the item with the account's token, the item read again shows it given,
    /// and `+` again takes it back.
    @Test func plusReactsThumbsUpAndTakesItBack() async throws {
        let world = try Self.world
        // Three +1 of others, none of cmc's.
        let data = ViewWorld.issue(number: 4).replacingOccurrences(
            of: #"{"count":3,"me":true,"reaction":"+1"}"#, with: #"{"count":3,"me":false,"reaction":"+1"}"#)
        try await world.standin.addItem(.issue, repo: "krz/react", data: data)
        let pane = try await world.show("krz/react/issues/4")
        try await pane.waitFor("the issue") { $0.contains { $0.contains("+1 ×3") && !$0.contains("(you)") } }
        try await pane.send("+")
        try await pane.waitFor("the reaction given and the item read again") {
            $0.last?.hasPrefix("Reacted +1 on krz/react#4") == true && $0.contains { $0.contains("+1 ×4 (you)") }
        }
        try await pane.send("+")
        try await pane.waitFor("the reaction taken back and the item read again") {
            $0.last?.hasPrefix("Took back +1 on krz/react#4") == true && $0.contains { $0.contains("+1 ×3") && !$0.contains("(you)") }
        }
        let reacts = try await world.standin.requests().compactMap(\.argv).filter { $0.starts(with: ["issue", "react", "krz/react"]) }
        #expect(reacts == [["issue", "react", "krz/react", "4", "+1"], ["issue", "react", "krz/react", "4", "+1", "--remove"]])
        try await pane.send("q")
        #expect(try await pane.waitForExit().status == 0)
    }

    @Test func oOpensTheItemInTheBrowserTheWayAClickDoes() async throws {
        let world = try Self.world
        try await world.standin.addItem(.build, repo: "krz/open", data: ViewWorld.build)
        // The token a desktop handed the terminal is spent: the browser does not get it.
        var environment = world.environment()
        environment["XDG_ACTIVATION_TOKEN"] = "spent-on-the-terminal"
        let pane = try await world.tmux.run([Ctl.executable, "show", world.account, "krz/open/builds/88"], environment: environment)
        try await pane.waitFor("the build") { $0.contains(" Build #88 · test") }
        try await pane.send("o")
        let url = "\(world.standin.url)/krz/open/builds/88"
        #expect(try await world.browser.nextLaunch() == OpenerStub.Launch(arguments: [url], activationToken: ""))
        try await pane.waitFor("the browser opened") { $0.last?.hasPrefix("Opened \(url) in the browser") == true }
        try await pane.send("q")
        #expect(try await pane.waitForExit().status == 0)
    }

    @Test func ctrlCQuitsWith130AndRestoresTheTerminal() async throws {
        let world = try Self.world
        try await world.standin.addItem(.build, repo: "krz/ctrlc", data: ViewWorld.build)
        let pane = try await world.show("krz/ctrlc/builds/88")
        try await pane.waitFor("the build") { $0.contains(" Build #88 · test") }
        try await pane.send("C-c")
        let exit = try await pane.waitForExit()
        #expect(exit.status == 130)
        #expect(exit.restoredTheTerminal, "\(exit)")
    }

    @Test func aSignalEndsTheViewWithTheTerminalRestored() async throws {
        let world = try Self.world
        let pane = try await world.show("krz/signal/builds/1")
        try await pane.waitFor("the error screen") { $0.contains(" ✗ No such repository") }
        let pid = try await world.viewPID(pane)
        kill(pid, SIGTERM)
        let exit = try await pane.waitForExit()
        #expect(exit.status == 128 + SIGTERM)
        #expect(exit.restoredTheTerminal, "\(exit)")
    }

    /// The view holds its account's token for as long as it runs (issue 24): gbnotifyctl makes
    /// itself undumpable first thing, as the daemon does. Seen from outside, while `show` is on
    /// screen: its soft core limit is 0, though it was started with none, and a process of the
    /// same user without capabilities cannot read its /proc/PID/environ, though it reads a
    /// bystander's. On cdd6bf3 the limit stayed unlimited and the environment was readable.
    @Test func theViewCannotBeDumpedOrReadByOtherProcessesOfTheUser() async throws {
        let world = try Self.world
        try await world.standin.addItem(.build, repo: "krz/dump", data: ViewWorld.build)
        // As root, both sides without capabilities, as a user's processes are: root's
        // CAP_SYS_PTRACE would read anything, and a process holding capabilities the reader
        // lacks is closed to it whatever it does. The bystander is started by the capless shell.
        let capless = geteuid() == 0 ? ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--"] : []
        let pane = try await world.tmux.run(
            capless + ["sh", "-c", #"ulimit -c unlimited && exec "$0" "$@""#, Ctl.executable, "show", world.account, "krz/dump/builds/88"],
            environment: world.environment())
        try await pane.waitFor("the build") { $0.contains(" Build #88 · test") }
        let pid = try await world.viewPID(pane)
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let core = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") })
        // "Max core file size  SOFT  HARD  bytes"
        #expect(core.split(separator: " ").dropFirst(4).first == "0", "\(core)")
        let bystander = try await Program.run(
            capless + ["sh", "-c", "sleep 60 & cat /proc/$!/environ; status=$?; kill $!; exit $status"],
            environment: world.processEnvironment())
        #expect(bystander.status == 0 && bystander.stdout.contains("XDG_CONFIG_HOME="), "\(bystander.stderr)")
        let view = try await Program.run(capless + ["cat", "/proc/\(pid)/environ"], environment: world.processEnvironment())
        #expect(view.status != 0)
        #expect(view.stderr.contains("Permission denied"), "\(view.stderr)")
        try await pane.send("q")
        #expect(try await pane.waitForExit().status == 0)
    }

    @Test func aLostTerminalEndsTheView() async throws {
        let world = try Self.world
        try await world.standin.addItem(.build, repo: "krz/lost", data: ViewWorld.build)
        let pane = try await world.show("krz/lost/builds/88")
        try await pane.waitFor("the build") { $0.contains(" Build #88 · test") }
        let pid = try await world.viewPID(pane)
        try await pane.kill()
        // No terminal is left to restore; the program must end rather than spin or hang.
        #expect(try await pane.waitForExit().status == 128 + SIGHUP)
        #expect(kill(pid, 0) == -1)
    }

    // MARK: - Errors are drawn and wait

    @Test(arguments: ErrorCase.allCases)
    func errorsAreDrawnAndWaitForQ(_ errorCase: ErrorCase) async throws {
        let world = try Self.world
        try await world.standin.addItem(.issue, repo: "krz/errors", data: ViewWorld.issue(number: 1))
        try await world.standin.addRepository("krz/private", readers: ["alice"])
        try await world.standin.addItem(.issue, repo: "krz/private", data: ViewWorld.issue(number: 1))
        let (pane, expected): (Pane, [String])
        switch errorCase {
        case .noSuchItem:
            pane = try await world.show("krz/errors/issues/404")
            expected = [" ✗ No such item", " issue #404 not found in krz/errors"]
        case .noAccessToRepository:
            pane = try await world.show("krz/private/issues/1")
            expected = [" ✗ No such repository", " repository krz/private not found (gitbay says the same of a repository"]
        case .disabledAccount:
            let disabled = try await world.freshAccount()
            try await world.standin.setStatus(of: disabled.user, .disabled)
            pane = try await world.show("krz/errors/issues/1", account: disabled.name)
            let host = disabled.name.split(separator: "@")[1]
            expected = [" ✗ No access", " \(host) refused \(disabled.name): this account is disabled;"]
        case .tokenRevoked:
            pane = try await world.show("krz/errors/issues/1", account: world.revokedAccount)
            expected = [" ✗ Token rejected", " What to do: mint a new token with your SSH key and store it: gbnotifyctl account add"]
        case .instanceDown:
            pane = try await world.show("krz/x/issues/1", account: world.downAccount)
            expected = [" ✗ Cannot reach 127.0.0.1:\(world.downPort)", " \(world.downURL): "]
        case .noSuchAccount:
            pane = try await world.show("krz/errors/issues/1", account: "nobody@example.org")
            expected = [" ✗ No such account", " there is no account nobody@example.org; 'gbnotifyctl account list' shows"]
        }
        // Only an account that is not there leaves nothing to open. (tmux may capture a frame
        // half drawn, its body new and its footer not yet: the wait is for the whole frame.)
        let hint = errorCase == .noSuchAccount ? "R reload · q quit" : "R reload · o open in browser · q quit"
        try await pane.waitFor("the error, with the footer \"\(hint)\"") { screen in
            expected.allSatisfy { line in screen.contains { $0.hasPrefix(line) } } && screen.last?.hasPrefix(hint) == true
        }
        // It stays: R asks again and the answer is drawn again; only q ends it.
        try await pane.send("R")
        try await pane.waitFor("the error again") { screen in expected.allSatisfy { line in screen.contains { $0.hasPrefix(line) } } && !screen.last!.hasPrefix("Reloading") }
        try await pane.send("q")
        let exit = try await pane.waitForExit()
        #expect(exit.status == 0)
        #expect(exit.restoredTheTerminal)
    }

    enum ErrorCase: CaseIterable, Sendable {
        case noSuchItem, noAccessToRepository, disabledAccount, tokenRevoked, instanceDown, noSuchAccount
    }

    // MARK: - The inbox

    @Test func theInboxOpensARowAndComesBack() async throws {
        let world = try Self.world
        let account = try await world.freshAccount()
        try await account.standin.addItem(.issue, repo: "krz/inbox", data: ViewWorld.issue(number: 7))
        try await account.standin.addNotification(for: account.user, repo: "krz/inbox", actor: "noor", summary: "opened issue #7", path: "krz/inbox/issues/7")
        try await account.standin.addNotification(for: account.user, repo: "krz/inbox", kind: "build", actor: "ci", summary: "build #3 failed", path: "krz/inbox/builds/3")
        let pane = try await world.tmux.run([Ctl.executable, "inbox", account.name], environment: world.environment(), columns: 100, rows: 20)
        var screen = try await pane.waitFor("the inbox") { $0.contains { $0.hasPrefix(" \(account.name) · 2 unread") } }
        #expect(screen[0].hasPrefix(" Inbox · 2 unread · \(account.name)"))
        #expect(screen[2].hasPrefix("   build krz/inbox#3  ci build #3 failed"))
        #expect(screen[3].hasPrefix("   issue krz/inbox#7  noor opened issue #7"))
        try await pane.send("j", "Enter")
        screen = try await pane.waitFor("the issue") { $0.contains(" Crash on an empty repository") }
        #expect(screen.last?.hasSuffix("R reload · q back") == true)
        try await pane.send("r")
        try await pane.waitFor("marked read") { $0.last?.hasPrefix("Marked 1 notice of krz/inbox#7 read") == true }
        try await pane.send("Escape")
        // Back in the inbox, read again: the row read is gone.
        screen = try await pane.waitFor("the inbox again") { $0.contains { $0.hasPrefix(" \(account.name) · 1 unread") } }
        #expect(screen[2].hasPrefix("   build krz/inbox#3"))
        try await pane.send("o")
        #expect(try await world.browser.nextLaunch().arguments == ["\(account.standin.url)/krz/inbox/builds/3"])
        try await pane.send("q")
        #expect(try await pane.waitForExit().status == 0)
    }

    // MARK: - Colours, plain text, JSON

    @Test func noColorDrawsWithoutColoursButKeepsTheSelection() async throws {
        let world = try Self.world
        let account = try await world.freshAccount()
        try await account.standin.addNotification(for: account.user, repo: "krz/colour", kind: "mr", path: "krz/colour/mrs/1")
        for noColor in ["", "1"] {
            let pane = try await world.tmux.run(
                [Ctl.executable, "inbox", account.name], environment: world.environment(noColor: noColor), columns: 100, rows: 10)
            try await pane.waitFor("the inbox") { $0.contains { $0.hasPrefix(" \(account.name) · 1 unread") } }
            let screen = try await pane.capture(escapes: true)
            let colours = ["\u{1B}[31m", "\u{1B}[32m", "\u{1B}[33m", "\u{1B}[34m", "\u{1B}[35m", "\u{1B}[36m", "\u{1B}[90m"]
            let coloured = colours.contains { screen.contains($0) }
            #expect(coloured == noColor.isEmpty, "NO_COLOR=\(noColor): \(screen.debugDescription)")
            #expect(screen.contains("\u{1B}[7m"), "the selection is reverse video either way")
            try await pane.send("q")
            #expect(try await pane.waitForExit().status == 0)
        }
    }

    @Test func withoutATerminalThePlainTextHasNoEscapeSequences() async throws {
        let world = try Self.world
        try await world.standin.addItem(.mr, repo: "krz/plain", data: ViewWorld.mergeRequest)
        try await world.standin.addNotification(for: "cmc", repo: "krz/plain", kind: "mr", actor: "alba", summary: "opened merge request #31", path: "krz/plain/mrs/31")
        var environment = world.processEnvironment()
        environment["COLUMNS"] = "60"
        let show = try await Program.run([Ctl.executable, "show", world.account, "krz/plain/mrs/31"], environment: environment)
        #expect(show.status == 0, "\(show.stderr)")
        #expect(!show.stdout.contains("\u{1B}"))
        let lines = show.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "Look up the default branch once per request")
        #expect(lines.contains("Merge gates: ✗ 2 unmet gates"))
        #expect(lines.allSatisfy { $0.count <= 60 })
        let inbox = try await Program.run([Ctl.executable, "inbox", world.account], environment: environment)
        #expect(inbox.status == 0, "\(inbox.stderr)")
        #expect(!inbox.stdout.contains("\u{1B}"))
        #expect(inbox.stdout.contains("  mr    krz/plain!31"))
        // An error goes to standard error, with status 1.
        let missing = try await Program.run([Ctl.executable, "show", world.account, "krz/plain/mrs/99"], environment: environment)
        #expect(missing.status == 1)
        #expect(missing.stdout.isEmpty)
        #expect(missing.stderr == "gbnotifyctl: no such item: MR !99 not found in krz/plain\n")
    }

    @Test func jsonIsTheDataAsTheAPIGaveIt() async throws {
        let world = try Self.world
        try await world.standin.addItem(.build, repo: "krz/json", data: ViewWorld.build)
        let run = try await Program.run([Ctl.executable, "show", world.account, "krz/json/builds/88", "--json"], environment: world.processEnvironment())
        #expect(run.status == 0, "\(run.stderr)")
        let printed = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? NSDictionary
        let seeded = try JSONSerialization.jsonObject(with: Data(ViewWorld.build.utf8)) as? NSDictionary
        #expect(printed == seeded)
        #expect(run.stdout.hasPrefix(#"{"created_at":"2026-09-20T11:00:00.000Z","duration_s":72,"#))

        let inbox = try await Program.run([Ctl.executable, "inbox", world.downAccount, "--json"], environment: world.processEnvironment())
        #expect(inbox.status == 1)
        #expect(inbox.stdout.hasPrefix(#"[{"account":"\#(world.downAccount)","instance":"\#(world.downURL)","error":"cannot reach"#))
    }
}

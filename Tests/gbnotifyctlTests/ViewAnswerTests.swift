import Foundation
import PushCore
import Testing
import TestSupport

/// The view's answers in a real terminal: `c` writes a reply in the user's editor (a script
/// here, run on the view's own terminal) and posts it once; a reply that cannot be posted is
/// kept and offered again; `show --reply` opens the editor at once; `e` picks a reaction.
extension ViewTests {
    /// An editor script that runs `body` with the file as $1, a state directory and TMPDIR of
    /// the test's own: the view's environment with it.
    static func editing(_ body: String, in world: ViewWorld) throws -> (environment: [String: String], directory: URL) {
        let directory = world.directory.appendingPathComponent("editing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        let script = directory.appendingPathComponent("editor")
        try "#!/bin/sh\nset -e\n\(body)\n".write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: script.path)
        let environment = world.environment().merging([
            "VISUAL": script.path, "EDITOR": "false", "TMPDIR": directory.appendingPathComponent("tmp").path,
            "XDG_STATE_HOME": directory.appendingPathComponent("state").path,
        ]) { $1 }
        return (environment, directory)
    }

    static func commentRequests(_ world: ViewWorld, repo: String) async throws -> Int {
        try await world.standin.requests().count { $0.argv?.starts(with: ["issue", "comment", repo]) == true }
    }

    /// ^C, ^\ and ^Z sent while the editor runs are the editor's: the view neither ends nor
    /// stops, and posts what the editor wrote, once; the thread read again shows it.
    @Test func cRepliesInTheEditorAndIgnoresTheEditorsSignals() async throws {
        let world = try Self.world
        try await world.standin.addItem(.issue, repo: "krz/reply", data: ViewWorld.issue(number: 4))
        let (environment, directory) = try Self.editing(
            #"trap '' INT QUIT TSTP; kill -INT $PPID; kill -QUIT $PPID; kill -TSTP $PPID; printf 'From the view.\n# not sent\n' > "$1""#,
            in: world)
        let pane = try await world.tmux.run([Ctl.executable, "show", world.account, "krz/reply/issues/4"], environment: environment)
        try await pane.waitFor("the issue") { $0.contains { $0.contains("c reply") } }
        try await pane.send("c")
        let screen = try await pane.waitFor("the reply posted and the thread read again") {
            $0.last?.hasPrefix("Replied to krz/reply#4 as \(world.account).") == true && $0.contains { $0.contains("From the view.") }
        }
        #expect(!screen.contains { $0.contains("not sent") })
        #expect(try await Self.commentRequests(world, repo: "krz/reply") == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("tmp").path).isEmpty)
        try await pane.send("q")
        let exit = try await pane.waitForExit()
        #expect(exit.status == 0)
        #expect(exit.restoredTheTerminal, "\(exit)")
    }

    /// An archived repository refuses the reply: it is kept as a draft, said in the status
    /// line, offered when the item is shown again, and the editor starts from it.
    @Test func aReplyThatCannotBePostedIsKeptAndOfferedAgain() async throws {
        let world = try Self.world
        try await world.standin.addRepository("krz/archived", archived: true)
        try await world.standin.addItem(.issue, repo: "krz/archived", data: ViewWorld.issue(number: 4))
        let (environment, directory) = try Self.editing(
            #"{ cat "$1"; echo ----; } >> "$(dirname "$TMPDIR")/seen"; printf 'Kept text.\n' > "$1""#, in: world)
        let pane = try await world.tmux.run(
            [Ctl.executable, "show", world.account, "krz/archived/issues/4"], environment: environment, columns: 220)
        try await pane.waitFor("the issue") { $0.contains { $0.contains("c reply") } }
        try await pane.send("c")
        try await pane.waitFor("the refusal and the draft kept") {
            $0.last?.hasPrefix("Not posted to krz/archived#4: the instance refused it (repository krz/archived is archived); the reply is kept as a draft") == true
        }
        let drafts = try JSONDecoder().decode(
            DraftRecord.self, from: Data(contentsOf: directory.appendingPathComponent("state/gbnotifyd/drafts.json")))
        #expect(drafts.drafts.map(\.text) == ["Kept text."])

        try await pane.send("R")
        try await pane.waitFor("the draft offered") { $0.last?.hasPrefix("Your reply could not be posted (") == true }
        try await pane.send("c")
        try await pane.waitFor("refused again") { $0.last?.hasPrefix("Not posted to krz/archived#4") == true }
        let seen = try String(contentsOf: directory.appendingPathComponent("seen"), encoding: .utf8).components(separatedBy: "----\n")
        #expect(seen.count == 3)
        #expect(seen.first?.hasPrefix("\n\n# Your reply to krz/archived#4") == true, "\(seen)")
        #expect(seen.dropFirst().first?.hasPrefix("Kept text.\n") == true, "\(seen)")
        #expect(try await Self.commentRequests(world, repo: "krz/archived") == 2)
        try await pane.send("q")
        #expect(try await pane.waitForExit().status == 0)
    }

    /// A reply kept as a draft (not posted) marks its item's row in the inbox, and not the others.
    @Test func theInboxMarksTheRowOfAnItemWhoseReplyIsKept() async throws {
        let world = try Self.world
        let account = try await world.freshAccount()
        try await world.standin.addRepository("krz/kept", archived: true)
        try await world.standin.addItem(.issue, repo: "krz/kept", data: ViewWorld.issue(number: 4))
        try await world.standin.addNotification(for: account.user, repo: "krz/kept", actor: "noor", summary: "opened issue #4", path: "krz/kept/issues/4")
        try await world.standin.addNotification(for: account.user, repo: "krz/kept", actor: "noor", summary: "opened issue #5", path: "krz/kept/issues/5")
        let (environment, _) = try Self.editing("false", in: world)
        // Where the view runs (the tests' keyring is the tmux server's session's).
        let refused = try await world.tmux.run(
            [Ctl.executable, "reply", account.name, "krz/kept/issues/4", "--message", "Kept for later."], environment: environment)
        try await refused.waitFor("the draft kept") { $0.contains { $0.contains("kept as a draft") } }
        #expect(try await refused.waitForExit().status != 0)
        let pane = try await world.tmux.run([Ctl.executable, "inbox", account.name], environment: environment, columns: 100, rows: 20)
        let screen = try await pane.waitFor("the inbox") { $0.contains { $0.hasPrefix(" \(account.name) · 2 unread") } }
        #expect(screen[2].hasPrefix("   issue krz/kept#5  noor opened issue #5"), "\(screen)")
        #expect(screen[3].hasPrefix("   issue krz/kept#4  reply kept  noor opened issue #4"), "\(screen)")
        try await pane.send("q")
        #expect(try await pane.waitForExit().status == 0)
    }

    /// `show --reply`, as a notification's "Reply…" runs it: the editor opens once the item is
    /// read, and the view stays after the reply.
    @Test func showReplyOpensTheEditorAtOnce() async throws {
        let world = try Self.world
        try await world.standin.addItem(.issue, repo: "krz/at-once", data: ViewWorld.issue(number: 4))
        let (environment, _) = try Self.editing(#"printf 'At once.\n' > "$1""#, in: world)
        let pane = try await world.tmux.run(
            [Ctl.executable, "show", "--reply", world.account, "krz/at-once/issues/4"], environment: environment)
        try await pane.waitFor("the reply posted") { $0.last?.hasPrefix("Replied to krz/at-once#4 as \(world.account).") == true }
        #expect(try await Self.commentRequests(world, repo: "krz/at-once") == 1)
        try await pane.send("q")
        #expect(try await pane.waitForExit().status == 0)
    }

    /// `e` opens the picker of the instance's reactions; a digit sets one, and the same digit
    /// again takes it back.
    @Test func ePicksAnyReactionAndTakesItBack() async throws {
        let world = try Self.world
        try await world.standin.addItem(.issue, repo: "krz/pick", data: ViewWorld.issue(number: 4))
        let pane = try await world.show("krz/pick/issues/4")
        try await pane.waitFor("the issue") { $0.contains { $0.contains("e react") } }
        try await pane.send("e")
        try await pane.waitFor("the picker") { $0.contains { $0.hasPrefix(" React to krz/pick#4:") } && $0.contains { $0.hasPrefix("   8  eyes") } }
        try await pane.send("7")
        try await pane.waitFor("rocket given and the item read again") {
            $0.last?.hasPrefix("Reacted rocket on krz/pick#4") == true && $0.contains { $0.contains("rocket ×1 (you)") }
        }
        try await pane.send("e")
        try await pane.waitFor("the picker, rocket the account's") { $0.contains { $0.contains("7  rocket    ×1 (you: 7 takes it back)") } }
        try await pane.send("7")
        try await pane.waitFor("rocket taken back") { $0.last?.hasPrefix("Took back rocket on krz/pick#4") == true }
        let reacts = try await world.standin.requests().compactMap(\.argv).filter { $0.starts(with: ["issue", "react", "krz/pick"]) }
        #expect(reacts == [["issue", "react", "krz/pick", "4", "rocket"], ["issue", "react", "krz/pick", "4", "rocket", "--remove"]])
        try await pane.send("q")
        #expect(try await pane.waitForExit().status == 0)
    }
}

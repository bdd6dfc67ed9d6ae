import Foundation
import Glibc
import PushCore
import TestSupport
import Testing

/// "👍" from the popup on the real desktop stage, through dunst (whose menu holds every button)
/// and the stand-in: the reaction on the notice's own instance, the notice marked read, what
/// happened said with Undo, and Undo taking the reaction back.
extension DesktopTests {
    static func reactionRequests(_ standin: Standin) async throws -> [Standin.LoggedRequest] {
        try await standin.requests().filter { $0.argv?.starts(with: ["issue", "react"]) == true }
    }

    @Test func thumbsUpReactsOnTheInstanceMarksTheNoticeReadAndUndoTakesItBack() async throws {
        try await Self.run { world in
            try await world.standin.addItem(.issue, repo: "krz/gitbay", data: #"{"number": 12, "title": "Crash", "state": "open", "author": "alice"}"#)
            let before = try await Self.newestShown()
            let row = try await world.show()
            try await Dunst.choose(NotificationContent.reactAction)
            try await world.harness.waitForEvents("the reaction told") {
                $0 == .answered(world.account, .reacted(path: "krz/gitbay/issues/12", reaction: "+1"))
            }
            let reacted = try await Self.reactionRequests(world.standin)
            #expect(reacted.map(\.argv) == [["issue", "react", "krz/gitbay", "12", "+1"]])
            #expect(reacted.map(\.status) == [200])
            #expect(try await world.standin.state().notifications.first { $0.id == row }?.readAt != nil)

            try await world.harness.waitForEvents("Reacted 👍 shown") { event in
                if case .shown(_, .said(.reacted, _), _, _) = event { true } else { false }
            }
            try await Dunst.choose(NotificationContent.undoAction)
            try await world.harness.waitForEvents("the reaction taken back") {
                $0 == .reactionTakenBack(world.account, path: "krz/gitbay/issues/12", reaction: "+1")
            }
            let all = try await Self.reactionRequests(world.standin)
            #expect(all.map(\.argv) == [["issue", "react", "krz/gitbay", "12", "+1"], ["issue", "react", "krz/gitbay", "12", "+1", "--remove"]])
            #expect(all.map(\.status) == [200, 200])
            #expect(try await Self.shown(after: before) == ["Reacted 👍 to krz/gitbay#12", "krz/gitbay"])
        }
    }

    /// An item the account may not see: the reaction is refused, nothing is marked read, and a
    /// notification says why until dismissed.
    @Test func aReactionTheInstanceRefusesIsSaidAndTheNoticeStaysUnread() async throws {
        try await Self.run { world in
            let before = try await Self.newestShown()
            let row = try await world.show(repo: "krz/gone", path: "krz/gone/issues/4")
            try await Dunst.choose(NotificationContent.reactAction)
            let told = try await world.harness.waitForEvents("the failure told") { event in
                if case .answered(_, .reactionFailed("krz/gone/issues/4", "+1", _)) = event { true } else { false }
            }
            if case .answered(_, .reactionFailed(_, _, let reason))? = told.last {
                #expect(reason.description.hasPrefix("no such item, or one this account may not read"))
            }
            #expect(try await world.standin.state().notifications.first { $0.id == row }?.readAt == nil)
            #expect(try await Self.reactionRequests(world.standin).map(\.status) == [404])
            try await world.harness.waitForEvents("the failure shown") { event in
                if case .shown(_, .said(.reactionFailed, _), _, _) = event { true } else { false }
            }
            #expect(try await Self.shown(after: before) == ["Could not react 👍 to krz/gone#4", "krz/gone"])
        }
    }
}

/// "Reply…" on dunst, which has no text field: the item's terminal view in the user's terminal
/// (tmux here), the text written in the editor (a script) as soon as the item is shown, posted
/// once on the notice's instance; q then leaves the view.
extension DesktopTests {
    @Test func replyOpensTheReplyInTheTerminalWithTheEditorAndPostsItOnce() async throws {
        let tmux = try await Tmux.start()
        let editorScript = try EditorScript()
        defer { editorScript.remove() }
        let terminal = editorScript.file("terminal")
        let editor = editorScript.path
        let pane = try tmux.terminal(at: terminal)
        let config = try Config.parse("terminal = \(terminal) env VISUAL=\(editor)\n")
        do {
            try await Self.run(startConfig: config) { world in
                try await world.standin.addItem(.issue, repo: "krz/gitbay", data: Self.issue(12, "Crash"))
                try await world.show()
                try await Dunst.choose(NotificationContent.replyAction)
                try await pane.waitFor("the view to say the reply was posted") { screen in
                    screen.contains { $0.contains("Replied to krz/gitbay#12") }
                }
                try await pane.send("q")
                #expect(try await pane.waitForExit().status == 0)
                #expect(try pane.arguments() == [
                    "env", "VISUAL=\(editor)", Program.built("gbnotifyctl"), "show", "--reply", world.account.reference,
                    "krz/gitbay/issues/12",
                ])
                let comments = try await world.standin.requests().filter { $0.argv?.starts(with: ["issue", "comment"]) == true }
                #expect(comments.map(\.stdin) == [EditorScript.reply])
                #expect(comments.map(\.status) == [200])
            }
        } catch {
            await tmux.stop()
            throw error
        }
        await tmux.stop()
    }
}

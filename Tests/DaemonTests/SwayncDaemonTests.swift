import DBus
import DesktopSuites
import Foundation
import Glibc
import PushCore
import TestSupport
import Testing

/// The real gbnotifyd on swaync 0.11 (Debian 13's, on its sway), which advertises `inline-reply`
/// and, with `notification-inline-replies` in its config (the rig's; off by default), draws a
/// text field on the popup: the field is written into and sent through its own widgets over
/// AT-SPI (`OnScreen.reply`), so the `NotificationReplied` is swaync's own. sway here has no
/// input devices, and a virtual keyboard or pointer (wtype, wlrctl) lives only as long as its
/// command: the popup's layer surface takes the keyboard only on a click (on-demand), and a
/// pointer made for one click is gone before swaync has bound it.
@Suite(.serialized, .desktop(.swaync, release: .debian13, installing: .gbnotify))
struct Swaync011DaemonTests {
    let screen: OnScreen

    init() throws {
        screen = OnScreen(try SharedDesktop.session())
    }

    @Test func aReplyWrittenIntoSwayncsFieldIsPostedOnceTheNoticeReadAndItIsSaid() async throws {
        try await SwayncChecks.inlineReplies(true, on: screen.session)
        try await DaemonOnDesktop.run { desktop in
            #expect(try await SwayncChecks.capabilities(desktop).contains(NotificationCapabilities.inlineReplyName))
            let monitor = try await BusMonitor(on: desktop.session)
            defer { Task { await monitor.stop() } }
            let (row, id) = try await SwayncChecks.issueOnScreen(desktop)
            let popup = try await screen.waitForPopup(titled: "krz/gitbay")
            #expect(popup.replyArea != nil, "no reply field: \(popup)")
            // The field's own button, named by the action, then the other answers, Reply… among
            // them: swaync draws the field only when its config asks (SwayncChecks.inlineReplies).
            #expect(popup.buttons.map(\.label).filter { !$0.isEmpty } == ["Reply", "Mark read", "Reply…", "👍", "Mute"])

            let text = "Looks good to me — sent from swaync."
            try await screen.reply(text, onPopupTitled: "krz/gitbay")
            try await desktop.daemon.waitForEvent("the reply told") {
                $0 == .answered(desktop.account, .replied(path: "krz/gitbay/issues/12"))
            }
            let swaync = try #require(try await desktop.session.owner())
            #expect(swaync.executable.hasSuffix("/swaync"))
            let seen = try await monitor.wait(for: "swaync's NotificationReplied") { !$0.named("NotificationReplied").isEmpty }
            #expect(seen.named("NotificationReplied").map(\.sender) == [swaync.uniqueName])
            #expect(seen.named("NotificationReplied").map(\.firstUInt32) == [id])
            // What swaync was handed: the field's action and the placeholder naming the item.
            let notify = try #require(seen.named("Notify").first { $0.strings.contains("krz/gitbay") })
            #expect(notify.strings.contains(NotificationContent.inlineReplyAction))
            #expect(notify.strings.contains(NotificationContent.replyAction))
            #expect(notify.value(after: "x-kde-reply-placeholder-text") == "Reply to krz/gitbay#12")

            let comments = try await SwayncChecks.commentRequests(desktop)
            #expect(comments.map(\.argv) == [["issue", "comment", "krz/gitbay", "12", "--file", "-"]])
            #expect(comments.map(\.stdin) == [text])
            #expect(try await desktop.readAt(row) != nil)
            // Said for 10 s, which swaync honours: the daemon's word that it was shown.
            try await desktop.daemon.waitForEvent("Replied shown") { event in
                if case .shown(_, .said(.replied(path: "krz/gitbay/issues/12"), _), _, _) = event { true } else { false }
            }
        }
    }
}

extension Swaync011DaemonTests {
    /// As Debian 13 packages it, swaync advertises `inline-reply` but draws no field, nor any
    /// button for that action: Reply… is the one way to reply there, and it is on the popup.
    @Test func whereSwayncDrawsNoFieldReplyIsStillOnThePopup() async throws {
        try await SwayncChecks.inlineReplies(false, on: screen.session)
        try await DaemonOnDesktop.run { desktop in
            #expect(try await SwayncChecks.capabilities(desktop).contains(NotificationCapabilities.inlineReplyName))
            try await SwayncChecks.issueOnScreen(desktop)
            let popup = try await screen.waitForPopup(titled: "krz/gitbay")
            #expect(popup.replyArea == nil)
            #expect(popup.buttons.map(\.label).filter { !$0.isEmpty } == ["Mark read", "Reply…", "👍", "Mute"])
        }
    }
}

/// The real gbnotifyd on swaync 0.7.3 (Debian 12's, on its sway), which has no `inline-reply`:
/// Reply… is a button there, as on dunst, beside every other answer (swaync draws every action
/// as a button), and opens the item's view in the terminal with the editor.
@Suite(.serialized, .desktop(.swaync, installing: .gbnotify))
struct SwayncDaemonTests {
    let screen: OnScreen

    init() throws {
        screen = OnScreen(try SharedDesktop.session())
    }

    @Test func withoutAFieldReplyIsAButtonAndEveryAnswerShows() async throws {
        try await DaemonOnDesktop.run { desktop in
            #expect(!(try await SwayncChecks.capabilities(desktop).contains(NotificationCapabilities.inlineReplyName)))
            try await SwayncChecks.issueOnScreen(desktop)
            let popup = try await screen.waitForPopup(titled: "krz/gitbay")
            #expect(popup.replyArea == nil)
            // Every button of the default order, each drawn whole within the popup.
            let answers = popup.buttons.filter { !$0.label.isEmpty }
            #expect(answers.map(\.label) == ["Mark read", "Reply…", "👍", "Mute"])
            for button in answers {
                #expect(button.area.width > 0 && button.area.x >= popup.area.x
                    && button.area.x + button.area.width <= popup.area.x + popup.area.width, "\(button) in \(popup.area)")
            }
        }
    }

    @Test func replyOpensTheViewInTheTerminalWithTheEditorAndPostsItOnce() async throws {
        let tmux = try await Tmux.start()
        let editorScript = try EditorScript()
        defer { editorScript.remove() }
        let terminal = editorScript.file("terminal")
        let editor = editorScript.path
        let launched = editorScript.file("launched")
        // A pane's program gets the tmux server's environment, not its launcher's: the terminal
        // records what the daemon launched and hands on the daemon's config, state and bus (the
        // account's keyring), as a terminal emulator hands on its own environment.
        let pane = try tmux.terminal(at: editorScript.file("tmux-terminal"))
        try """
            #!/bin/sh
            printf '%s\\n' "$@" > '\(launched)'
            exec '\(editorScript.file("tmux-terminal"))' env XDG_CONFIG_HOME="$XDG_CONFIG_HOME" \\
                XDG_STATE_HOME="$XDG_STATE_HOME" DBUS_SESSION_BUS_ADDRESS="$DBUS_SESSION_BUS_ADDRESS" "$@"

            """.write(toFile: terminal, atomically: true, encoding: .utf8)
        chmod(terminal, 0o755)
        do {
            try await DaemonOnDesktop.run(config: "poll-interval = 3600\nterminal = \(terminal) env VISUAL=\(editor)\n") { desktop in
                try await SwayncChecks.issueOnScreen(desktop)
                try await screen.waitForPopup(titled: "krz/gitbay")
                try await screen.pressButton("Reply…", onPopupTitled: "krz/gitbay")
                try await pane.waitFor("the view to say the reply was posted") { screen in
                    screen.contains { $0.contains("Replied to krz/gitbay#12") }
                }
                try await pane.send("q")
                #expect(try await pane.waitForExit().status == 0)
                #expect(try String(contentsOfFile: launched, encoding: .utf8).split(separator: "\n").map(String.init) == [
                    "env", "VISUAL=\(editor)", Program.built("gbnotifyctl"), "show", "--reply", desktop.account.reference,
                    "krz/gitbay/issues/12",
                ])
                let comments = try await SwayncChecks.commentRequests(desktop)
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

/// What both swaync suites do.
enum SwayncChecks {
    /// Turns swaync's inline-reply field on or off in the session's swaync config (the rig's,
    /// `scripts/desktop-servers/swaync.sh`, has it on; Debian 13's package has it off) and has
    /// swaync read it again (`swaync-client --reload-config`, answered once it has): the popups
    /// shown from then on follow it.
    static func inlineReplies(_ on: Bool, on session: DesktopSession) async throws {
        let path = "\(session.directory)/home/.config/swaync/config.json"
        let config = try String(contentsOfFile: path, encoding: .utf8)
        let key = #""notification-inline-replies": "#
        try #require(config.contains(key), "no \(key) in \(config)")
        try config.replacingOccurrences(of: key + String(!on), with: key + String(on))
            .write(toFile: path, atomically: true, encoding: .utf8)
        let reloaded = try await session.run(session.inDesktop(["swaync-client", "--reload-config", "--skip-wait"]))
        try #require(reloaded.status == 0, "swaync-client --reload-config: \(reloaded.stderr)")
    }

    /// What the server says it can do (`GetCapabilities`).
    static func capabilities(_ desktop: DaemonOnDesktop) async throws -> [String] {
        let reply = try await desktop.session.withConnection { connection in
            try await connection.call(
                destination: NotificationsInterface.name, path: NotificationsInterface.path, interface: NotificationsInterface.name,
                member: "GetCapabilities")
        }
        return reply.first?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// Issue krz/gitbay#12 on the stand-in, for a comment to land on; its notice on screen, once
    /// an earlier test's popup of it (withdrawn as its daemon stopped) is off the screen, so that
    /// the popup read is this one.
    @discardableResult
    static func issueOnScreen(_ desktop: DaemonOnDesktop) async throws -> (row: Int, notification: UInt32) {
        try await OnScreen(desktop.session).waitUntilGone(titled: "krz/gitbay")
        try await desktop.standin.addItem(.issue, repo: "krz/gitbay", data: #"{"number": 12, "title": "Crash", "state": "open", "author": "alice"}"#)
        return try await desktop.show(repo: "krz/gitbay", number: 12)
    }

    static func commentRequests(_ desktop: DaemonOnDesktop) async throws -> [Standin.LoggedRequest] {
        try await desktop.standin.requests().filter { $0.argv?.starts(with: ["issue", "comment"]) == true }
    }
}

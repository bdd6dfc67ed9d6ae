import DesktopSuites
import PushCore
import TestSupport
import Testing

/// The real gbnotifyd on lxqt-notificationd 1.2, read over AT-SPI: a replacement there keeps the
/// first `Notify`'s buttons, so a notification whose actions change is closed and shown afresh.
@Suite(.serialized, .desktop(.lxqt, installing: .gbnotify))
struct LxqtDaemonTests {
    let screen: OnScreen

    init() throws {
        screen = OnScreen(try SharedDesktop.session())
    }

    @Test func aNotificationWhoseActionsChangeIsShownAfreshWithItsOwnButtons() async throws {
        try await DaemonOnDesktop.run(config: "poll-interval = 3600\nmax-notifications = 1\n") { desktop in
            try await desktop.show(repo: "krz/one", number: 1)
            let single = try await screen.waitForPopup(titled: "krz/one")
            #expect(single.buttons.map(\.label) == ["x", "Open", "Mark read", "Mute"])

            // With room for one notification, a second repository folds the first into a
            // summary in its place, which offers other actions.
            try await desktop.standin.addNotification(
                for: desktop.account.username, repo: "krz/two", kind: "issue", actor: "bo", summary: "opened issue #2",
                path: "krz/two/issues/2")
            desktop.poll()
            try await desktop.daemon.waitForLine(containing: "showing a summary of 2 as notification")
            let summary = try await screen.waitForPopup(titled: "2 more unread on \(desktop.account.instance.displayName) as cmc")
            #expect(summary.buttons.map(\.label) == ["x", "Open the inbox", "Mark all read"])
            try await screen.waitUntilGone(titled: "krz/one")
        }
    }
}

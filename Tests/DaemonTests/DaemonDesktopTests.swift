import DesktopSuites
import Foundation
import Glibc
import PushCore
import TestSupport
import Testing

/// The real `gbnotifyd` on a desktop: its account in the session's real keyring, a stand-in
/// behind it, dunst as the notification server, gbnotify's icon installed in a data directory
/// on its `XDG_DATA_DIRS`, and a stub `xdg-open` first on its `PATH` (the browser a click
/// launches where there is no OpenURI portal, as on this session's bus).
@Suite struct DaemonDesktopTests {
    @Test func daemonBinaryShowsANoticeOpensItOnAClickAndWithdrawsItOnStop() async throws {
        try await PrivateSession.run(notifications: true) {
            let fixture = try await BinaryFixture.start()
            let (home, standin, token) = (fixture.home, fixture.standin, fixture.token)

            let bin = home.directory.appendingPathComponent("bin")
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            let browser = try OpenerStub(at: bin.appendingPathComponent("xdg-open").path)
            defer { browser.close() }
            let data = home.directory.appendingPathComponent("share")
            try DesktopData.gbnotify.install(data)
            var environment = home.environment
            environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            environment["XDG_DATA_DIRS"] = data.path + ":/usr/share"

            let readiness = try NotifySocket(path: home.notifySocket)
            let daemon = try RunningDaemon(environment: environment)
            #expect(try await readiness.receive() == "READY=1\nSTATUS=Polling 1 account")
            try await daemon.waitForPoll(of: fixture.account)

            // SIGHUP polls at once.
            let clicked = try await standin.addNotification(
                for: "cmc", repo: "krz/gitbay", kind: "issue", actor: "eve", summary: "opened issue #12",
                path: "krz/gitbay/issues/12")
            daemon.send(SIGHUP)
            try await daemon.waitForEvent("notice \(clicked) shown", DaemonEvent.isShown(row: Int64(clicked), of: fixture.account))
            #expect(try await Self.dunstctl("count", "displayed") == "1")
            try await Self.dunstctl("action", "0")
            let launch = try await browser.nextLaunch()
            #expect(launch.arguments == ["\(fixture.account.instance.url)/krz/gitbay/issues/12"])
            // dunst 1.9 with its stock config finds no icon by a theme name: the installed file
            // is what it shows.
            #expect(try await Dunst.closeAllAndReadHistory().first?.iconPath == data.appendingPathComponent(AppIcon.themePath).path)

            let left = try await standin.addNotification(
                for: "cmc", repo: "krz/other", kind: "mr", actor: "ana", summary: "opened merge request #3",
                path: "krz/other/mrs/3")
            daemon.send(SIGHUP)
            try await daemon.waitForEvent("notice \(left) shown", DaemonEvent.isShown(row: Int64(left), of: fixture.account))
            #expect(try await Self.dunstctl("count", "displayed") != "0")

            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            #expect(daemon.lines.value.last == "<6>stopped")
            #expect(try await Self.dunstctl("count", "displayed") == "0")
            #expect(!daemon.lines.value.contains { $0.contains(token) })
            // One click, one launch (the other notice was never clicked).
            #expect(try await !browser.launchArrives(within: 1))
            await fixture.finish()
        }
    }

    /// dunstctl on this session's bus; its output without the trailing newline.
    @discardableResult
    static func dunstctl(_ arguments: String...) async throws -> String {
        let outcome = try await Program.run(["dunstctl"] + arguments, environment: ProcessInfo.processInfo.environment)
        try #require(outcome.status == 0, "dunstctl \(arguments.joined(separator: " ")): \(outcome.stderr)")
        return outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

import Foundation
import Glibc
import PushCore
import TestSupport
import Testing

/// Every line the real gbnotifyd logs, at every level, while it goes through all it does with an
/// account: no API token, and no device token (a relay topic: whoever knows it reads what is
/// published there).
@Suite struct LogSecrecyTests {
    @Test func daemonBinaryLogsNoTokenAtAnyLevel() async throws {
        try await PrivateSession.run {
            let server = try await FakeNotificationServer.start(capabilities: ["actions", "body-markup"])
            // Recognisable anywhere, in pieces too.
            let fixture = try await BinaryFixture.start(
                config: "poll-interval = 30\nlog-level = debug\n", token: "gb_CANARY\(UUID().uuidString.filter(\.isHexDigit))")
            let (home, standin, token, name) = (fixture.home, fixture.standin, fixture.token, fixture.name)
            let listPolls = Standin.Fault.Match(argvPrefix: ["notifications", "list"])

            // Start: registration, then a 200.
            let daemon = try RunningDaemon(arguments: ["--verbose"], environment: home.environment)
            try await daemon.waitForLine(containing: "\(name): registered its device token as device")
            try await daemon.waitForLine(containing: "\(name): 200 ok")

            // A reload, which polls at once: a 304.
            var reloads = 0
            func reload() {
                daemon.send(SIGHUP)
                reloads += 1
            }
            reload()
            try await daemon.waitForLine(containing: "\(name): 304 not modified")

            // A new notice, shown, and marked read from its notification.
            let notice = try await standin.addNotification(for: "cmc", repo: "krz/gitbay", path: "krz/gitbay/issues/1")
            reload()
            try await daemon.waitForLine(containing: "\(name): showing notice \(notice) as notification")
            let shown = try await server.shown.wait(for: "the notice's notification") {
                $0.contains { $0.actions.contains(NotificationContent.markReadAction) }
            }
            try server.invoke(
                NotificationContent.markReadAction,
                on: try #require(shown.last { $0.actions.contains(NotificationContent.markReadAction) }))
            try await daemon.waitForLine(containing: "\(name): marked notice \(notice) read")

            // Polls answered 429, 500 and 401.
            try await standin.addFault(.init(.status(429, headers: ["Retry-After": "1"]), match: listPolls))
            reload()
            try await daemon.waitForLine(containing: "\(name): poll failed: ", occurrence: 1)
            try await standin.addFault(.init(.status(500), match: listPolls))
            reload()
            try await daemon.waitForLine(containing: "\(name): poll failed: ", occurrence: 2)
            try await standin.addFault(.init(.status(401), match: listPolls))
            reload()
            try await daemon.waitForLine(containing: "polling stopped until the account gets a new token")

            for status in ["429", "500", "401"] {
                #expect(daemon.lines(containing: "\(name): poll failed: ").contains { $0.contains(status) }, "no \(status) poll")
            }
            // One more reload, then a stop.
            reload()
            try await daemon.waitForLine(containing: "reloading the config and the accounts", occurrence: reloads)
            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            #expect(daemon.lines.value.last == "<6>stopped")
            await server.stop()

            let log = daemon.lines.value
            #expect(log.contains { $0.hasPrefix("<7>") }, "no debug line: the test saw less than every level")
            let saved = try String(contentsOfFile: home.stateDirectory + "/accounts.json", encoding: .utf8)
            let deviceToken = try #require(saved.firstMatch(of: /"deviceToken":"([0-9a-f]{64})"/)?.1)
            for line in log {
                #expect(!Self.pieces(of: token, length: 12).contains { line.contains($0) }, "the API token in: \(line)")
                #expect(!Self.pieces(of: String(deviceToken), length: 10).contains { line.contains($0) }, "the device token in: \(line)")
            }
            await fixture.finish()
        }
    }

    /// Every run of `length` characters of `secret`: a line holding any part of a secret that
    /// long holds a leak, whatever cut it short.
    static func pieces(of secret: String, length: Int) -> [String] {
        let characters = Array(secret)
        return (0...(characters.count - length)).map { String(characters[$0..<($0 + length)]) }
    }
}

import Foundation
import Glibc
import PushCore
import TestSupport
import Testing

/// `gbnotifyctl status` in the session's language, with the real gbnotifyd (itself in German,
/// as a German session starts it): the daemon hands over facts, gbnotifyctl words them, and
/// the JSON scripts read stays English.
@Suite struct StatusTranslationTests {
    @Test func theResultAndTheHeldPopupsAreInTheSessionsLanguageAndTheJSONStaysEnglish() async throws {
        try await PrivateSession.run {
            // An hour between polls: the only poll the checks of the result see is the first.
            let fixture = try await BinaryFixture.start(config: "poll-interval = 3600\n")
            let home = fixture.home
            try await fixture.standin.addNotifications(for: "cmc", count: 2)
            let (german, french) = (try await Translations.environment("de"), try await Translations.environment("fr"))
            let readiness = try NotifySocket(path: home.notifySocket)
            let daemon = try RunningDaemon(environment: home.environment.merging(german) { $1 })
            #expect(try await readiness.receive() == "READY=1\nSTATUS=Polling 1 account")
            try await daemon.waitForPoll(of: fixture.account, saying: "200 ok, 2 new")

            let table = try await home.ctl(["status"], adding: german)
            #expect(table.status == 0, "\(table.stderr)")
            #expect(table.stdout.contains("ERGEBNIS"), "\(table.stdout)")
            #expect(table.stdout.contains("  ok  "), "the STATE word stays English: \(table.stdout)")
            #expect(table.stdout.contains("  200 ok, 2 neue  "), "\(table.stdout)")
            #expect(try await home.ctl(["status"], adding: french).stdout.contains("  200 ok, 2 nouvelles  "))
            let json = try Self.account(in: try await home.ctl(["status", "--json"], adding: german))
            #expect(json["last_result"] as? String == "200 ok, 2 new")
            #expect(json["last_result_status"] as? Int == 200)
            #expect(json["last_result_outcome"] as? String == "ok")
            #expect(json["last_result_new"] as? Int == 2)

            // Answered once the daemon has reloaded, and with it read the snooze.
            let snoozed = try await home.ctl(["snooze", "1h"])
            #expect(snoozed.status == 0, "\(snoozed.stderr)")
            let account = "cmc@\(fixture.standin.url.replacingOccurrences(of: "https://", with: ""))"
            let held = try await home.ctl(["status"], adding: german).stdout
            #expect(held.contains("\nZurückgehaltene Banner:\n  \(account): schlummert bis "), "\(held)")
            let heldInFrench = try await home.ctl(["status"], adding: french).stdout
            #expect(heldInFrench.contains("\nBannières retenues\u{a0}:\n  \(account): en pause jusqu’à "), "\(heldInFrench)")
            let heldJSON = try Self.account(in: try await home.ctl(["status", "--json"], adding: german))
            #expect((heldJSON["popups_held"] as? String)?.hasPrefix("snoozed until ") == true, "\(heldJSON)")
            #expect(heldJSON["popups_held_reason"] as? String == "snoozed")

            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            await fixture.finish()
        }
    }

    /// The one account of `status --json`'s output.
    private static func account(in run: Program.Outcome) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        return try #require((object?["accounts"] as? [[String: Any]])?.first, "\(run.stdout) \(run.stderr)")
    }
}

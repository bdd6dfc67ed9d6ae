import Foundation
import Glibc
import PushCore
import TestSupport
import Testing

/// gbnotifyctl's noise commands with the real gbnotifyd running: each tells it to reload, so
/// what they changed on the server reaches the badge at once.
@Suite struct NoiseCommandsDaemonTests {
    @Test func readAllMakesARunningDaemonPollAgainSoItsBadgeFalls() async throws {
        try await PrivateSession.run {
            let fixture = try await BinaryFixture.start()
            let (home, standin, name) = (fixture.home, fixture.standin, fixture.name)
            try await standin.addNotifications(for: "cmc", count: 3)
            let readiness = try NotifySocket(path: home.notifySocket)
            let daemon = try RunningDaemon(environment: home.environment)
            #expect(try await readiness.receive() == "READY=1\nSTATUS=Polling 1 account")
            try await daemon.waitForPoll(of: fixture.account, saying: "200 ok, 3 new")

            let read = try await home.ctl(["read", fixture.account.reference, "--all"])
            #expect(read.status == 0, "\(read.stderr)")
            #expect(read.stdout == "Marked 3 notices read on \(name).\n")
            #expect(read.stderr.isEmpty, "the reload was not clean: \(read.stderr)")
            // The reload's poll: the inbox changed (its ETag with it), nothing new in it.
            try await daemon.waitForPoll(of: fixture.account, count: 2)
            #expect(daemon.lines(containing: "\(name): 200 ok") == ["<7>\(name): 200 ok, 3 new", "<7>\(name): 200 ok"])
            let status = try JSONDecoder().decode(DaemonStatus.self, from: Data(try await home.ctl(["status", "--json"]).stdout.utf8))
            #expect(status.accounts.first?.unread == 0)

            // A snooze with the daemon there: no word of a daemon missing.
            let snoozed = try await home.ctl(["snooze", "30m"])
            #expect(snoozed.status == 0, "\(snoozed.stderr)")
            #expect(!snoozed.stdout.contains("not running"))
            #expect(snoozed.stderr.isEmpty)

            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            await fixture.finish()
        }
    }
}

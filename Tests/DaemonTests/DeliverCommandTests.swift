import Foundation
import Glibc
import PushCore
import TestSupport
import Testing

/// `gbnotifyctl deliver` against the real `gbnotifyd`, in a desktop session of its own with
/// dunst, its account in the session's real keyring and a stand-in behind it.
@Suite struct DeliverCommandTests {
    @Test func gbnotifyctlDeliverHasItsOwnHelpAndTakesNoArguments() async throws {
        let environment = ProcessInfo.processInfo.environment
        let help = try await Program.run([Program.built("gbnotifyctl"), "deliver", "--help"], environment: environment)
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("Usage: gbnotifyctl deliver < PAYLOAD.json\n"))
        #expect(help.stdout.contains("at most \(WakeUp.maximumSize) bytes"))
        let extra = try await Program.run([Program.built("gbnotifyctl"), "deliver", "payload.json"], environment: environment)
        #expect(extra.status == 2)
        #expect(extra.stderr.contains("unexpected argument 'payload.json'"))
    }

    @Test func gbnotifyctlDeliverHandsAPayloadToTheRunningDaemon() async throws {
        try await PrivateSession.run(notifications: true) {
            let fixture = try await BinaryFixture.start(config: "poll-interval = 3600\n")
            let (home, standin, token, name) = (fixture.home, fixture.standin, fixture.token, fixture.name)
            // Not running yet: said so, and nothing read from the keyring or anywhere.
            let early = try await home.ctl(["deliver"], input: #"{"instance": "https://gitbay.org", "user": "cmc"}"#)
            #expect(early.status == 1)
            #expect(early.stderr.contains("gbnotifyd is not running"), "\(early.stderr)")

            let readiness = try NotifySocket(path: home.notifySocket)
            let daemon = try RunningDaemon(environment: home.environment)
            #expect(try await readiness.receive() == "READY=1\nSTATUS=Polling 1 account")
            try await daemon.waitForPoll(of: fixture.account)

            // A whole push payload: only its instance and user count; the account polls.
            let notice = """
                {"aps": {"alert": {"title": "krz/gitbay", "body": "eve opened issue #12"}, "badge": 1},
                 "path": "krz/gitbay/issues/12", "instance": "\(standin.url)/", "user": "cmc"}
                """
            let woken = try await home.ctl(["deliver"], input: notice)
            #expect(woken.status == 0, "\(woken.stderr)")
            #expect(woken.stdout == "gbnotifyctl: \(name) polls now\n")
            // Nothing new in the inbox since the first poll, and nothing shown from the payload.
            try await daemon.waitForPoll(of: fixture.account, saying: "304 not modified")
            #expect(try await DaemonDesktopTests.dunstctl("count", "displayed") == "0")

            let stranger = try await home.ctl(["deliver"], input: #"{"instance": "https://gitbay.example", "user": "cmc"}"#)
            #expect(stranger.status == 1)
            #expect(stranger.stderr == "gbnotifyctl: no account here is cmc on https://gitbay.example\n")
            let garbage = try await home.ctl(["deliver"], input: "hello")
            #expect(garbage.status == 1)
            #expect(garbage.stderr == "gbnotifyctl: the payload is not JSON\n")

            // Refused before the daemon is asked: more than a payload can be, or nothing.
            let huge = try await home.ctl(["deliver"], input: String(repeating: "x", count: 1 << 20))
            #expect(huge.status == 1)
            #expect(huge.stderr == "gbnotifyctl: the payload on standard input is over \(WakeUp.maximumSize) bytes\n")
            let empty = try await home.ctl(["deliver"])
            #expect(empty.status == 1)
            #expect(empty.stderr.contains("standard input is empty"))

            let status = try JSONDecoder().decode(DaemonStatus.self, from: Data(try await home.ctl(["status", "--json"]).stdout.utf8))
            #expect(status.deliveries == DeliveryCounts(wakeUps: 1, dropped: 2))
            let table = try await home.ctl(["status"])
            #expect(table.stdout.contains("wake-ups: 1 polled, 2 dropped"), "\(table.stdout)")

            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            #expect(!daemon.lines.value.contains { $0.contains(token) })
            await fixture.finish()
        }
    }
}

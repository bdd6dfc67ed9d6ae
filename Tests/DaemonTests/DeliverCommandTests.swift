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
        #expect(help.stdout.contains("at most \(PushPayload.maximumSize) bytes"))
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
            try await daemon.waitForLine(containing: "\(name): 200 ok")

            let notice = """
                {"aps": {"alert": {"title": "krz/gitbay", "body": "eve opened issue #12"}, "badge": 1},
                 "path": "krz/gitbay/issues/12", "instance": "\(standin.url)/", "user": "cmc"}
                """
            let shown = try await home.ctl(["deliver"], input: notice)
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(shown.stdout == "gbnotifyctl: shown\n")
            try await daemon.waitForLine(containing: "showing the delivered notice of krz/gitbay/issues/12 as notification")
            #expect(try await DaemonDesktopTests.dunstctl("count", "displayed") == "1")

            let again = try await home.ctl(["deliver"], input: notice)
            #expect(again.stdout == "gbnotifyctl: already on screen, so not shown again\n")

            let woken = try await home.ctl(["deliver"], input: #"{"instance": "\#(standin.url)", "user": "cmc"}"#)
            #expect(woken.stdout == "gbnotifyctl: the account polls now\n")
            // Nothing new in the inbox since the first poll.
            try await daemon.waitForLine(containing: "\(name): 304 not modified")

            let dropped = try await home.ctl(["deliver"], input: notice.replacingOccurrences(of: "krz/gitbay/issues/12", with: "../../etc/passwd"))
            #expect(dropped.status == 1)
            #expect(dropped.stderr == "gbnotifyctl: the push payload's path is not of the form OWNER/REPO/(issues|mrs|builds)/N\n")
            let garbage = try await home.ctl(["deliver"], input: "hello")
            #expect(garbage.status == 1)
            #expect(garbage.stderr == "gbnotifyctl: the push payload is not JSON\n")

            // Refused before the daemon is asked: more than a payload can be, or nothing.
            let huge = try await home.ctl(["deliver"], input: String(repeating: "x", count: 1 << 20))
            #expect(huge.status == 1)
            #expect(huge.stderr == "gbnotifyctl: the payload on standard input is over \(PushPayload.maximumSize) bytes\n")
            let empty = try await home.ctl(["deliver"])
            #expect(empty.status == 1)
            #expect(empty.stderr.contains("standard input is empty"))

            let status = try JSONDecoder().decode(DaemonStatus.self, from: Data(try await home.ctl(["status", "--json"]).stdout.utf8))
            #expect(status.deliveries == DeliveryCounts(shown: 1, alreadyShown: 1, wakeUps: 1, dropped: 2))
            let table = try await home.ctl(["status"])
            #expect(table.stdout.contains("payloads: 1 shown, 1 already shown, 1 wake-ups, 2 dropped"), "\(table.stdout)")

            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            #expect(!daemon.lines.value.contains { $0.contains(token) })
            await fixture.finish()
        }
    }
}

import DBus
import Daemon
import DesktopSuites
import Foundation
import PushCore
import Settings
import TestSupport
import Testing
import MainLoop

/// Payloads handed to the supervisor (as `Deliver` does) are wake-ups for the account they
/// name, and nothing more: what is shown comes from that account's own API. Against stand-ins,
/// the session's real keyring, and a clock the tests move.
@Suite(.needsDesktopSession) struct WakeUpTests {
    /// Polls only when woken (or after an hour), so each test decides when a poll happens.
    static var wakeOnly: DaemonSettings {
        var settings = DaemonSettings.forTests
        settings.pollInterval = 3600
        return settings
    }

    static func payload(
        for account: Account, path: String = "krz/gitbay/issues/12", body: String = "noor opened issue #12", badge: Int = 3
    ) -> String {
        """
        {"aps": {"alert": {"title": "krz/gitbay", "body": "\(body)"}, "badge": \(badge)},
         "path": "\(path)", "instance": "\(account.instance.url)", "user": "\(account.username)"}
        """
    }

    static func wakeUp(for account: Account) -> String {
        #"{"instance": "\#(account.instance.url)", "user": "\#(account.username)"}"#
    }

    /// A supervisor on `clock`, polling only when woken, whose first polls are done and which
    /// waits for the next.
    static func started(_ harness: Harness, clock: ManualClock) async throws -> Supervisor {
        let supervisor = harness.supervisor(wakeOnly, parts: Supervisor.Parts(timeline: Timeline(clock)))
        try await supervisor.start()
        // The first polls come within half a second of the start.
        try await clock.waitForSleepers(harness.instances.count)
        clock.advance(by: .seconds(1))
        for index in harness.instances.indices {
            try await harness.desktop.waitForUpdates(1, for: harness.instances[index].account)
        }
        try await clock.waitForSleepers(harness.instances.count)
        return supervisor
    }

    @Test func aPayloadIsAWakeUpAndWhatIsShownComesFromTheAPI() async throws {
        try await Harness.run(1) { harness in
            let clock = ManualClock()
            let account = harness.instances[0].account
            let supervisor = try await Self.started(harness, clock: clock)
            let id = try await harness.instances[0].standin.addNotification(
                for: Harness.username, repo: "krz/gitbay", kind: "issue", actor: "noor", summary: "opened issue #12",
                path: "krz/gitbay/issues/12")
            clock.advance(by: .seconds(2))

            // The payload's text, path and badge are someone else's word: none of it counts.
            let forged = Self.payload(for: account, path: "evil/repo/issues/1", body: "PAY NOW at evil.example", badge: 999)
            #expect(try await supervisor.deliver(forged) == account)
            let notices = try await harness.desktop.waitForNotices(1, for: account)
            guard case .item(let row) = try #require(notices.first) else {
                Issue.record("not an individual notice: \(notices)")
                return
            }
            #expect(row.id == Int64(id))
            #expect(row.path == "krz/gitbay/issues/12")
            #expect(row.actor == "noor")
            #expect(harness.desktop.updates(for: account).map(\.unread) == [.exact(0), .exact(1)])
            #expect(!harness.log.value.contains { $0.contains("PAY NOW") || $0.contains("evil") })
            #expect(await supervisor.status().deliveries == DeliveryCounts(wakeUps: 1))
        }
    }

    @Test func aWakeUpPollsOnlyTheAccountItNames() async throws {
        try await Harness.run(2) { harness in
            let clock = ManualClock()
            let supervisor = try await Self.started(harness, clock: clock)
            clock.advance(by: .seconds(2))
            #expect(try await supervisor.deliver(Self.wakeUp(for: harness.instances[1].account)) == harness.instances[1].account)
            try await harness.waitForListRequests(2, on: 1)
            #expect(try await harness.listRequests(0).count == 1)
        }
    }

    @Test func wakeUpsOfOneAccountAreAtLeastTwoSecondsApart() async throws {
        try await Harness.run(1) { harness in
            let clock = ManualClock()
            let account = harness.instances[0].account
            let supervisor = try await Self.started(harness, clock: clock)
            // The first poll was at most a second ago: a wake-up now waits for the gap's end.
            for _ in 1...20 { _ = try await supervisor.deliver(Self.wakeUp(for: account)) }
            try await harness.waitForLog("\(account.displayName): woken up; polling in")
            try await clock.waitForSleepers(1)
            #expect(try await harness.listRequests(0).count == 1)
            clock.advance(by: .seconds(2))
            try await harness.waitForListRequests(2, on: 0)

            // A burst right after that poll: one more poll, two seconds later, not twenty.
            for _ in 1...20 { _ = try await supervisor.deliver(Self.wakeUp(for: account)) }
            try await harness.waitForLog("\(account.displayName): woken up; polling in", occurrence: 2)
            try await clock.waitForSleepers(1)
            clock.advance(by: .milliseconds(1900))
            try await clock.waitForSleepers(1)
            #expect(try await harness.listRequests(0).count == 2)
            clock.advance(by: .milliseconds(100))
            try await harness.waitForListRequests(3, on: 0)
            try await clock.waitForSleepers(1)
            #expect(try await harness.listRequests(0).count == 3)
            #expect(await supervisor.status().deliveries == DeliveryCounts(wakeUps: 40))
        }
    }

    @Test func payloadsThatNameNoAccountWakeNobodyAndAreCounted() async throws {
        try await Harness.run(1) { harness in
            let clock = ManualClock()
            let account = harness.instances[0].account
            let supervisor = try await Self.started(harness, clock: clock)
            clock.advance(by: .seconds(2))
            let stranger = try Account(instance: GitbayInstance(parsing: "https://gitbay.example"), username: "cmc")
            let dropped: [(String, String)] = [
                (Self.payload(for: stranger), "no account here is cmc on https://gitbay.example"),
                (Self.wakeUp(for: stranger), "no account here is cmc on https://gitbay.example"),
                (Self.wakeUp(for: try Account(instance: account.instance, username: "CMC")), "no account here is CMC"),
                (Self.payload(for: account, body: String(repeating: "x", count: 1 << 20)), "over the limit of 8192"),
                (#"{"instance": "\#(account.instance.url)"}"#, "has no usable 'user'"),
                (#"{"instance": 7, "user": "cmc"}"#, "has no usable 'instance'"),
                (#"{"instance": "ftp://x", "user": "cmc"}"#, "instance is unusable"),
                ("<html>nope</html>", "not JSON"),
                ("", "not JSON"),
                ("[1, 2]", "not a JSON object"),
            ]
            for (payload, reason) in dropped {
                do {
                    let woken = try await supervisor.deliver(payload)
                    Issue.record("\(woken.displayName) woken by \(payload.prefix(80))")
                } catch {
                    #expect("\(error)".contains(reason), "\(error)")
                    #expect("\(error)".count < 300)
                }
            }
            #expect(try await harness.listRequests(0).count == 1, "nothing woke the account")
            #expect(await supervisor.status().deliveries == DeliveryCounts(dropped: dropped.count))
        }
    }

    @Test func deliverOverTheBusNamesTheAccountWoken() async throws {
        try await Harness.run(1) { harness in
            let clock = ManualClock()
            let account = harness.instances[0].account
            let supervisor = try await Self.started(harness, clock: clock)
            let server = try await DBusConnection.connect()
            let client = try await DBusConnection.connect()
            try await BusService.export(supervisor, on: server, logger: harness.logger)
            func deliver(_ payload: String) async throws -> [DBusValue] {
                try await client.call(
                    destination: server.uniqueName, path: DaemonInterface.objectPath, interface: DaemonInterface.interface,
                    member: DaemonInterface.Method.deliver.rawValue, arguments: [.string(payload)])
            }

            #expect(try await deliver(Self.payload(for: account)).first?.stringValue == account.displayName)
            do {
                _ = try await deliver(#"{"instance": "https://other.example", "user": "cmc"}"#)
                Issue.record("a payload for no account here was not refused")
            } catch let error as DBusError {
                #expect(error.name == "org.gitbay.Notify1.Error.PayloadDropped")
                #expect(error.message == "no account here is cmc on https://other.example")
            }
            #expect(await supervisor.status().deliveries == DeliveryCounts(wakeUps: 1, dropped: 1))
            await client.close()
            await server.close()
        }
    }
}

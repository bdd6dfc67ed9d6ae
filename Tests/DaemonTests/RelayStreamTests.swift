import Daemon
import Foundation
import Keyring
import PushCore
import StateStore
import TestSupport
import Testing

/// The relay stream end to end: the relay stand-in streams ntfy lines, the supervisor routes
/// each message's payload to the stand-in gitbay's account in the session's real keyring, and
/// a recording presenter shows what would be on screen.
@Suite struct RelayStreamTests {
    /// Polls only when woken (or after an hour), so every notice here came by the relay.
    static func settings(
        _ relay: RelayStandin, topic: String, keepalive: Duration = .seconds(45)
    ) throws -> DaemonSettings {
        var settings = DaemonSettings.forTests
        settings.config = try Config.parse("relay-url = \(relay.url)\nrelay-topic = \(topic)\n")
        settings.pollInterval = 3600
        settings.relayPollInterval = 3600
        settings.relayKeepalive = keepalive
        return settings
    }

    static func payload(for account: Account, issue: Int) -> String {
        """
        {"aps":{"alert":{"title":"krz/gitbay","body":"noor opened issue #\(issue)"}},\
        "path":"krz/gitbay/issues/\(issue)","instance":"\(account.instance.url)","user":"\(account.username)"}
        """
    }

    /// Waits until `count` notices came by delivery in all; returns their issue paths in order.
    @discardableResult
    static func waitForDelivered(_ count: Int, _ harness: Harness) async throws -> [String] {
        let notices = try await harness.presenter.delivered.wait(for: "\(count) delivered notices") { $0.count >= count }
        return notices.map(\.notice.destination.path)
    }

    /// Waits until the stream has handled message `id`: delivered it, counted it and moved its
    /// position past it (the debug line comes last).
    static func waitUntilHandled(_ id: String, _ harness: Harness) async throws {
        try await harness.waitForLog("message \(id): ")
    }

    /// A supervisor listening to `relay`, started, its first poll done and its stream open.
    static func started(
        _ harness: Harness, _ relay: RelayStandin, topic: String, keepalive: Duration = .seconds(45),
        subscriptions: Int = 1
    ) async throws -> Supervisor {
        let supervisor = harness.supervisor(try settings(relay, topic: topic, keepalive: keepalive))
        try await supervisor.start()
        try await harness.presenter.waitForUpdates(1, for: harness.instances[0].account)
        try await relay.waitForSubscriptions(count: subscriptions)
        try await harness.waitForLog("relay \(relay.url): connected", occurrence: subscriptions)
        return supervisor
    }

    @Test func aPayloadLineIsShown() async throws {
        let relay = try await RelayStandin.start()
        try await Harness.run(1) { harness in
            let account = harness.instances[0].account
            let supervisor = try await Self.started(harness, relay, topic: "shown")
            #expect(try await relay.waitForSubscriptions(count: 1).first?.since == nil)

            let published = try await relay.publish(Self.payload(for: account, issue: 12), to: "shown")

            #expect(try await Self.waitForDelivered(1, harness) == ["krz/gitbay/issues/12"])
            try await Self.waitUntilHandled(published.id, harness)
            let status = await supervisor.status()
            #expect(status.relay.url == relay.url)
            #expect(status.relay.connected)
            #expect(status.relay.lastMessageID == published.id)
            #expect(status.relay.lastEvent != nil)
            #expect(status.deliveries.shown == 1)
        }
        await relay.stop()
    }

    @Test func aConnectionCutAfterMessageThreeResumesAfterItAndShowsAllTenOnce() async throws {
        let relay = try await RelayStandin.start()
        try await Harness.run(1) { harness in
            let account = harness.instances[0].account
            try await relay.disconnect(topic: "resume", afterMessages: 3)
            let supervisor = try await Self.started(harness, relay, topic: "resume")

            var ids: [String] = []
            for issue in 1...10 {
                ids.append(try await relay.publish(Self.payload(for: account, issue: issue), to: "resume").id)
            }

            let paths = try await Self.waitForDelivered(10, harness)
            #expect(paths == (1...10).map { "krz/gitbay/issues/\($0)" })
            try await Self.waitUntilHandled(ids[9], harness)
            let subscriptions = try await relay.waitForSubscriptions(count: 2)
            #expect(subscriptions.map(\.since) == [nil, ids[2]])
            try await harness.waitForLog("the stream broke: ")
            #expect(harness.log.value.contains { $0.contains("in the middle of a line") })
            let status = await supervisor.status()
            #expect(status.deliveries.shown == 10)
            #expect(status.deliveries.alreadyShown == 0)
            #expect(status.relay.reconnects == 1)
            #expect(status.relay.lastMessageID == ids[9])
        }
        await relay.stop()
    }

    @Test func aStallPastTwoKeepalivesReconnects() async throws {
        let relay = try await RelayStandin.start(keepalive: 0.5)
        try await Harness.run(1) { harness in
            let account = harness.instances[0].account
            // The daemon expects a keepalive a second, the relay sends two: only the stall is
            // two periods of silence, however loaded the machine.
            let supervisor = try await Self.started(harness, relay, topic: "stall", keepalive: .seconds(1))

            try await relay.stall()

            try await harness.waitForLog("two keepalive periods); taken for dead")
            // No message came before the stall: the reconnect resumes from the relay's time at
            // the first open, so nothing published in between is lost.
            let subscriptions = try await relay.waitForSubscriptions(count: 2)
            #expect(subscriptions[0].since == nil)
            #expect(subscriptions[1].since.flatMap { Int64($0) } != nil)
            try await harness.waitForLog("relay \(relay.url): connected", occurrence: 2)
            // The silent connection was closed, and the new one carries messages.
            try await relay.waitForOpenStreams(1)
            try await relay.publish(Self.payload(for: account, issue: 5), to: "stall")
            #expect(try await Self.waitForDelivered(1, harness) == ["krz/gitbay/issues/5"])
            #expect(await supervisor.status().relay.reconnects >= 1)
        }
        await relay.stop()
    }

    @Test func aRestartResumesFromThePersistedID() async throws {
        let relay = try await RelayStandin.start()
        try await Harness.run(1) { harness in
            let account = harness.instances[0].account
            let first = try await Self.started(harness, relay, topic: "restart")
            try await relay.publish(Self.payload(for: account, issue: 1), to: "restart")
            let second = try await relay.publish(Self.payload(for: account, issue: 2), to: "restart")
            try await Self.waitForDelivered(2, harness)
            await first.stop()
            try await relay.waitForOpenStreams(0)

            // Published while no daemon listens.
            let third = try await relay.publish(Self.payload(for: account, issue: 3), to: "restart")
            let restarted = harness.supervisor(try Self.settings(relay, topic: "restart"))
            try await restarted.start()

            let subscriptions = try await relay.waitForSubscriptions(count: 2)
            #expect(subscriptions[1].since == second.id)
            #expect(try await Self.waitForDelivered(3, harness).last == "krz/gitbay/issues/3")
            // Stopping waits for the message in hand and for its position to be on disk.
            await restarted.stop()
            #expect(try harness.state.loadRelayCursor().cursor?.lastMessageID == third.id)
        }
        await relay.stop()
    }

    @Test func garbageAndOversizedLinesAreDroppedCountedAndTheStreamGoesOn() async throws {
        let relay = try await RelayStandin.start()
        try await Harness.run(1) { harness in
            let account = harness.instances[0].account
            let supervisor = try await Self.started(harness, relay, topic: "garbage")

            try await relay.sendRaw("this is not json\n", to: "garbage")
            try await relay.sendRaw(#"{"event":"message","time":1,"message":"no id"}"# + "\n", to: "garbage")
            try await relay.sendRaw("", pad: 200 * 1024, to: "garbage")
            try await relay.sendRaw("\n", to: "garbage")
            try await relay.sendRaw(#"{"event":"poll_request","id":"x","time":1}"# + "\n", to: "garbage")
            let published = try await relay.publish(Self.payload(for: account, issue: 7), to: "garbage")

            #expect(try await Self.waitForDelivered(1, harness) == ["krz/gitbay/issues/7"])
            try await Self.waitUntilHandled(published.id, harness)
            let status = await supervisor.status().relay
            #expect(status.droppedLines == 3)
            #expect(status.reconnects == 0)
            #expect(status.connected)
            let warnings = harness.log.value.filter { $0.contains("dropped a line") }
            #expect(warnings.count == 3)
            #expect(warnings.first?.hasPrefix("<4>") == true)
            #expect(warnings.dropFirst().allSatisfy { $0.hasPrefix("<7>") })
            #expect(harness.log.value.contains { $0.contains("ignored a 'poll_request' event") })
        }
        await relay.stop()
    }

    @Test func theRelayTokenComesFromTheKeyringAndNeverReachesTheLog() async throws {
        let relay = try await RelayStandin.start()
        let relayInstance = try GitbayInstance(parsing: relay.url)
        let token = "tk_relay_\(UUID().uuidString.prefix(8))"
        try await relay.requireToken(token)
        try await Keyring().storeRelayToken(try APIToken(token), for: relayInstance)
        try await Harness.run(1) { harness in
            let account = harness.instances[0].account
            let supervisor = harness.supervisor(
                try Self.settings(relay, topic: "token"), relayToken: { try await Keyring().relayToken(for: $0) })
            try await supervisor.start()

            #expect(try await relay.waitForSubscriptions(count: 1).first?.authorization == "Bearer \(token)")
            try await relay.publish(Self.payload(for: account, issue: 1), to: "token")
            try await Self.waitForDelivered(1, harness)
            #expect(!harness.log.value.contains { $0.contains(token) })
            #expect(!String(decoding: try JSONEncoder().encode(await supervisor.status()), as: UTF8.self).contains(token))
        }
        #expect(try await Keyring().deleteRelayToken(for: relayInstance))
        await relay.stop()
    }

    @Test func aRefusedSubscriptionSaysWhyAndKeepsTrying() async throws {
        let relay = try await RelayStandin.start()
        try await relay.requireToken("tk_needed")
        try await Harness.run(1) { harness in
            let supervisor = harness.supervisor(try Self.settings(relay, topic: "refused"))
            try await supervisor.start()

            try await relay.waitForSubscriptions(count: 2)
            let status = await supervisor.status().relay
            #expect(!status.connected)
            #expect(status.lastError?.contains("(401); it needs an access token: gbnotifyctl relay login URL") == true)
        }
        await relay.stop()
    }

    @Test func aReloadWithAnotherTopicMovesTheStream() async throws {
        let relay = try await RelayStandin.start()
        try await Harness.run(1) { harness in
            let account = harness.instances[0].account
            let current = Observed(try Self.settings(relay, topic: "before"))
            let supervisor = harness.supervisor(current.value, loadSettings: { current.value })
            try await supervisor.start()
            try await relay.waitForSubscriptions(count: 1)

            current.update { $0 = try! Self.settings(relay, topic: "after") }
            try await supervisor.reload()

            #expect(try await relay.waitForSubscriptions(count: 2).map(\.topic) == ["before", "after"])
            try await relay.waitForOpenStreams(1)
            try await relay.publish(Self.payload(for: account, issue: 9), to: "after")
            #expect(try await Self.waitForDelivered(1, harness) == ["krz/gitbay/issues/9"])
        }
        await relay.stop()
    }

    @Test func accountsPollAtTheRelayIntervalWhileItIsConnected() async throws {
        let relay = try await RelayStandin.start()
        try await Harness.run(1) { harness in
            let account = harness.instances[0].account
            var settings = try Self.settings(relay, topic: "pace")
            settings.pollInterval = 1
            settings.relayPollInterval = 3000
            let supervisor = harness.supervisor(settings)
            try await supervisor.start()
            try await harness.waitForLog("relay \(relay.url): connected")

            // A wake-up polls at once; the poll after it is scheduled at the relay's pace.
            let pollResult: @Sendable (String) -> Bool = { line in
                line.contains("\(account.displayName): 200 ok") || line.contains("\(account.displayName): 304")
            }
            let polls = harness.log.value.count(where: pollResult)
            #expect(await supervisor.deliver(#"{"instance":"\#(account.instance.url)","user":"cmc"}"#, via: .relay) == .wokeUp)
            try await harness.log.wait(for: "the woken poll") { $0.count(where: pollResult) > polls }
            let nextPoll = try #require(try await harness.status(of: 0, from: supervisor).nextPoll)
            let next = try #require(ISO8601DateFormatter().date(from: nextPoll))
            #expect(next.timeIntervalSinceNow > 600)
        }
        await relay.stop()
    }
}

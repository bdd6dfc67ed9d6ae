import Daemon
import DesktopSuites
import Foundation
import Keyring
import PushCore
import Settings
import StateStore
import TestSupport
import Testing
import MainLoop

/// The relay stream end to end: the relay stand-in streams ntfy lines on each account's own
/// topic (its device token), the supervisor wakes the account whose topic a message came on,
/// and that account's poll of its stand-in gitbay decides what is shown, recorded by the
/// harness's desktop.
@Suite(.needsDesktopSession) struct RelayStreamTests {
    /// Polls only when woken (or after an hour), so every poll here came of a relay message.
    ///
    /// - Parameter front: the relay reached through this front.
    static func settings(_ relay: RelayStandin, keepalive: Duration = .seconds(45), front: HTTP2Front? = nil) throws -> DaemonSettings {
        var settings = DaemonSettings.forTests
        settings.config = try Config.parse(
            front.map { "relay-url = \($0.url)\nca-file = \($0.caFile)\n" } ?? "relay-url = \(relay.url)\n")
        settings.pollInterval = 3600
        settings.relayPollInterval = 3600
        settings.relayKeepalive = keepalive
        return settings
    }

    /// Some text: what a relay message says is never read.
    static func message(_ issue: Int) -> String {
        #"{"aps":{"alert":{"title":"evil/repo","body":"click me \#(issue)"}},"path":"evil/repo/issues/\#(issue)"}"#
    }

    /// Waits until the stream has handled message `id`: woken its account and moved its
    /// position past it.
    static func waitUntilHandled(_ id: String, _ harness: Harness) async throws {
        try await harness.waitForEvents("relay message \(id) handled") {
            if case .relayWoke(_, messageID: id) = $0 { true } else { false }
        }
    }

    /// A supervisor listening to `relay`, started, its first polls done and its stream open.
    ///
    /// - Parameter clock: the daemon's clock, when a test moves it: the first poll (within half
    ///   a second of the start) then waits for the test, which this moves on by a second.
    static func started(
        _ harness: Harness, _ relay: RelayStandin, keepalive: Duration = .seconds(45), subscriptions: Int = 1,
        clock: ManualClock? = nil, front: HTTP2Front? = nil
    ) async throws -> Supervisor {
        let supervisor = harness.supervisor(try settings(relay, keepalive: keepalive, front: front), parts: Supervisor.Parts(timeline: clock.map { Timeline($0) } ?? Timeline()))
        try await supervisor.start()
        try await relay.waitForSubscriptions(count: subscriptions)
        try await harness.waitForEvents("the relay connected", count: subscriptions) { if case .relayConnected = $0 { true } else { false } }
        if let clock {
            // The stream's watch for silence, and the account's first poll (its whoami and
            // registration come with it).
            try await clock.waitForSleepers(2)
            clock.advance(by: .seconds(1))
        }
        for instance in harness.instances where try await harness.isInKeyring(instance) {
            try await harness.desktop.waitForUpdates(1, for: instance.account)
        }
        return supervisor
    }

    /// Adds an inbox row on instance `index` and publishes a message on its account's topic;
    /// returns the message and waits until the poll it started showed the row.
    @discardableResult
    static func wake(_ index: Int, _ harness: Harness, _ relay: RelayStandin, issue: Int) async throws -> RelayStandin.Published {
        let instance = harness.instances[index]
        let before = harness.desktop.notices(for: instance.account).count
        try await instance.standin.addNotification(
            for: Harness.username, repo: "krz/gitbay", kind: "issue", actor: "noor", summary: "opened issue #\(issue)",
            path: "krz/gitbay/issues/\(issue)")
        let published = try await relay.publish(message(issue), to: try harness.topic(of: index))
        try await harness.desktop.waitForNotices(before + 1, for: instance.account)
        return published
    }

    @Test func aMessageOnAnAccountsTopicWakesItAndWhatIsShownComesFromItsAPI() async throws {
        let relay = try await RelayStandin.start()
        try await Harness.run(1) { harness in
            let account = harness.instances[0].account
            let supervisor = try await Self.started(harness, relay)
            let subscription = try #require(try await relay.waitForSubscriptions(count: 1).first)
            #expect(subscription.since == nil)
            #expect(subscription.topic == (try harness.topic(of: 0)))

            let published = try await Self.wake(0, harness, relay, issue: 12)
            guard case .item(let row) = try #require(harness.desktop.notices(for: account).last) else {
                Issue.record("not an individual notice")
                return
            }
            // The message said "evil/repo": not a word of it counts.
            #expect(row.path == "krz/gitbay/issues/12")
            try await Self.waitUntilHandled(published.id, harness)
            let status = await supervisor.status()
            #expect(status.relay.url == relay.url)
            #expect(status.relay.connected)
            #expect(status.relay.lastMessageID == published.id)
            #expect(status.relay.lastEvent != nil)
            #expect(status.deliveries.wakeUps == 1)
        }
        await relay.stop()
    }

    /// Through the HTTP/2 fronts (the relay's and the instance's), the cut is a stream the
    /// front resets.
    @Test(arguments: [Harness.Wire.direct, .http2Front])
    func aConnectionCutAfterMessageThreeResumesAfterItAndMissesNothing(_ wire: Harness.Wire) async throws {
        let relay = try await RelayStandin.start()
        let front = wire == .direct ? nil : try await HTTP2Front.start(backendPort: relay.port)
        try await Harness.run(1, wire: wire) { harness in
            let account = harness.instances[0].account
            let topic = try harness.topic(of: 0)
            try await relay.disconnect(topic: topic, afterMessages: 3)
            let supervisor = try await Self.started(harness, relay, front: front)

            let rows = try await harness.instances[0].standin.addNotifications(for: Harness.username, count: 10)
            var ids: [String] = []
            for issue in 1...10 {
                ids.append(try await relay.publish(Self.message(issue), to: topic).id)
            }
            try await Self.waitUntilHandled(ids[9], harness)
            let subscriptions = try await relay.waitForSubscriptions(count: 2)
            if wire == .direct {
                #expect(subscriptions.map(\.since) == [nil, ids[2]])
            } else {
                // The front passes on what it had read of the three messages before the relay's
                // reset, all of it or less as the machine's timing goes (seen in a loaded run:
                // none): the stream resumes after the last message the daemon read, or from the
                // time it first opened when it read none.
                #expect(subscriptions.first?.since == nil)
                let resumed = harness.log.value.last { $0.contains("connected, resuming after message ") }
                if let resumed, let id = resumed.split(separator: " ").last.map(String.init) {
                    #expect(ids[0...2].contains(id), "\(resumed)")
                    #expect(subscriptions.last?.since == id)
                } else {
                    #expect(subscriptions.last?.since.flatMap { Int($0) } != nil, "\(subscriptions)")
                }
            }
            try await harness.waitForLog("the stream broke: ")
            let broke = harness.log.value.filter { $0.contains("the stream broke: ") }
            #expect(broke.contains { $0.contains(wire == .direct ? "in the middle of a line" : "was not closed cleanly") }, "\(broke)")
            // However the wake-ups coalesced, every row was shown, once.
            let notices = try await harness.desktop.news.wait(for: "all ten rows") { news in
                RecordingDesktop.updates(in: news, for: account).flatMap(\.notices).reduce(0) { sum, notice in
                    if case .summary(let count, _, _, _) = notice { sum + count } else { sum + 1 }
                } >= 10
            }
            #expect(RecordingDesktop.updates(in: notices, for: account).flatMap(\.notices).count <= 4)
            #expect(rows.count == 10)
            let status = await supervisor.status()
            #expect(status.deliveries.wakeUps == 10)
            #expect(status.relay.reconnects == 1)
            #expect(status.relay.lastMessageID == ids[9])
        }
        await front?.stop()
        await relay.stop()
    }

    @Test func aStallPastTwoKeepalivesReconnectsInVirtualTime() async throws {
        let relay = try await RelayStandin.start(keepalive: 3600)
        try await Harness.run(1) { harness in
            let clock = ManualClock()
            let supervisor = try await Self.started(harness, relay, keepalive: .seconds(45), clock: clock)
            try await relay.stall()
            // Ninety seconds of silence, said in an instant: the connection is taken for dead.
            // (The stream's last bytes came at the clock's 0 or 1 s, as the first poll's second
            // went by: 88 s on is short of 90 s of silence either way, 90 s on past it.)
            clock.advance(by: .seconds(88))
            #expect(await supervisor.status().relay.connected)
            clock.advance(by: .seconds(2))
            try await harness.waitForLog("no bytes for 90 s (two keepalive periods); taken for dead")
            // The reconnect waits 125 to 250 ms of the clock's time.
            try await clock.waitForSleepers(2)
            clock.advance(by: .milliseconds(250))
            // No message came before the stall: the reconnect resumes from the relay's time at
            // the first open, so nothing published in between is lost.
            let subscriptions = try await relay.waitForSubscriptions(count: 2)
            #expect(subscriptions[0].since == nil)
            #expect(subscriptions[1].since.flatMap { Int64($0) } != nil)
            try await harness.waitForEvents("the relay connected", count: 2) { if case .relayConnected = $0 { true } else { false } }
            try await relay.waitForOpenStreams(1)
            #expect(await supervisor.status().relay.reconnects == 1)
        }
        await relay.stop()
    }

    /// A relay that takes the request and never answers, not even a status line, is left after
    /// one keepalive period, and the next connection works.
    @Test func aRelayThatNeverAnswersIsLeftAfterOneKeepalivePeriodInVirtualTime() async throws {
        let relay = try await RelayStandin.start()
        try await relay.silenceHeads(1)
        try await Harness.run(1) { harness in
            let clock = ManualClock()
            let supervisor = harness.supervisor(
                try Self.settings(relay, keepalive: .seconds(45)), parts: Supervisor.Parts(timeline: Timeline(clock)))
            try await supervisor.start()
            try await relay.waitForSubscriptions(count: 1)
            // The wait for the head, and the account's first poll.
            try await clock.waitForSleepers(2)
            clock.advance(by: .seconds(44))
            #expect(!(await supervisor.status().relay.connected))
            #expect(try await relay.waitForSubscriptions(count: 1).count == 1)
            clock.advance(by: .seconds(1))
            try await harness.waitForLog("no response within 45 s (one keepalive period); taken for dead")
            // The reconnect's wait, the soonest of the clock's.
            try await clock.waitForSleepers(2)
            clock.advanceToNextDeadline()
            try await relay.waitForSubscriptions(count: 2)
            try await harness.waitForEvents("the relay connected") { if case .relayConnected = $0 { true } else { false } }
            try await relay.waitForOpenStreams(1)
        }
        await relay.stop()
    }

    /// The stream's socket sends TCP keepalives (`ss` shows its keepalive timer), at the
    /// relay's keepalive period.
    @Test func theStreamsConnectionHasTCPKeepaliveOn() async throws {
        let relay = try await RelayStandin.start()
        try await Harness.run(1) { harness in
            _ = try await Self.started(harness, relay, keepalive: .seconds(45))
            let port = try #require(URL(string: relay.url)?.port)
            let sockets = try await Program.run(["ss", "-tnoH", "state", "established", "dport", "= :\(port)"], environment: [:])
            let timers = sockets.stdout.split(separator: "\n").filter { $0.contains("timer:(keepalive,") }
            #expect(timers.count == 1, "ss: \(sockets.stdout)")
        }
        await relay.stop()
    }

    @Test func aRestartResumesFromThePersistedID() async throws {
        let relay = try await RelayStandin.start()
        try await Harness.run(1) { harness in
            let first = try await Self.started(harness, relay)
            try await Self.wake(0, harness, relay, issue: 1)
            let second = try await relay.publish(Self.message(2), to: try harness.topic(of: 0))
            try await Self.waitUntilHandled(second.id, harness)
            await first.stop()
            try await relay.waitForOpenStreams(0)

            // Published while no daemon listens.
            let third = try await relay.publish(Self.message(3), to: try harness.topic(of: 0))
            let restarted = harness.supervisor(try Self.settings(relay))
            try await restarted.start()

            let subscriptions = try await relay.waitForSubscriptions(count: 2)
            #expect(subscriptions[1].since == second.id)
            try await Self.waitUntilHandled(third.id, harness)
            // Stopping waits for the message in hand and for its position to be on disk.
            await restarted.stop()
            #expect(try harness.state.loadRelayCursor().cursor?.lastMessageID == third.id)
        }
        await relay.stop()
    }

    @Test func garbageAndOversizedLinesAreDroppedCountedAndTheStreamGoesOn() async throws {
        let relay = try await RelayStandin.start()
        try await Harness.run(1) { harness in
            let supervisor = try await Self.started(harness, relay)
            let topic = try harness.topic(of: 0)
            try await relay.sendRaw("this is not json\n", to: topic)
            try await relay.sendRaw(#"{"event":"message","time":1,"topic":"x"}"# + "\n", to: topic)
            try await relay.sendRaw("", pad: 200 * 1024, to: topic)
            try await relay.sendRaw("\n", to: topic)
            try await relay.sendRaw(#"{"event":"poll_request","id":"x","time":1}"# + "\n", to: topic)
            let published = try await Self.wake(0, harness, relay, issue: 7)

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
            let supervisor = harness.supervisor(try Self.settings(relay), relayToken: { try await Keyring().relayToken(for: $0) })
            try await supervisor.start()

            #expect(try await relay.waitForSubscriptions(count: 1).first?.authorization == "Bearer \(token)")
            try await Self.wake(0, harness, relay, issue: 1)
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
            let supervisor = harness.supervisor(try Self.settings(relay))
            try await supervisor.start()

            try await relay.waitForSubscriptions(count: 2)
            let status = await supervisor.status().relay
            #expect(!status.connected)
            #expect(status.lastError?.contains("(401); it needs an access token: gbnotifyctl relay login URL") == true)
        }
        await relay.stop()
    }

    @Test func eachAccountHasItsOwnTopicAndOnlyItsOwnWakesIt() async throws {
        let relay = try await RelayStandin.start()
        try await Harness.run(2) { harness in
            let supervisor = try await Self.started(harness, relay)
            let (first, second) = (try harness.topic(of: 0), try harness.topic(of: 1))
            #expect(first != second)
            let subscription = try #require(try await relay.waitForSubscriptions(count: 1).first)
            #expect(Set(subscription.topics) == [first, second])

            // A message on the first account's topic naming the second: it wakes the first.
            let naming = #"{"instance": "\#(harness.instances[1].account.instance.url)", "user": "cmc"}"#
            let polls = (try await harness.listRequests(0).count, try await harness.listRequests(1).count)
            let published = try await relay.publish(naming, to: first)
            try await Self.waitUntilHandled(published.id, harness)
            try await harness.waitForListRequests(polls.0 + 1, on: 0)
            #expect(try await harness.listRequests(1).count == polls.1)

            // A topic of no account here (the relay's operator publishing at random): nobody.
            let stray = try await relay.publish(Self.message(1), to: "not-anyones")
            #expect(stray.id.isEmpty == false)
            #expect(await supervisor.status().deliveries == DeliveryCounts(wakeUps: 1))
        }
        await relay.stop()
    }

    @Test func anAccountComingOrGoingMovesTheStreamAndItResumes() async throws {
        let relay = try await RelayStandin.start()
        try await Harness.run(2, inKeyring: [0]) { harness in
            let supervisor = try await Self.started(harness, relay)
            let published = try await Self.wake(0, harness, relay, issue: 1)
            try await Self.waitUntilHandled(published.id, harness)

            try await harness.storeInKeyring(1)
            try await supervisor.reload()
            let subscriptions = try await relay.waitForSubscriptions(count: 2)
            #expect(Set(subscriptions[1].topics) == [try harness.topic(of: 0), try harness.topic(of: 1)])
            #expect(subscriptions[1].since == published.id)
            try await relay.waitForOpenStreams(1)
            try await Self.wake(1, harness, relay, issue: 2)
        }
        await relay.stop()
    }

    @Test func accountsPollAtTheRelayIntervalWhileItIsConnected() async throws {
        let relay = try await RelayStandin.start()
        try await Harness.run(1) { harness in
            let account = harness.instances[0].account
            var settings = try Self.settings(relay)
            settings.pollInterval = 1
            settings.relayPollInterval = 3000
            let supervisor = harness.supervisor(settings)
            try await supervisor.start()
            try await harness.waitForEvents("the relay connected") { if case .relayConnected = $0 { true } else { false } }

            // A wake-up polls soon; the poll after it is scheduled at the relay's pace.
            let pollResult: @Sendable (String) -> Bool = { line in
                line.contains("\(account.displayName): 200 ok") || line.contains("\(account.displayName): 304")
            }
            let polls = harness.log.value.count(where: pollResult)
            #expect(try await supervisor.deliver(#"{"instance":"\#(account.instance.url)","user":"cmc"}"#) == account)
            try await harness.log.wait(for: "the woken poll") { $0.count(where: pollResult) > polls }
            let nextPoll = try #require(try await harness.status(of: 0, from: supervisor).nextPoll)
            let next = try #require(ISO8601DateFormatter().date(from: nextPoll))
            #expect(next.timeIntervalSinceNow > 600)
        }
        await relay.stop()
    }
}

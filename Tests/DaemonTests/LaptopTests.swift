import Daemon
import DBus
import DesktopSuites
import Foundation
import Glibc
import PushCore
import Settings
import StateStore
import TestSupport
import Testing
import MainLoop

/// A laptop's day, with systemd-logind and NetworkManager played on a stand-in system bus:
/// suspends and resumes, the network going and coming back, and the gitbay and relay stand-ins
/// unreachable meanwhile.
@Suite(.needsDesktopSession) struct LaptopTests {
    /// Polls only when woken (or after an hour), so every poll after the start came of a resume
    /// or the network's return.
    static var hourly: DaemonSettings {
        var settings = DaemonSettings.forTests
        settings.pollInterval = 3600
        return settings
    }

    /// Runs `body` with a stand-in system bus, stopped afterwards. logind waits for delay
    /// inhibitors up to a minute here (5 s on a real system), so that a sleep that did not time
    /// out proves the daemon let go, however busy the machine.
    static func withSystemBus(_ body: (SystemBusStandin) async throws -> Void) async throws {
        let system = try await SystemBusStandin.start(inhibitDelayMax: .seconds(60))
        do {
            try await body(system)
        } catch {
            await system.stop()
            throw error
        }
        await system.stop()
    }

    /// `supervisor` following `system`'s logind and NetworkManager, as gbnotifyd does.
    static func follow(_ system: SystemBusStandin, _ supervisor: Supervisor, _ harness: Harness) async throws -> (DBusConnection, SystemWatch) {
        let bus = try await system.connect()
        return (bus, try await SystemWatch.start(telling: supervisor, state: StateFiles(harness.state), on: bus, logger: harness.logger))
    }

    @Test func aNoticeAddedDuringSleepIsShownAtTheResumeAndTheRelayResumesWhereItStopped() async throws {
        try await Self.withSystemBus { system in
            let relay = try await RelayStandin.start()
            try await Harness.run(1) { harness in
                var settings = try RelayStreamTests.settings(relay)
                settings.pollInterval = 3600
                let supervisor = harness.supervisor(settings)
                try await supervisor.start()
                try await relay.waitForSubscriptions(count: 1)
                let account = harness.instances[0].account
                try await harness.desktop.waitForUpdates(1, for: account)
                let (bus, watch) = try await Self.follow(system, supervisor, harness)
                let held = try await system.waitForInhibitors(held: 1)
                #expect(held.map { [$0.what, $0.who, $0.mode] } == [["sleep", "gbnotifyd", "delay"]])
                let before = try await RelayStreamTests.wake(0, harness, relay, issue: 1)

                // logind waited for the daemon's delay inhibitor, which it let go of well within
                // the limit, once the state was saved.
                let slept = try await system.sleep()
                #expect(!slept.timedOut)
                #expect(slept.delayedBy.map(\.who) == ["gbnotifyd"])
                let released = try await system.waitForInhibitors(released: 1)
                #expect(released.first?.released != nil)
                let saved = try harness.state.loadAccounts().state.accounts[account.id]
                #expect(saved?.highWater != nil)

                // Asleep: a row is added, and its relay message waits in the relay's cache. The
                // sleep took the network down, and the daemon closes its stream once it hears so:
                // published before that, the message would come over the stream still open and
                // the resume start after it (seen on a loaded machine).
                try await relay.waitForOpenStreams(0)
                let issue = try await harness.instances[0].standin.addNotification(
                    for: Harness.username, repo: "krz/gitbay", kind: "issue", actor: "noor", summary: "opened issue #2",
                    path: "krz/gitbay/issues/2")
                let whileAsleep = try await relay.publish(RelayStreamTests.message(2), to: try harness.topic(of: 0))
                let shown = harness.desktop.notices(for: account).count

                try await system.resume()
                try await harness.desktop.news.wait(for: "the row added during sleep", timeout: .seconds(5)) { news in
                    RecordingDesktop.updates(in: news, for: account).flatMap(\.notices).count > shown
                }
                let resumed = try await relay.waitForSubscriptions(count: 2, timeout: .seconds(5))
                #expect(resumed.last?.since == before.id)
                // Taken again for the next suspend.
                try await system.waitForInhibitors(held: 1, released: 1)

                // Shown once, whether the poll came of the resume or of the relay's message.
                try await harness.waitForEvents("relay message \(whileAsleep.id) handled") {
                    if case .relayWoke(_, messageID: whileAsleep.id) = $0 { true } else { false }
                }
                let notices = harness.desktop.notices(for: account)
                #expect(notices.count == shown + 1)
                #expect(notices.last?.gist == .item(Int64(issue)))
                _ = consume watch
                await bus.close()
            }
            await relay.stop()
        }
    }

    @Test func offlineNothingPollsOrWaitsOrFailsAndOnlineEveryAccountPollsAtOnce() async throws {
        try await Self.withSystemBus { system in
            try await Harness.run(2) { harness in
                let clock = ManualClock()
                var settings = DaemonSettings.forTests
                settings.pollInterval = 30
                let supervisor = harness.supervisor(settings, parts: Supervisor.Parts(timeline: Timeline(clock)))
                try await supervisor.start()
                try await clock.waitForSleepers(2)
                clock.advance(by: .seconds(1))
                for instance in harness.instances { try await harness.desktop.waitForUpdates(1, for: instance.account) }
                let (bus, watch) = try await Self.follow(system, supervisor, harness)
                try await clock.waitForSleepers(2)

                try await system.goOffline()
                try await harness.waitForEvents("offline") { $0 == .network(.offline) }
                // No timer at all: an offline daemon does not wake up.
                try await clock.waitUntilNothingSleeps()
                let status = await supervisor.status()
                #expect(status.network == .offline)
                #expect(status.accounts.map(\.state) == [.offline, .offline])

                // The instances go away, rows are added, an hour passes: nothing is asked,
                // nothing fails, nothing backs off.
                let polled = try await [harness.listRequests(0).count, harness.listRequests(1).count]
                var added: [[Int]] = []
                for instance in harness.instances {
                    _ = try await instance.standin.addFault(.init(.close, times: 1000))
                    added.append(try await instance.standin.addNotifications(for: Harness.username, count: 2))
                }
                clock.advance(by: .seconds(3600))
                #expect(clock.pendingSleeps == 0)
                #expect(try await [harness.listRequests(0).count, harness.listRequests(1).count] == polled)
                let quiet = await supervisor.status().accounts
                #expect(quiet.map(\.state) == [.offline, .offline])
                #expect(quiet.allSatisfy { $0.lastError == nil })
                #expect(!harness.log.value.contains { $0.contains("poll failed") })
                #expect(harness.desktop.rejectedTokens.isEmpty)

                // Back: each account polls within the return window, its rows shown once.
                for instance in harness.instances { try await instance.standin.clearFaults() }
                // Online once already, at the start, when NetworkManager first answered.
                let online = harness.events.value.count { $0 == .network(.online) }
                try await system.goOnline()
                try await harness.waitForEvents("back online", count: online + 1) { $0 == .network(.online) }
                try await clock.waitForSleepers(2)
                clock.advance(by: .seconds(PollSchedule.returnWindow))
                for (index, instance) in harness.instances.enumerated() {
                    let notices = try await harness.desktop.waitForNotices(2, for: instance.account)
                    #expect(notices.map(\.gist) == added[index].map { .item(Int64($0)) })
                }
                #expect(await supervisor.status().network == .online)
                _ = consume watch
                await bus.close()
            }
        }
    }

    @Test func offlineTheRelayWaitsWithNoTimerAndOnlineItResumesWhereItStopped() async throws {
        try await Self.withSystemBus { system in
            let relay = try await RelayStandin.start()
            try await Harness.run(1) { harness in
                let clock = ManualClock()
                let supervisor = try await RelayStreamTests.started(harness, relay, clock: clock)
                let (bus, watch) = try await Self.follow(system, supervisor, harness)
                let message = try await relay.publish(RelayStreamTests.message(1), to: try harness.topic(of: 0))
                try await RelayStreamTests.waitUntilHandled(message.id, harness)

                try await system.goOffline()
                try await harness.waitForLog("connecting again once the network is back")
                // Neither the stream nor the account waits on a timer; an hour passes unheard.
                try await clock.waitUntilNothingSleeps()
                clock.advance(by: .seconds(3600))
                #expect(try await relay.waitForSubscriptions(count: 1).count == 1)
                #expect(await supervisor.status().relay.connected == false)

                try await system.goOnline()
                let subscriptions = try await relay.waitForSubscriptions(count: 2)
                #expect(subscriptions.last?.since == message.id)
                #expect(subscriptions.count == 2)
                _ = consume watch
                await bus.close()
            }
            await relay.stop()
        }
    }

    /// The real gbnotifyd on the stand-in system bus: logind counts its inhibitor (a descriptor
    /// passed over its own libdbus connection), and `status` says when NetworkManager is offline.
    @Test func theDaemonHoldsItsInhibitorAndSaysWhenItIsOffline() async throws {
        try await PrivateSession.run {
            try await Self.withSystemBus { system in
                let fixture = try await BinaryFixture.start()
                let daemon = try RunningDaemon(environment: system.environment(fixture.home.environment))
                try await daemon.waitForPoll(of: fixture.account)
                let held = try await system.waitForInhibitors(held: 1)
                #expect(held.map(\.pid) == [UInt32(daemon.pid)])

                try await system.goOffline()
                try await daemon.waitForEvent("the network offline") { $0 == .network(.offline) }
                let status = try JSONDecoder().decode(DaemonStatus.self, from: Data(try await fixture.home.ctl(["status", "--json"]).stdout.utf8))
                #expect(status.network == .offline)
                #expect(status.accounts.map(\.state) == [.offline])
                #expect(try await fixture.home.ctl(["status"]).stdout.contains("offline"))

                let slept = try await system.sleep()
                #expect(!slept.timedOut)
                #expect(slept.delayedBy.map(\.pid) == [UInt32(daemon.pid)])
                daemon.send(SIGTERM)
                #expect(try await daemon.waitForExit() == 0)
                await fixture.finish()
            }
        }
    }

    /// Containers and other inits: no system bus at all, and everything else as ever.
    @Test func withoutASystemBusTheDaemonPollsAsEver() async throws {
        try await PrivateSession.run {
            let fixture = try await BinaryFixture.start()
            // A daemon home has no system bus.
            let daemon = try RunningDaemon(environment: fixture.home.environment)
            try await daemon.waitForPoll(of: fixture.account)
            #expect(daemon.lines(containing: "no system bus").count == 1)
            #expect(daemon.lines(containing: "sleep and network changes are not followed").count == 1)
            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            await fixture.finish()
        }
    }
}

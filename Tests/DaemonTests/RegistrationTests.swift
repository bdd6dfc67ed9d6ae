import Accounts
import Daemon
import DesktopSuites
import Foundation
import GitbayClient
import Keyring
import PushCore
import Settings
import StateStore
import TestSupport
import Testing

/// Registering each account's own device token with it: recorded per account, never fatal.
@Suite(.needsDesktopSession) struct RegistrationTests {
    @Test(arguments: [Harness.Wire.direct, .http2Front])
    func outcomesAreRecordedPerAccountAndNeverStopPolling(_ wire: Harness.Wire) async throws {
        try await Harness.run(3, scopes: [2: .read], wire: wire) { harness in
            let (registered, noPush, readOnly) = (harness.instances[0], harness.instances[1], harness.instances[2])
            try await noPush.standin.configure(.init(pushEnabled: false))
            let supervisor = harness.supervisor()
            try await supervisor.start()
            // Each has answered a poll once its second poll is on its way.
            for index in harness.instances.indices {
                try await harness.waitForListRequests(2, on: index)
            }

            let device = try #require(try await registered.standin.state().devices.first)
            #expect(device.token == (try harness.topic(of: 0)))
            #expect(device.label == "gbnotifyd on test-host")
            // Each account its own token; none shared.
            #expect(Set(try harness.instances.indices.map { try harness.topic(of: $0) }).count == 3)
            let ok = try await harness.status(of: 0, from: supervisor)
            #expect(ok.state == .ok)
            #expect(ok.deviceID == Int64(device.id))
            #expect(ok.lastError == nil)

            let pushless = try await harness.status(of: 1, from: supervisor)
            #expect(pushless.state == .pushUnavailable)
            #expect(pushless.deviceID == nil)
            #expect(pushless.lastError == "this instance does not send push notifications")
            #expect(pushless.lastPoll != nil)

            let readScoped = try await harness.status(of: 2, from: supervisor)
            #expect(readScoped.state == .registrationFailed)
            #expect(readScoped.lastError == "the token is read-only, so this install cannot register")
            #expect(readScoped.lastPoll != nil)

            let stored = try harness.state.loadAccounts().state.accounts
            #expect(stored[registered.account.id]?.deviceID == Int64(device.id))
            #expect(stored[noPush.account.id]?.registrationError == "this instance does not send push notifications")
            #expect(stored[readOnly.account.id]?.registrationError == "the token is read-only, so this install cannot register")
            // Registration and polling each keep their own fields.
            #expect(stored.values.allSatisfy { $0.highWater == 0 })
        }
    }

    @Test func aReapedDeviceRowIsRegisteredAgain() async throws {
        try await Harness.run(1) { harness in
            let instance = harness.instances[0]
            var settings = DaemonSettings.forTests
            settings.registrationCheckInterval = 1
            let supervisor = harness.supervisor(settings)
            try await supervisor.start()
            try await harness.desktop.waitForUpdates(1, for: instance.account)
            let reaped = try #require(try await instance.standin.state().devices.first)

            // What the server's reaping looks like from here: the row is gone from the list.
            let client = GitbayClient(instance: instance.account.instance, token: try APIToken(instance.token))
            guard case .success = try await client.send(.deviceRemove(id: Int64(reaped.id))) else {
                Issue.record("could not remove the device row")
                return
            }
            try await harness.waitForLog("device \(reaped.id) is gone from the server's device list")
            try await harness.waitForRegistrations(2)
            let again = try #require(try await instance.standin.state().devices.first)
            #expect(again.token == reaped.token)
            #expect(try await harness.status(of: 0, from: supervisor).deviceID == Int64(again.id))
            #expect(try harness.state.loadAccounts().state.accounts[instance.account.id]?.deviceID == Int64(again.id))
        }
    }

    @Test func theDeviceListIsReadAtMostOncePerInterval() async throws {
        try await Harness.run(1) { harness in
            var settings = DaemonSettings.forTests
            settings.registrationCheckInterval = 2
            try await harness.supervisor(settings, parts: Supervisor.Parts(timeline: harness.virtualTime(pollers: 1))).start()
            try await harness.waitForAnsweredPolls(12, of: 0)
            // On the clock the daemon spaces its reads by: a read of the device list comes just
            // before a poll, in the same turn of the poller, so at that poll's time (in virtual
            // time nothing moves while a request is out). A read at every poll would come 0.5 s
            // after the last.
            let polls = harness.answeredPolls(of: 0)
            var checks: [Duration] = []
            var polled = 0
            for request in try await harness.instances[0].standin.requests() where polled < polls.count {
                if request.queryArgv == ["notifications", "device", "list"] { checks.append(polls[polled]) }
                if request.queryArgv == ["notifications", "list"] { polled += 1 }
            }
            let span = polls.last! - polls.first!
            #expect(!checks.isEmpty)
            #expect(Double(checks.count) <= span / .seconds(2) + 1, "\(checks.count) device list reads in \(span)")
            for (earlier, later) in zip(checks, checks.dropFirst()) {
                #expect(later - earlier >= .seconds(2), "device list reads \(later - earlier) apart")
            }
        }
    }

    /// gitbay's `device add` hands a token's row to its newest caller: with one token for both,
    /// only one of two accounts of an instance would get push, and removing either would delete
    /// the row the other uses. With a token each, each keeps its own row.
    @Test func twoAccountsOfOneInstanceEachKeepTheirOwnRow() async throws {
        try await Harness.run(1) { harness in
            let standin = harness.instances[0].standin
            let ana = try Account(instance: harness.instances[0].account.instance, username: "ana")
            let anaToken = try await standin.addUserWithToken("ana")
            try await Keyring().store(try APIToken(anaToken), for: ana)
            defer { Task { _ = try? await Keyring().delete(ana) } }
            let supervisor = harness.supervisor(accounts: harness.keyringAccounts(including: []))
            try await supervisor.start()
            try await harness.desktop.waitForUpdates(1, for: ana)
            try await harness.desktop.waitForUpdates(1, for: harness.instances[0].account)

            let devices = try await standin.state().devices
            #expect(Set(devices.map(\.username)) == ["cmc", "ana"])
            #expect(Set(devices.map(\.token)).count == 2)
            let records = try harness.state.loadAccounts().state.accounts
            #expect(Set(devices.map(\.token)) == Set([records[ana.id]?.deviceToken, try harness.topic(of: 0)].compactMap { $0 }))
            await supervisor.stop()

            // Removing one account deletes its row only.
            let manager = AccountManager(
                keyring: Keyring(), state: harness.state, clientOptions: DaemonSettings.forTests.client, hostname: "test-host")
            let report = try await manager.remove(ana, allowsToken: { _ in true })
            guard case .removed = report.deregistration else {
                Issue.record("not deregistered: \(report.deregistration)")
                return
            }
            #expect(try await standin.state().devices.map(\.username) == ["cmc"])
        }
    }

    /// An install of an earlier version registered one shared token with every account. On the
    /// first start after the upgrade each account removes the shared token's row where it is
    /// still its own, and registers a token of its own.
    @Test func anUpgradeMovesEachAccountOffTheSharedInstallToken() async throws {
        try await Harness.run(2) { harness in
            let shared = String(repeating: "5a", count: 32)
            let (first, second) = (harness.instances[0], harness.instances[1])
            let ana = try Account(instance: first.account.instance, username: "ana")
            let anaToken = try await first.standin.addUserWithToken("ana")
            try await Keyring().store(try APIToken(anaToken), for: ana)
            defer { Task { _ = try? await Keyring().delete(ana) } }

            // What the old version did: the shared token registered by cmc, then by ana (who then
            // owns the row, gitbay's upsert), on the first instance; by cmc on the second.
            func register(_ token: String, on instance: GitbayInstance) async throws -> Int64 {
                let client = GitbayClient(instance: instance, token: try APIToken(token))
                return try await client.send(.deviceAdd(label: "gbnotifyd on old-host"), stdin: shared).decode(DeviceRegistration.self).id
            }
            let cmcOld = try await register(first.token, on: first.account.instance)
            let anaOld = try await register(anaToken, on: first.account.instance)
            let otherOld = try await register(second.token, on: second.account.instance)
            #expect(cmcOld == anaOld)
            try harness.state.create()
            try Data((shared + "\n").utf8).write(to: URL(fileURLWithPath: harness.state.path + "/install-token"))
            try harness.state.updateAccounts { state in
                state.accounts[first.account.id] = AccountRecord(deviceID: cmcOld)
                state.accounts[ana.id] = AccountRecord(deviceID: anaOld)
                state.accounts[second.account.id] = AccountRecord(deviceID: otherOld)
            }

            let supervisor = harness.supervisor()
            try await supervisor.start()
            try await harness.waitForRegistrations(3)

            let records = try harness.state.loadAccounts().state.accounts
            let onFirst = try await first.standin.state().devices
            #expect(!onFirst.contains { $0.token == shared }, "the shared token's row is gone")
            #expect(Set(onFirst.map(\.username)) == ["cmc", "ana"])
            #expect(Set(onFirst.map(\.token)) == Set([records[first.account.id]?.deviceToken, records[ana.id]?.deviceToken].compactMap { $0 }))
            let onSecond = try await second.standin.state().devices
            #expect(onSecond.map(\.token) == [records[second.account.id]?.deviceToken].compactMap { $0 })
            #expect(records.values.allSatisfy { $0.deviceToken != nil && $0.deviceID != nil })
        }
    }
}

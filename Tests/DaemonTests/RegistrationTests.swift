import Daemon
import Foundation
import GitbayClient
import PushCore
import StateStore
import TestSupport
import Testing

/// Registering this install with every account: recorded per account, never fatal.
@Suite struct RegistrationTests {
    @Test func outcomesAreRecordedPerAccountAndNeverStopPolling() async throws {
        try await Harness.run(3, scopes: [2: .read]) { harness in
            let (registered, noPush, readOnly) = (harness.instances[0], harness.instances[1], harness.instances[2])
            try await noPush.standin.configure(.init(pushEnabled: false))
            let supervisor = harness.supervisor()
            try await supervisor.start()
            // Each has answered a poll once its second poll is on its way.
            for index in harness.instances.indices {
                try await harness.waitForListRequests(2, on: index)
            }

            let device = try #require(try await registered.standin.state().devices.first)
            let installToken = try String(contentsOfFile: harness.state.path + "/install-token", encoding: .utf8)
            #expect(device.token + "\n" == installToken)
            #expect(device.label == "gbnotifyd on test-host")
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
            try await harness.presenter.waitForUpdates(1, for: instance.account)
            let reaped = try #require(try await instance.standin.state().devices.first)

            // What the server's reaping looks like from here: the row is gone from the list.
            let client = GitbayClient(instance: instance.account.instance, token: try APIToken(instance.token))
            guard case .success = try await client.send(.deviceRemove(id: Int64(reaped.id))) else {
                Issue.record("could not remove the device row")
                return
            }
            try await harness.waitForLog("device \(reaped.id) is gone from the server's device list")
            try await harness.waitForLog("registered this install as device", occurrence: 2)
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
            try await harness.supervisor(settings).start()
            let polls = try await harness.waitForListRequests(12, on: 0)
            let checks = try await harness.instances[0].standin.requests().filter {
                $0.queryArgv == ["notifications", "device", "list"]
            }
            let span = polls.last!.time - polls.first!.time
            #expect(!checks.isEmpty)
            #expect(Double(checks.count) <= span / 2 + 1, "\(checks.count) device list reads in \(span) s")
            // The daemon spaces its reads by its own clock when it sends them; the stand-in's
            // arrival times carry each request's own delay on the way, a few milliseconds at
            // most, so they are compared with that much room. A read at every poll would come
            // 0.5 s after the last.
            for (earlier, later) in zip(checks, checks.dropFirst()) {
                #expect(later.time - earlier.time >= 2 - 0.1)
            }
        }
    }
}

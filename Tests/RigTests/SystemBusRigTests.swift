import DBus
import Foundation
import TestSupport
import Testing

/// The system bus stand-in against plain clients: a subscriber on the bus, gdbus, and
/// systemd-inhibit taking logind's real inhibitor file descriptor.
@Suite struct SystemBusRigTests {
    private static let login1 = "org.freedesktop.login1"
    private static let networkManager = "org.freedesktop.NetworkManager"

    @Test func prepareForSleepReachesASubscriberBeforeAndAfterSleep() async throws {
        let bus = try await SystemBusStandin.start()
        let connection = try await bus.connect()
        let signals = try await connection.signals(matching: DBusMatchRule(
            path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager", member: "PrepareForSleep"))
        let sender = try #require(try await connection.nameOwner(Self.login1))

        let slept = try await bus.sleep()
        #expect(!slept.timedOut && slept.delayedBy.isEmpty)
        #expect(try await bus.state().logind?.preparingForSleep == true)
        try await bus.resume()

        let received = try await withDeadline(.seconds(15), "PrepareForSleep twice") {
            var received: [DBusSignal] = []
            for await signal in signals {
                received.append(signal)
                if received.count == 2 { break }
            }
            return received
        }
        #expect(received.map(\.arguments) == [[.bool(true)], [.bool(false)]])
        #expect(received.allSatisfy { $0.sender == sender })
        await connection.close()
        await bus.stop()
    }

    @Test func sleepWaitsForADelayInhibitorUntilItsHolderLetsGo() async throws {
        // A limit far beyond the test's own pace on a busy machine: the wait must end by the
        // release, not by the limit (which the next test is about).
        let bus = try await SystemBusStandin.start(inhibitDelayMax: .seconds(60))
        let holder = try InhibitorHolder(mode: "delay", who: "rig test", why: "finishing writes", on: bus)
        let taken = try await bus.waitForInhibitors(held: 1)
        #expect(taken.map(\.what) == ["sleep"] && taken.map(\.mode) == ["delay"] && taken.map(\.who) == ["rig test"])
        #expect(taken.first?.pid == UInt32(holder.pid))
        let connection = try await bus.connect()
        let prepare = try await connection.signals(matching: DBusMatchRule(member: "PrepareForSleep"))

        async let sleeping = bus.sleep()
        // Asleep only once the holder lets go, after it saw PrepareForSleep(true).
        try await withDeadline(.seconds(15), "PrepareForSleep(true)") {
            for await _ in prepare { return }
        }
        #expect(try await bus.state().logind?.inhibitors.first?.released == nil)
        await holder.release()
        let slept = try await sleeping

        #expect(!slept.timedOut)
        #expect(slept.delayedBy.map(\.who) == ["rig test"])
        let released = try await bus.waitForInhibitors(released: 1)
        #expect(released.first?.released != nil)
        await connection.close()
        await bus.stop()
    }

    @Test func sleepGoesAheadAtTheDelayLimitAndNewDelayInhibitorsAreRefusedMeanwhile() async throws {
        let bus = try await SystemBusStandin.start(inhibitDelayMax: .milliseconds(500))
        let holder = try InhibitorHolder(mode: "delay", who: "slow", why: "never done", on: bus)
        try await bus.waitForInhibitors(held: 1)

        let slept = try await bus.sleep()

        #expect(slept.timedOut)
        #expect(slept.waited >= 0.5)
        let refused = try await Program.run(
            ["gdbus", "call", "--system", "--dest", Self.login1, "--object-path", "/org/freedesktop/login1",
             "--method", "org.freedesktop.login1.Manager.Inhibit", "sleep", "late", "too late", "delay"],
            environment: bus.environment())
        #expect(refused.stderr.contains("org.freedesktop.login1.OperationInProgress"), "\(refused.stderr)")
        try await bus.resume()
        await holder.release()
        await bus.stop()
    }

    @Test func aBlockInhibitorRefusesSleep() async throws {
        let bus = try await SystemBusStandin.start()
        let holder = try InhibitorHolder(mode: "block", who: "burner", why: "burning", on: bus)
        try await bus.waitForInhibitors(held: 1)

        await #expect(throws: Standin.ControlError.self) { try await bus.sleep() }
        #expect(try await bus.state().logind?.preparingForSleep == false)
        await holder.release()
        await bus.stop()
    }

    @Test func networkManagersPropertiesAndSignalsChangeAsDriven() async throws {
        let bus = try await SystemBusStandin.start()
        let connection = try await bus.connect()
        let signals = try await connection.signals(matching: DBusMatchRule(path: "/org/freedesktop/NetworkManager"))
        func property(_ name: String) async throws -> DBusValue? {
            try await connection.call(
                destination: Self.networkManager, path: "/org/freedesktop/NetworkManager",
                interface: "org.freedesktop.DBus.Properties", member: "Get",
                arguments: [.string(Self.networkManager), .string(name)]
            ).first
        }
        #expect(try await property("State") == .variant(.uint32(70)))
        #expect(try await property("Connectivity") == .variant(.uint32(4)))

        try await bus.goOffline()

        #expect(try await property("State") == .variant(.uint32(20)))
        #expect(try await property("Connectivity") == .variant(.uint32(1)))

        try await bus.goOnline()

        #expect(try await property("State") == .variant(.uint32(70)))
        let received = try await withDeadline(.seconds(15), "eight signals") {
            var received: [DBusSignal] = []
            for await signal in signals {
                received.append(signal)
                if received.count == 8 { break }
            }
            return received
        }
        // Each change: PropertiesChanged, then StateChanged with the new state.
        #expect(received.map(\.member) == Array(repeating: ["PropertiesChanged", "StateChanged"], count: 4).flatMap { $0 })
        #expect(received.filter { $0.member == "StateChanged" }.map(\.arguments) == [30, 20, 40, 70].map { [.uint32($0)] })
        let connectivity = received.filter { $0.member == "PropertiesChanged" }.compactMap { signal -> UInt32? in
            guard case .dictionary(_, _, let entries)? = signal.arguments.dropFirst().first else { return nil }
            return entries.first { $0.key == .string("Connectivity") }.flatMap {
                if case .variant(.uint32(let value)) = $0.value { value } else { nil }
            }
        }
        #expect(connectivity == [1, 4])
        await connection.close()
        await bus.stop()
    }

    @Test func networkManagerSleepsWithTheMachineAndReconnectsAfter() async throws {
        let bus = try await SystemBusStandin.start()

        try await bus.sleep()
        #expect(try await bus.state().networkManager?.state == .asleep)
        try await bus.resume()

        let state = try #require(try await bus.state().networkManager)
        #expect(state.state == .connectedGlobal && state.connectivity == .full)
        await bus.stop()
    }

    @Test func eitherServiceOrTheWholeBusCanBeMissing() async throws {
        let bare = try await SystemBusStandin.start(logind: false, networkManager: false)
        let connection = try await bare.connect()
        #expect(try await connection.nameHasOwner(Self.login1) == false)
        #expect(try await connection.nameHasOwner(Self.networkManager) == false)

        try await bare.setPresence(networkManager: true)
        #expect(try await connection.nameHasOwner(Self.networkManager))
        try await bare.setPresence(networkManager: false)
        #expect(try await connection.nameHasOwner(Self.networkManager) == false)
        await connection.close()
        await bare.stop()

        let address = try #require(SystemBusStandin.noSystemBus["DBUS_SYSTEM_BUS_ADDRESS"])
        await #expect(throws: DBusError.self) { try await DBusConnection.connect(to: .address(address)) }
    }
}

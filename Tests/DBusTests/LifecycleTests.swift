@testable import DBus
import Testing
import TestSupport

@Suite("Connection lifecycle")
struct LifecycleTests {
    @Test("close() fails the calls in flight with Disconnected, and everything after it")
    func closeWithCallsInFlight() async throws {
        let service = try await EchoService.start()
        let client = try await connectToTestBus()
        let inFlight = (0..<5).map { _ in Task { try await service.call("Block", from: client) } }
        await service.waitForBlockedCalls(inFlight.count)

        await client.close()
        for call in inFlight {
            await expectDBusError(DBusError.Name.disconnected) { _ = try await call.value }
        }
        #expect(try await client.waitUntilClosed() == .closed)
        await expectDBusError(DBusError.Name.disconnected) { _ = try await service.call("Sender", from: client) }
        await expectDBusError(DBusError.Name.disconnected) {
            try client.emitSignal(path: "/a", interface: "a.b", member: "C")
        }
        await expectDBusError(DBusError.Name.disconnected) { _ = try await client.watchNameOwner("a.b") }
        await client.close()

        // The server answers the callers that left, and carries on.
        service.gate.open()
        let other = try await connectToTestBus()
        #expect(try await service.call("Sender", from: other) == [.string(other.uniqueName)])
        await other.close()
        await service.connection.close()
    }

    @Test("losing the bus ends the connection with .disconnected, failing calls and ending streams")
    func busGoesAway() async throws {
        let bus = try await PrivateBus()
        let client = try await DBusConnection.connect(to: .address(bus.address))
        let server = try await DBusConnection.connect(to: .address(bus.address))
        let gate = Gate()
        try await server.export(
            path: "/block", interface: "org.gitbay.DBusTests.Block", introspection: "",
            methods: [DBusMethod("Block") { _ in await gate.wait(); return [] }])
        let signals = try await client.signals(matching: DBusMatchRule(interface: "org.gitbay.DBusTests.Block"))
        let call = Task {
            try await client.call(
                destination: server.uniqueName, path: "/block", interface: "org.gitbay.DBusTests.Block",
                member: "Block")
        }

        await bus.stop()
        #expect(try await client.waitUntilClosed() == .disconnected)
        #expect(try await server.waitUntilClosed() == .disconnected)
        await expectDBusError(DBusError.Name.disconnected) { _ = try await call.value }
        var iterator = signals.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        gate.open()
    }

    @Test("a limited connection refuses a larger call and keeps its unique name, its name, rules and watches")
    func oversizedCallIsRefusedWithoutLosingTheConnection() async throws {
        let bus = try await PrivateBus()
        let name = "org.gitbay.DBusTests.\(uniqueElement("Limited"))"
        let (oversizedCalls, told) = AsyncStream.makeStream(of: DBusOversizedMessage.self)
        let limited = try await DBusConnection.connect(to: .address(bus.address), limitingIncomingMessagesTo: 48 * 1024) {
            told.yield($0)
        }
        let peer = try await DBusConnection.connect(to: .address(bus.address))
        try await limited.export(
            path: "/limited", interface: "org.gitbay.DBusTests.Limited", introspection: "",
            methods: [DBusMethod("Echo", input: "s", output: "u") { call in [.uint32(UInt32(call.arguments[0].stringValue?.utf8.count ?? 0))] }])
        #expect(try await limited.requestName(name))
        let signals = try await limited.signals(matching: DBusMatchRule(interface: "org.gitbay.DBusTests.Limited"))
        var received = signals.makeAsyncIterator()
        let watched = "\(name).Watched"
        var owners = try await limited.watchNameOwner(watched).makeAsyncIterator()
        #expect(await owners.next() == .some(nil))
        let first = limited.uniqueName
        var oversized = oversizedCalls.makeAsyncIterator()

        func echo(_ text: String) async throws -> [DBusValue] {
            try await peer.call(
                destination: name, path: "/limited", interface: "org.gitbay.DBusTests.Limited", member: "Echo",
                arguments: [.string(text)])
        }
        #expect(try await echo(String(repeating: "x", count: 1000)) == [.uint32(1000)])
        // Over the limit, twice: refused, and its sender told of once.
        await expectDBusError(DBusError.Name.limitsExceeded) { _ = try await echo(String(repeating: "x", count: 70_000)) }
        await expectDBusError(DBusError.Name.limitsExceeded) { _ = try await echo(String(repeating: "x", count: 3 << 20)) }
        #expect(await oversized.next() == DBusOversizedMessage(sender: peer.uniqueName, member: "Echo"))
        // A signal over the limit is dropped; the next one comes.
        try peer.emitSignal(path: "/limited", interface: "org.gitbay.DBusTests.Limited", member: "Big", arguments: [.string(String(repeating: "y", count: 60_000))])
        try peer.emitSignal(path: "/limited", interface: "org.gitbay.DBusTests.Limited", member: "Ping")
        #expect(await received.next()?.member == "Ping")
        // The same connection, under the same names, answering, its watch still watching.
        #expect(limited.uniqueName == first)
        #expect(try await echo("still") == [.uint32(5)])
        #expect(try await peer.requestName(watched))
        #expect(await owners.next() == .some(peer.uniqueName))

        await limited.close()
        await peer.close()
        // Told once: nothing more from the same sender, up to the connection's end (a telling
        // comes on the loop before the close is done).
        told.finish()
        #expect(await oversized.next() == nil)
    }

    @Test("a limited connection whose bus is gone ends like any other")
    func limitedConnectionLosesItsBus() async throws {
        let bus = try await PrivateBus()
        let limited = try await DBusConnection.connect(to: .address(bus.address), limitingIncomingMessagesTo: 64 * 1024)
        await bus.stop()
        #expect(try await limited.waitUntilClosed() == .disconnected)
    }

    @Test("dropping the last reference closes the connection")
    func deinitCloses() async throws {
        var connection: DBusConnection? = try await connectToTestBus()
        let mailbox = try #require(connection?.mailbox)
        connection = nil
        #expect(try await mailbox.waitUntilFinished() == .closed)
    }

    @Test("an idle connection does not wake up")
    func noIdleWakeUps() async throws {
        let connection = try await connectToTestBus()
        // Set up like the daemon: an exported object, a subscription and a name watch.
        let interface = "org.gitbay.DBusTests.\(uniqueElement("Idle"))"
        try await connection.export(path: "/idle", interface: interface, introspection: "", methods: [])
        let signals = try await connection.signals(matching: DBusMatchRule(interface: interface))
        let owners = try await connection.watchNameOwner("\(interface).Owner")

        let before = connection.mailbox.wakeUps.load(ordering: .relaxed)
        try await Task.sleep(for: .seconds(2))  // the measured stretch of idleness, not a wait for an event
        let after = connection.mailbox.wakeUps.load(ordering: .relaxed)
        #expect(after - before == 0)

        await connection.close()
        _ = (signals, owners)
    }
}

import DBus
import Testing

@Suite("Signals")
struct SignalTests {
    @Test("a broadcast signal reaches a subscriber whose rule matches, and only that one")
    func broadcast() async throws {
        let listener = try await connectToTestBus()
        let emitter = try await connectToTestBus()
        let interface = "org.gitbay.DBusTests.\(uniqueElement("Launcher"))"
        let badge: [DBusValue] = [
            .string("application://gbnotify.desktop"), .vardict(["count": .int64(3), "count-visible": .bool(true)]),
        ]

        var signals = try await listener.signals(matching: DBusMatchRule(interface: interface, member: "Update"))
            .makeAsyncIterator()
        try emitter.emitSignal(path: "/com/canonical/unity/launcherentry/1", interface: interface, member: "Other")
        try emitter.emitSignal(
            path: "/com/canonical/unity/launcherentry/1", interface: interface, member: "Update", arguments: badge)

        // Signals from one sender arrive in order, so "Other" would have come first.
        let received = try #require(await signals.next())
        #expect(received.member == "Update")
        #expect(received.arguments == badge)
        #expect(received.sender == emitter.uniqueName)
        #expect(received.destination == nil)
        #expect(received.path == "/com/canonical/unity/launcherentry/1")
        #expect(received.interface == interface)
        await listener.close()
        await emitter.close()
        #expect(await signals.next() == nil, "the stream ends with the connection")
    }

    @Test("a signal sent to us alone is delivered without any match rule at the bus")
    func unicast() async throws {
        let listener = try await connectToTestBus()
        let emitter = try await connectToTestBus()
        let interface = "org.gitbay.DBusTests.\(uniqueElement("Notifications"))"
        let rule = DBusMatchRule(interface: interface)
        var signals = try await listener.signals(matching: rule).makeAsyncIterator()
        // Take the rule away at the bus, as with GNOME's notification server, which sends
        // ActionInvoked only to the caller of Notify.
        _ = try await listener.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "RemoveMatch", arguments: [.string(rule.description)])

        try emitter.emitSignal(path: "/org/freedesktop/Notifications", interface: interface, member: "Broadcast")
        try emitter.emitSignal(
            path: "/org/freedesktop/Notifications", interface: interface, member: "ActionInvoked",
            arguments: [.uint32(7), .string("default")], destination: listener.uniqueName)

        // Had the broadcast been routed to us, it would have come first.
        let received = try #require(await signals.next())
        #expect(received.member == "ActionInvoked")
        #expect(received.arguments == [.uint32(7), .string("default")])
        #expect(received.destination == listener.uniqueName)
        await listener.close()
        await emitter.close()
    }

    @Test("a signal from the bus is matched on sender and arg0")
    func senderAndArg0() async throws {
        let listener = try await connectToTestBus()
        let owner = try await connectToTestBus()
        let name = "org.gitbay.DBusTests.\(uniqueElement("Arg"))"
        let rule = DBusMatchRule(
            sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: name)
        var signals = try await listener.signals(matching: rule).makeAsyncIterator()
        #expect(try await owner.requestName(name))
        let received = try #require(await signals.next())
        #expect(received.sender == "org.freedesktop.DBus")
        #expect(received.arguments == [.string(name), .string(""), .string(owner.uniqueName)])
        await listener.close()
        await owner.close()
    }

    @Test("a rule the bus refuses is thrown, and the connection carries on")
    func refusedRule() async throws {
        let listener = try await connectToTestBus()
        let tooLong = DBusMatchRule(interface: "org.gitbay.DBusTests.Long", arg0: String(repeating: "x", count: 2000))
        await expectDBusError(DBusError.Name.limitsExceeded) { _ = try await listener.signals(matching: tooLong) }
        #expect(try await listener.nameHasOwner("org.freedesktop.DBus"))
        await listener.close()
    }
}

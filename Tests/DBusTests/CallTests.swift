import DBus
import Testing

@Suite("Method calls")
struct CallTests {
    @Test("the bus answers ListNames and GetId")
    func busMethods() async throws {
        let client = try await connectToTestBus()
        let names = try await client.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "ListNames")
        let list = try #require(names.first?.stringArrayValue)
        #expect(list.contains("org.freedesktop.DBus"))
        #expect(list.contains(client.uniqueName))
        #expect(client.uniqueName.hasPrefix(":"))

        let id = try await client.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetId")
        let hex = try #require(id.first?.stringValue)
        #expect(hex.count == 32)
        #expect(hex.allSatisfy { $0.isHexDigit })
        await client.close()
    }

    @Test("every value type round-trips as arguments of one call")
    func everyTypeAtOnce() async throws {
        let service = try await EchoService.start()
        let client = try await connectToTestBus()
        let reply = try await service.call("EchoAll", EchoService.everyType, from: client)
        #expect(reply == EchoService.everyType)
        await client.close()
        await service.connection.close()
    }

    @Test("bytes go out as an ay, and come back as the array of them")
    func bytesAreSentAsAnArrayOfBytes() async throws {
        let service = try await EchoService.start()
        let client = try await connectToTestBus()
        let bytes = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let reply = try await service.call("EchoVariant", [.variant(.bytes(bytes))], from: client)
        #expect(reply == [.variant(.array(elementSignature: "y", bytes.map(DBusValue.byte)))])
        #expect(DBusValue.bytes([]).signature == "ay")
        await client.close()
        await service.connection.close()
    }

    @Test("every value type round-trips inside a variant", arguments: EchoService.everyType)
    func everyTypeInAVariant(_ value: DBusValue) async throws {
        let service = try await EchoService.start()
        let client = try await connectToTestBus()
        let reply = try await service.call("EchoVariant", [.variant(value)], from: client)
        #expect(reply == [.variant(value)])
        await client.close()
        await service.connection.close()
    }

    @Test("64 nested containers round-trip; one more is refused before it could cost the connection")
    func nestingLimit() async throws {
        let service = try await EchoService.start()
        let client = try await connectToTestBus()
        // The argument's own variant plus 63 inside it: 64 containers.
        let deepest = (0..<63).reduce(DBusValue.int32(5)) { inner, _ in .variant(inner) }
        #expect(try await service.call("EchoVariant", [.variant(deepest)], from: client) == [.variant(deepest)])
        await expectDBusError(DBusError.Name.invalidArgs) {
            _ = try await service.call("EchoVariant", [.variant(.variant(deepest))], from: client)
        }
        // Still connected: the bus would have dropped us had the message gone out.
        #expect(try await service.call("EchoVariant", [.variant(.byte(1))], from: client) == [.variant(.byte(1))])
        await client.close()
        await service.connection.close()
    }

    @Test("strings are valid UTF-8 by construction: invalid bytes arrive repaired, never reach libdbus raw")
    func invalidUTF8IsRepairedBeforeLibdbus() async throws {
        let service = try await EchoService.start()
        let client = try await connectToTestBus()
        // A lone surrogate and a truncated sequence, as a hostile payload might carry them.
        let decoded = String(decoding: [0x61, 0xED, 0xA0, 0x80, 0x62, 0xE2, 0x82], as: UTF8.self)
        #expect(decoded.unicodeScalars.contains("\u{FFFD}"))
        let reply = try await service.call("EchoVariant", [.variant(.string(decoded))], from: client)
        #expect(reply == [.variant(.string(decoded))])
        await client.close()
        await service.connection.close()
    }

    @Test("a handler's DBusError reaches the caller with its name and message")
    func errorReplies() async throws {
        let service = try await EchoService.start()
        let client = try await connectToTestBus()
        let error = await expectDBusError(EchoService.refusal.name) { _ = try await service.call("Fail", from: client) }
        #expect(error?.message == EchoService.refusal.message)
        await expectDBusError(DBusError.Name.failed) { _ = try await service.call("FailPlainly", from: client) }
        await client.close()
        await service.connection.close()
    }

    @Test("a reply that does not match the declared signature, or cannot be sent, becomes an error")
    func badRepliesBecomeErrors() async throws {
        let service = try await EchoService.start()
        let client = try await connectToTestBus()
        await expectDBusError(DBusError.Name.failed) { _ = try await service.call("ReplyOfWrongType", from: client) }
        await expectDBusError(DBusError.Name.invalidArgs) { _ = try await service.call("ReplyWithNul", from: client) }
        await client.close()
        await service.connection.close()
    }

    @Test("unknown methods, interfaces and objects get the standard errors")
    func unknownTargets() async throws {
        let service = try await EchoService.start()
        let client = try await connectToTestBus()
        let server = service.connection.uniqueName
        await expectDBusError(DBusError.Name.unknownMethod) { _ = try await service.call("NoSuchMethod", from: client) }
        await expectDBusError(DBusError.Name.unknownInterface) {
            _ = try await client.call(
                destination: server, path: EchoService.path, interface: "org.gitbay.Nope", member: "X")
        }
        await expectDBusError(DBusError.Name.unknownObject) {
            _ = try await client.call(
                destination: server, path: "/no/such/object", interface: EchoService.interface, member: "EchoVariant")
        }
        await expectDBusError(DBusError.Name.serviceUnknown) {
            _ = try await client.call(
                destination: "org.gitbay.DBusTests.\(uniqueElement("Absent"))", path: "/", interface: "org.gitbay.X",
                member: "Y")
        }
        await client.close()
        await service.connection.close()
    }

    @Test("arguments of the wrong types get InvalidArgs, and the handler never runs")
    func wrongSignature() async throws {
        let service = try await EchoService.start()
        let client = try await connectToTestBus()
        let error = await expectDBusError(DBusError.Name.invalidArgs) {
            _ = try await service.call("EchoVariant", [.string("not a variant")], from: client)
        }
        #expect(error?.message.contains("'v'") == true)
        await expectDBusError(DBusError.Name.invalidArgs) {
            _ = try await service.call("EchoVariant", [], from: client)
        }
        await client.close()
        await service.connection.close()
    }

    @Test("Introspect answers with the given XML, the standard interfaces and child nodes")
    func introspection() async throws {
        let service = try await EchoService.start()
        let client = try await connectToTestBus()
        func introspect(_ path: String) async throws -> String {
            let reply = try await client.call(
                destination: service.connection.uniqueName, path: path,
                interface: "org.freedesktop.DBus.Introspectable", member: "Introspect")
            return try #require(reply.first?.stringValue)
        }
        let object = try await introspect(EchoService.path)
        #expect(object.contains(EchoService.introspection))
        #expect(object.contains("<interface name=\"org.freedesktop.DBus.Introspectable\">"))
        #expect(object.hasPrefix("<!DOCTYPE node"))
        #expect(try await introspect("/").contains("<node name=\"org\"/>"))
        #expect(try await introspect("/org/gitbay").contains("<node name=\"DBusTests\"/>"))
        await expectDBusError(DBusError.Name.unknownObject) { _ = try await introspect("/elsewhere") }
        await client.close()
        await service.connection.close()
    }

    @Test("a handler learns the caller's unique name")
    func senderIsReported() async throws {
        let service = try await EchoService.start()
        let client = try await connectToTestBus()
        #expect(try await service.call("Sender", from: client) == [.string(client.uniqueName)])
        await client.close()
        await service.connection.close()
    }

    @Test("a call times out with NoReply; its late reply is dropped and the connection goes on")
    func timeoutAndLateReply() async throws {
        let service = try await EchoService.start()
        let client = try await connectToTestBus()
        let clock = ContinuousClock()
        let started = clock.now
        await expectDBusError(DBusError.Name.noReply) {
            _ = try await service.call("Block", from: client, timeout: .milliseconds(200))
        }
        #expect(clock.now - started >= .milliseconds(200))
        await service.waitForBlockedCalls(1)
        service.gate.open()
        // The late reply reaches the client before this answer: both come from the same peer.
        #expect(try await service.call("EchoVariant", [.variant(.uint32(9))], from: client) == [.variant(.uint32(9))])
        await client.close()
        await service.connection.close()
    }

    @Test("cancelling the calling task ends the call at once with CancellationError")
    func cancellation() async throws {
        let service = try await EchoService.start()
        let client = try await connectToTestBus()
        let blocked = Task { try await service.call("Block", from: client) }
        await service.waitForBlockedCalls(1)
        blocked.cancel()
        await #expect(throws: CancellationError.self) { _ = try await blocked.value }
        service.gate.open()
        #expect(try await service.call("EchoVariant", [.variant(.bool(true))], from: client) == [.variant(.bool(true))])
        await client.close()
        await service.connection.close()
    }

    @Test("many concurrent calls each get their own reply")
    func concurrentCalls() async throws {
        let service = try await EchoService.start()
        let client = try await connectToTestBus()
        // A bus without the session config's limits allows 128 pending replies per connection.
        let total: UInt32 = 1000
        let inFlight: UInt32 = 100
        let matches = try await withThrowingTaskGroup(of: Bool.self) { group in
            func start(_ number: UInt32) {
                group.addTask {
                    let reply = try await service.call("EchoVariant", [.variant(.uint32(number))], from: client)
                    return reply == [.variant(.uint32(number))]
                }
            }
            (0..<inFlight).forEach(start)
            var matches = 0
            var next = inFlight
            while let matched = try await group.next() {
                matches += matched ? 1 : 0
                if next < total {
                    start(next)
                    next += 1
                }
            }
            return matches
        }
        #expect(matches == Int(total))
        await client.close()
        await service.connection.close()
    }
}

import DBus
import Testing

/// libdbus aborts the process on each of these; here they must be thrown errors, and the
/// process and its connection must carry on.
@Suite("Malformed input is refused before libdbus")
struct RejectedInputTests {
    private func callBus(_ client: DBusConnection, _ arguments: [DBusValue]) async throws {
        _ = try await client.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetId", arguments: arguments)
    }

    @Test(
        "malformed values are refused",
        arguments: [
            ("invalid object path", DBusValue.objectPath("no/leading/slash")),
            ("object path with a trailing slash", .objectPath("/a/")),
            ("object path with a NUL", .objectPath("/a\0/b")),
            ("invalid signature value", .signature("a{vs}")),
            ("array element of the wrong type", .array(elementSignature: "s", [.int32(1)])),
            ("array with an invalid element signature", .array(elementSignature: "sx", [])),
            ("dictionary with a non-basic key", .dictionary(keySignature: "v", valueSignature: "s", [])),
            ("dictionary value of the wrong type",
             .dictionary(
                 keySignature: "s", valueSignature: "v", [DBusDictEntry(key: .string("k"), value: .string("v"))])),
            ("empty struct", .struct([])),
            ("variant holding an empty struct", .variant(.struct([]))),
            ("array nested 33 deep",
             (0..<33).reduce(DBusValue.int32(1)) { inner, _ in .array(elementSignature: inner.signature, [inner]) }),
        ])
    func malformedValues(_ label: String, _ value: DBusValue) async throws {
        let client = try await connectToTestBus()
        await expectDBusError(DBusError.Name.invalidArgs) { try await callBus(client, [value]) }
        // Alive and still connected.
        #expect(try await client.nameHasOwner("org.freedesktop.DBus"))
        await client.close()
    }

    @Test("a NUL in a string is refused, and the error does not repeat the string")
    func nulInString() async throws {
        let client = try await connectToTestBus()
        let error = await expectDBusError(DBusError.Name.invalidArgs) {
            try await callBus(client, [.vardict(["token": .string("secret-token\0tail")])])
        }
        #expect(error?.message.contains("secret") == false)
        await client.close()
    }

    @Test("malformed names and paths in a call are refused")
    func malformedHeaders() async throws {
        let client = try await connectToTestBus()
        await expectDBusError(DBusError.Name.invalidArgs) {
            _ = try await client.call(destination: "not a bus name", path: "/", interface: "a.b", member: "C")
        }
        await expectDBusError(DBusError.Name.invalidArgs) {
            _ = try await client.call(destination: "a.b", path: "//double", interface: "a.b", member: "C")
        }
        await expectDBusError(DBusError.Name.invalidArgs) {
            _ = try await client.call(destination: "a.b", path: "/", interface: "nodots", member: "C")
        }
        await expectDBusError(DBusError.Name.invalidArgs) {
            _ = try await client.call(destination: "a.b", path: "/", interface: "a.b", member: "9lives")
        }
        await expectDBusError(DBusError.Name.invalidArgs) {
            try client.emitSignal(path: "/ok", interface: "a.b", member: "Has.Dot")
        }
        await expectDBusError(DBusError.Name.invalidArgs) {
            try client.emitSignal(path: "/ok", interface: "a.b", member: "M", destination: "bad name")
        }
        await expectDBusError(DBusError.Name.invalidArgs) { _ = try await client.requestName("no-dots") }
        await expectDBusError(DBusError.Name.invalidArgs) { _ = try await client.watchNameOwner("") }
        await expectDBusError(DBusError.Name.invalidArgs) {
            _ = try await client.signals(matching: DBusMatchRule(sender: "org.freedesktop.Notifications"))
        }
        await expectDBusError(DBusError.Name.invalidArgs) {
            try await client.export(path: "relative", interface: "a.b", introspection: "", methods: [])
        }
        await expectDBusError(DBusError.Name.invalidArgs) {
            try await client.export(
                path: "/ok", interface: "a.b", introspection: "",
                methods: [DBusMethod("M", input: "a{vs}") { _ in [] }])
        }
        #expect(try await client.nameHasOwner("org.freedesktop.DBus"))
        await client.close()
    }

    @Test("a message beyond the bus's size limit is refused instead of costing the connection")
    func oversizedMessage() async throws {
        let client = try await connectToTestBus()
        let huge = String(repeating: "x", count: 32 << 20)
        await expectDBusError(DBusError.Name.limitsExceeded) { try await callBus(client, [.string(huge)]) }
        // Just under the limit it goes out: the bus itself objects to GetId's arguments.
        let large = String(repeating: "x", count: 30 << 20)
        await expectDBusError(DBusError.Name.invalidArgs) { try await callBus(client, [.string(large)]) }
        #expect(try await client.nameHasOwner("org.freedesktop.DBus"))
        await client.close()
    }

    @Test("a malformed bus address is an error, not a crash")
    func malformedAddress() async throws {
        await expectDBusError("org.freedesktop.DBus.Error.BadAddress") {
            _ = try await DBusConnection.connect(to: .address("no colon here"))
        }
        await expectDBusError(DBusError.Name.invalidArgs) {
            _ = try await DBusConnection.connect(to: .address("unix:path=/tmp/x\0y"))
        }
    }
}

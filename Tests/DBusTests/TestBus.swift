import DBus
import Foundation
import Synchronization
import Testing
import TestSupport

/// A connection to the session bus the tests run under, or, in a plain `swift test` outside any
/// session, to one bus of the tests' own for the whole run.
func connectToTestBus() async throws -> DBusConnection {
    if ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"]?.isEmpty == false {
        return try await DBusConnection.connect()
    }
    return try await DBusConnection.connect(to: .address(try await runBus.value.address))
}

/// Started by the first test that needs it; it stops when this process ends, however it ends.
private let runBus = Task { try await PrivateBus() }

/// A name element no other test (or earlier run) uses, so tests can run in parallel.
func uniqueElement(_ prefix: String) -> String {
    "\(prefix)\(UInt64.random(in: 0...UInt64.max))"
}

/// Throws unless `body` throws a `DBusError` named `name`; returns that error.
@discardableResult
func expectDBusError(
    _ name: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async -> DBusError? {
    do {
        try await body()
        Issue.record("expected \(name), but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as DBusError {
        #expect(error.name == name, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected \(name), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Holds callers until it is opened.
final class Gate: Sendable {
    private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let passes = state.withLock { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if passes { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A test peer: its own connection exporting methods that echo, fail and block on demand.
struct EchoService {
    static let path = "/org/gitbay/DBusTests/Echo"
    static let interface = "org.gitbay.DBusTests.Echo"
    static let refusal = DBusError(name: "org.gitbay.DBusTests.Error.Refused", message: "refused on purpose")
    static let introspection = """
          <interface name="org.gitbay.DBusTests.Echo">
            <method name="EchoVariant"><arg type="v" direction="in"/><arg type="v" direction="out"/></method>
          </interface>
        """

    /// Every value type, including nested `a{sv}` with variants, int64 and empty arrays.
    static let everyType: [DBusValue] = [
        .byte(0xFF), .bool(true), .bool(false), .int16(.min), .uint16(.max), .int32(.min), .uint32(.max),
        .int64(.min), .uint64(.max), .double(-1.5e300), .string(""), .string("héllo ✓ 👋"),
        .objectPath("/"), .objectPath("/org/gitbay/x_1"), .signature("a{sv}(ii)"), .signature(""),
        .array(elementSignature: "s", []),
        .array(elementSignature: "a{sv}", []),
        .stringArray(["default", "Open"]),
        .array(elementSignature: "ai", [.array(elementSignature: "i", [.int32(1)]), .array(elementSignature: "i", [])]),
        .vardict([
            "count": .int64(42), "count-visible": .bool(true), "empty": .vardict([:]),
            "nested": .vardict(["deep": .variant(.array(elementSignature: "x", [.int64(-1)]))]),
        ]),
        .dictionary(keySignature: "u", valueSignature: "as", [DBusDictEntry(key: .uint32(7), value: .stringArray([]))]),
        .struct([.int32(1), .string("one"), .struct([.bool(true)])]),
        .variant(.variant(.string("inner"))),
        .array(elementSignature: "(is)", [.struct([.int32(2), .string("two")])]),
    ]

    let connection: DBusConnection
    let gate = Gate()
    /// One element each time `Block` is entered.
    let entered: AsyncStream<Void>

    static func start() async throws -> EchoService {
        let connection = try await connectToTestBus()
        let (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
        let service = EchoService(connection: connection, entered: entered)
        let gate = service.gate
        let everySignature = everyType.map(\.signature).joined()
        try await connection.export(
            path: path, interface: interface, introspection: introspection,
            methods: [
                DBusMethod("EchoVariant", input: "v", output: "v") { $0.arguments },
                DBusMethod("EchoAll", input: everySignature, output: everySignature) { $0.arguments },
                DBusMethod("Sender", output: "s") { [.string($0.sender)] },
                DBusMethod("Fail") { _ in throw refusal },
                DBusMethod("FailPlainly") { _ in throw CocoaError(.fileNoSuchFile) },
                DBusMethod("ReplyOfWrongType", output: "s") { _ in [.int32(1)] },
                DBusMethod("ReplyWithNul", output: "s") { _ in [.string("a\0b")] },
                DBusMethod("Block", output: "s") { _ in
                    enteredContinuation.yield()
                    await gate.wait()
                    return [.string("released")]
                },
            ])
        return service
    }

    /// Calls this service from `client`.
    func call(
        _ member: String, _ arguments: [DBusValue] = [], from client: DBusConnection, timeout: Duration = .seconds(25)
    ) async throws -> [DBusValue] {
        try await client.call(
            destination: connection.uniqueName, path: Self.path, interface: Self.interface, member: member,
            arguments: arguments, timeout: timeout)
    }

    /// Waits until `count` calls to `Block` are being handled.
    func waitForBlockedCalls(_ count: Int) async {
        var iterator = entered.makeAsyncIterator()
        for _ in 0..<count { _ = await iterator.next() }
    }
}


import DBus
import Foundation
import Synchronization
import Testing

/// A connection to the session bus the tests run under, or, in a plain `swift test` outside any
/// session, to one bus of the tests' own for the whole run.
func connectToTestBus() async throws -> DBusConnection {
    if ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"]?.isEmpty == false {
        return try await DBusConnection.connect()
    }
    return try await DBusConnection.connect(to: .address(try runBus.get().address))
}

/// Started by the first test that needs it; it stops when this process ends, however it ends.
private let runBus = Result { try PrivateBus(untilThisProcessEnds: true) }

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

/// A dbus-daemon of the test's own, so a test can take the bus away from a connection.
///
/// With `untilThisProcessEnds`, a shell between holds a pipe whose other end only this process
/// has, and stops the daemon once the pipe closes: when this process ends, however it ends.
/// `stop()` is for the other kind.
///
/// Spawned directly rather than with Foundation's `Process`, which hands the child the
/// spawning thread's blocked signals (the daemon then ignores SIGTERM) and whose
/// `waitUntilExit` spins on a cooperative thread.
final class PrivateBus: Sendable {
    let address: String
    private let pid: pid_t
    private let stopped = Mutex(false)

    init(untilThisProcessEnds: Bool = false) throws {
        var output: [Int32] = [-1, -1]
        guard pipe(&output) == 0 else { throw Self.failure("pipe") }
        // Close-on-exec, so that no other child holds the lifeline open.
        var lifeline: [Int32] = [-1, -1]
        if untilThisProcessEnds {
            guard pipe(&lifeline) == 0, fcntl(lifeline[1], F_SETFD, FD_CLOEXEC) == 0 else { throw Self.failure("pipe") }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_addclose(&actions, output[0])
        if untilThisProcessEnds { posix_spawn_file_actions_adddup2(&actions, lifeline[0], 0) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let daemon = ["/usr/bin/dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1"]
        let arguments = untilThisProcessEnds
            ? ["/bin/sh", "-c", #"</dev/null "$@" & cat >/dev/null; kill $!"#, "sh"] + daemon
            : daemon
        var argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, arguments[0], &actions, &attributes, &argv, environ)
        close(output[1])
        if untilThisProcessEnds { close(lifeline[0]) }
        defer { close(output[0]) }
        guard spawned == 0 else { throw Self.failure("posix_spawn") }
        pid = child

        var printed: [UInt8] = []
        var byte: UInt8 = 0
        while read(output[0], &byte, 1) == 1, byte != UInt8(ascii: "\n") {
            printed.append(byte)
        }
        address = String(decoding: printed, as: UTF8.self)
        guard !address.isEmpty else {
            stop()
            throw Self.failure("dbus-daemon printed no address")
        }
    }

    func stop() {
        let alreadyStopped = stopped.withLock { stopped in
            defer { stopped = true }
            return stopped
        }
        guard !alreadyStopped else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    private static func failure(_ what: String) -> DBusError {
        DBusError(name: DBusError.Name.failed, message: "cannot start a private bus: \(what) (errno \(errno))")
    }
}

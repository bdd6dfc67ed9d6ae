import MainLoop
internal import CDBus

/// libdbus must know it may be used from several threads (messages are built on the calling
/// task's, which in tests is not the loop's) before anything else touches it.
private let libdbusThreadsReady = dbus_threads_init_default() != 0

/// A private connection to a message bus, served on the main loop.
///
/// A class and not an actor: libdbus calls back on the loop's thread, and those callbacks need
/// the handler tables at once, not after a hop to an actor's executor. So all mutable state is
/// the loop's (`ConnectionCore`), and this object is an immutable handle that passes work to it
/// through a `Mailbox`. Messages are built and checked on the calling task; nothing here
/// blocks.
///
/// The connection never exits the process: when the bus goes away, `waitUntilClosed()`
/// returns `.disconnected` and the owner decides (the daemon exits for systemd to restart it).
/// `close()` ends it deliberately; dropping the last reference does the same without waiting.
public final class DBusConnection: Sendable {
    public enum Bus: Sendable, Hashable {
        /// The session bus, located by libdbus (normally from `DBUS_SESSION_BUS_ADDRESS`).
        case session
        /// The system bus, located by libdbus (`DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket).
        case system
        /// A bus at a D-Bus address such as `unix:path=/run/user/1000/bus`.
        case address(String)
    }

    public enum CloseReason: Sendable, Hashable {
        /// `close()` was called, or the last reference went away.
        case closed
        /// The bus closed the connection, or it broke.
        case disconnected
        /// The connection was made again after a drop, but another connection (`owner`, nil if
        /// it was gone again by the time it was asked) had taken `name` meanwhile: whatever
        /// was sent to the name since went to it.
        case nameTaken(String, owner: String?)
    }

    /// libdbus's own default.
    public static let defaultTimeout = Duration.seconds(25)

    /// The name the bus gave this connection, such as `:1.42` (a new one after a reconnection).
    public var uniqueName: String { mailbox.uniqueName }
    /// Has `body` called, on the loop's thread with the new unique name, each time the connection
    /// was made again (see `connect`). Every observer is told: the daemon's log and the tray's
    /// registration both need to hear it.
    public func whenReconnected(_ body: @escaping @Sendable (String) -> Void) {
        mailbox.observeReconnections(body)
    }

    let mailbox: Mailbox

    private init(mailbox: Mailbox) {
        self.mailbox = mailbox
    }

    /// - Parameter limit: the largest message the connection takes in, checked by libdbus from
    ///   the message's header before its body is read, so a peer cannot make the process hold
    ///   a message of the bus's own limit (a gigabyte on a session bus). libdbus drops a
    ///   connection that is sent a larger one, which any peer can do: such a connection is made
    ///   again at once, with its match rules, names and watches, as long as the bus is there
    ///   (`whenReconnected` says so); calls in flight then fail.
    /// - Parameter tellingOversizedCalls: told, on the loop's thread, of the method calls refused
    ///   for being over `limit`, the first of each sender: the connection stays, with its unique
    ///   name and its names.
    public static func connect(
        to bus: Bus = .session, limitingIncomingMessagesTo limit: Int? = nil,
        tellingOversizedCalls: @escaping @Sendable (DBusOversizedMessage) -> Void = { _ in }
    ) async throws -> DBusConnection {
        guard libdbusThreadsReady else { throw DBusError.outOfMemory }
        if case .address(let address) = bus {
            try Syntax.checkString(address)
        }
        let mailbox = Mailbox(tellingOversizedCalls: tellingOversizedCalls)
        let uniqueName = try await ConnectionCore.start(bus, incomingLimit: limit, mailbox: mailbox)
        mailbox.connected(as: uniqueName)
        return DBusConnection(mailbox: mailbox)
    }

    deinit {
        mailbox.submit { core in core.beginClose(.closed) }
    }

    /// Closes the connection and returns once the loop has released it. Calls still waiting
    /// fail with `Disconnected`; subscriptions' streams end. Returns early only if the calling
    /// task is cancelled.
    public func close() async {
        mailbox.submit { core in core.beginClose(.closed) }
        _ = try? await mailbox.waitUntilFinished()
    }

    /// Returns when the connection has closed, saying why; throws `CancellationError` if the
    /// waiting task is cancelled first.
    public func waitUntilClosed() async throws -> CloseReason {
        try await mailbox.waitUntilFinished()
    }

    // MARK: Calls and signals

    /// Calls a method and returns the reply's values.
    ///
    /// Throws the peer's error reply as a `DBusError` with its name and message; `NoReply`
    /// when `timeout` passes first; `Disconnected` when the connection closes first;
    /// `CancellationError` when the calling task is cancelled (a late reply is then dropped).
    /// With `startingService` false, a destination nobody owns is not started by D-Bus
    /// activation: the call fails with `ServiceUnknown` instead.
    public func call(
        destination: String, path: String, interface: String, member: String, arguments: [DBusValue] = [],
        timeout: Duration = defaultTimeout, startingService: Bool = true
    ) async throws -> [DBusValue] {
        let message = try Message.methodCall(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments,
            startingService: startingService)
        let id = mailbox.nextID()
        // The reply comes on the loop's thread, the cancellation on the cancelling one.
        let reply = OneAnswer<Message>()
        let answered = try await withTaskCancellationHandler {
            try Task.checkCancellation()
            let submitted = mailbox.submit { core in
                core.send(message, timeout: timeout.libdbusMilliseconds, id: id) { reply.answer($0.mapError { $0 }) }
            }
            if !submitted {
                reply.answer(.failure(DBusError.closed))
            }
            return try await reply.value()
        } onCancel: { [mailbox] in
            reply.answer(.failure(CancellationError()))
            mailbox.submit { core in core.cancelCall(id) }
        }
        return try answered.replyValues()
    }

    /// Sends a signal: to every matching subscriber, or with `destination` to that peer alone.
    /// Throws if an argument or name is malformed, or the connection is closed.
    public func emitSignal(
        path: String, interface: String, member: String, arguments: [DBusValue] = [], destination: String? = nil
    ) throws {
        let message = try Message.signal(
            path: path, interface: interface, member: member, destination: destination, arguments: arguments)
        guard mailbox.submit({ core in core.send(message) }) else { throw DBusError.closed }
    }

    /// Runs `body` on the loop's thread and waits until it calls `done`, exactly once.
    func onLoop<Value: Sendable>(
        _ body: @escaping @Sendable (ConnectionCore, @escaping (Result<Value, DBusError>) -> Void) -> Void
    ) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let submitted = mailbox.submit { core in
                body(core) { continuation.resume(with: $0) }
            }
            if !submitted {
                continuation.resume(throwing: DBusError.closed)
            }
        }
    }
}

/// A method call refused for its size (`DBusConnection.connect`'s `tellingOversizedCalls`).
public struct DBusOversizedMessage: Sendable, Equatable {
    /// The caller's unique name.
    public let sender: String
    public let member: String
}

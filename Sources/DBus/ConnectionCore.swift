import Glibc
import Threads
internal import CDBus

/// Everything that touches the libdbus connection, confined to the connection's own thread.
///
/// The thread sleeps in poll(2) on the bus socket (libdbus's watches), the mailbox's wake-up
/// socket and the nearest libdbus timeout (the deadline of a pending call), so an idle
/// connection does not wake at all. `dbus_connection_read_write_dispatch` with a short timeout
/// was the alternative; it wakes on every timeout, forever, and cannot be interrupted.
///
/// Because only this thread calls libdbus for this connection, libdbus's callbacks (watches,
/// timeouts, the message filter, pending-call notifications) all run here too, and the tables
/// below need no lock. Other threads reach them only through jobs in the `Mailbox`.
final class ConnectionCore {
    /// Runs on the connection thread with the reply, or with the error that replaced it.
    typealias ReplyHandler = (Result<Message, DBusError>) -> Void

    private(set) var connection: OpaquePointer
    let mailbox: Mailbox
    private let bus: DBusConnection.Bus
    /// Set by `DBusConnection.connect(to:limitingIncomingMessagesTo:)`: the largest message
    /// taken in, and so a connection that is made again when it is dropped while the bus is
    /// still there (libdbus drops a connection that is sent a larger one).
    private let incomingLimit: Int?
    /// Names this connection asked for and got, asked for again after a reconnection.
    var ownedNames: Set<String> = []
    /// libdbus said the connection is gone; made again after this round of dispatching.
    private var reconnectPending = false
    /// The connection was released and none could be made again: nothing left to close.
    private var isReleased = false
    /// Set once the connection starts to close; from then on every operation fails.
    private(set) var closeReason: DBusConnection.CloseReason?

    private var watches: [OpaquePointer] = []
    private var timers: [Timer] = []
    private var pendingCalls: [UInt64: PendingCall] = [:]
    /// Exported interfaces, by object path and then interface name.
    var objects: [String: [String: ExportedInterface]] = [:]
    var subscriptions: [UInt64: Subscription] = [:]

    private struct Timer {
        let timeout: OpaquePointer
        var deadline: ContinuousClock.Instant?
    }

    private struct PendingCall {
        let call: OpaquePointer
        let reply: PendingReply
    }

    /// What libdbus hands back to the notification callback of one pending call.
    private final class PendingReply {
        let id: UInt64
        let handler: ReplyHandler
        unowned let core: ConnectionCore

        init(id: UInt64, handler: @escaping ReplyHandler, core: ConnectionCore) {
            self.id = id
            self.handler = handler
            self.core = core
        }
    }

    private init(connection: OpaquePointer, mailbox: Mailbox, bus: DBusConnection.Bus, incomingLimit: Int?) {
        self.connection = connection
        self.mailbox = mailbox
        self.bus = bus
        self.incomingLimit = incomingLimit
    }

    // MARK: Starting

    /// Starts the connection thread, which connects (blocking only itself), then serves the
    /// connection until it closes. Returns the unique name the bus assigned.
    static func start(_ bus: DBusConnection.Bus, incomingLimit: Int?, mailbox: Mailbox) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            let launch = Launch(bus: bus, incomingLimit: incomingLimit, mailbox: mailbox, continuation: continuation)
            guard startDetachedThread({ launch.run() }) else {
                continuation.resume(throwing: DBusError.failed("cannot start the D-Bus thread"))
                return
            }
        }
    }

    private final class Launch: Sendable {
        let bus: DBusConnection.Bus
        let incomingLimit: Int?
        let mailbox: Mailbox
        let continuation: CheckedContinuation<String, any Error>

        init(
            bus: DBusConnection.Bus, incomingLimit: Int?, mailbox: Mailbox, continuation: CheckedContinuation<String, any Error>
        ) {
            self.bus = bus
            self.incomingLimit = incomingLimit
            self.mailbox = mailbox
            self.continuation = continuation
        }

        func run() {
            var error = CDBus.DBusError()
            dbus_error_init(&error)
            guard let connection = ConnectionCore.open(bus, &error) else {
                continuation.resume(throwing: DBusError(consuming: &error))
                return
            }
            let core = ConnectionCore(connection: connection, mailbox: mailbox, bus: bus, incomingLimit: incomingLimit)
            guard core.prepare() else {
                dbus_connection_close(connection)
                dbus_connection_unref(connection)
                continuation.resume(throwing: DBusError.outOfMemory)
                return
            }
            continuation.resume(returning: String(cString: dbus_bus_get_unique_name(connection)))
            core.run()
        }
    }

    /// A private connection: nobody else in the process shares it, and closing it is ours.
    private static func open(_ bus: DBusConnection.Bus, _ error: inout CDBus.DBusError) -> OpaquePointer? {
        switch bus {
        case .session:
            return dbus_bus_get_private(DBUS_BUS_SESSION, &error)
        case .system:
            return dbus_bus_get_private(DBUS_BUS_SYSTEM, &error)
        case .address(let address):
            guard let connection = dbus_connection_open_private(address, &error) else { return nil }
            guard dbus_bus_register(connection, &error) != 0 else {
                dbus_connection_close(connection)
                dbus_connection_unref(connection)
                return nil
            }
            return connection
        }
    }

    /// Readies a connection just opened: the caller decides what a lost bus means (the daemon
    /// exits for systemd to restart it), the incoming limit, and the callbacks. False when
    /// libdbus has no memory for them.
    private func prepare() -> Bool {
        dbus_connection_set_exit_on_disconnect(connection, 0)
        if let incomingLimit { dbus_connection_set_max_message_size(connection, incomingLimit) }
        return installCallbacks()
    }

    /// Makes the connection again after libdbus dropped it, and carries over what lived on it:
    /// match rules, owned names (lost for good, and the connection closed, if another took one
    /// meanwhile), watched owners. Calls in flight fail. False when the bus cannot be reached.
    private func reconnect() -> Bool {
        failPendingCalls()
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        guard let fresh = Self.open(bus, &error) else {
            dbus_error_free(&error)
            isReleased = true
            return false
        }
        connection = fresh
        guard prepare() else { return false }
        let uniqueName = String(cString: dbus_bus_get_unique_name(fresh))
        mailbox.connected(as: uniqueName)
        // Announced once the bus has answered for every rule and name, so that whoever hears of
        // the reconnection finds the connection as it was.
        let restoring = Countdown(subscriptions.count + ownedNames.count) { [mailbox] in
            mailbox.announceReconnection(as: uniqueName)
        }
        for subscription in subscriptions.values {
            callBus("AddMatch", [.string(subscription.rule.description)]) { _ in restoring.done() }
            subscription.reconnected?(self)
        }
        for name in ownedNames {
            callBus("RequestName", [.string(name), .uint32(UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE))]) { result in
                let owned = [DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER, DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER].map(UInt32.init)
                guard case .success(let reply) = result, reply.first?.uint32Value.map(owned.contains) == true else {
                    return self.beginClose(.disconnected)
                }
                restoring.done()
            }
        }
        return true
    }

    /// The callbacks get this object unretained: it outlives the connection, which is closed and
    /// released before `run` returns.
    private func installCallbacks() -> Bool {
        let context = Unmanaged.passUnretained(self).toOpaque()
        return dbus_connection_set_watch_functions(
            connection,
            { watch, context in
                ConnectionCore.from(context).watches.append(watch!)
                return 1
            },
            { watch, context in
                ConnectionCore.from(context).watches.removeAll { $0 == watch }
            },
            // The poll set is rebuilt from each watch's state before every poll.
            { _, _ in },
            context, nil) != 0
            && dbus_connection_set_timeout_functions(
                connection,
                { timeout, context in
                    ConnectionCore.from(context).timers.append(Timer(timeout: timeout!, deadline: nil))
                    ConnectionCore.from(context).rearm(timeout!)
                    return 1
                },
                { timeout, context in
                    ConnectionCore.from(context).timers.removeAll { $0.timeout == timeout }
                },
                { timeout, context in
                    ConnectionCore.from(context).rearm(timeout!)
                },
                context, nil) != 0
            && dbus_connection_add_filter(
                connection,
                { _, message, context in
                    ConnectionCore.from(context).handle(Message(retaining: message!))
                },
                context, nil) != 0
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> ConnectionCore {
        Unmanaged<ConnectionCore>.fromOpaque(context!).takeUnretainedValue()
    }

    // MARK: The loop

    private func run() {
        while closeReason == nil {
            for job in mailbox.takeJobs() {
                job(self)
            }
            while closeReason == nil, dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS {}
            if reconnectPending {
                reconnectPending = false
                if !reconnect() { beginClose(.disconnected) }
            }
            if closeReason == nil {
                waitForEvents()
            }
        }
        shutDown()
    }

    private func waitForEvents() {
        let active = watches.filter { dbus_watch_get_enabled($0) != 0 }
        var descriptors = [pollfd(fd: mailbox.wakeReceiver, events: Int16(POLLIN), revents: 0)]
        for watch in active {
            let flags = dbus_watch_get_flags(watch)
            var events: Int32 = 0
            if flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= POLLIN }
            if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= POLLOUT }
            descriptors.append(pollfd(fd: dbus_watch_get_unix_fd(watch), events: Int16(events), revents: 0))
        }
        let ready = poll(&descriptors, nfds_t(descriptors.count), pollTimeout())
        mailbox.wakeUps.add(1, ordering: .relaxed)
        guard ready >= 0 else {
            // Anything but an interrupted wait leaves no way to serve the connection.
            if errno != EINTR { beginClose(.disconnected) }
            return
        }
        if descriptors[0].revents != 0 {
            mailbox.drainWakeUps()
        }
        for (watch, descriptor) in zip(active, descriptors.dropFirst()) where descriptor.revents != 0 {
            // Handling one watch can remove another, which libdbus then frees.
            guard watches.contains(watch) else { continue }
            var flags: UInt32 = 0
            if Int32(descriptor.revents) & POLLIN != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
            if Int32(descriptor.revents) & POLLOUT != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
            if Int32(descriptor.revents) & POLLERR != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
            if Int32(descriptor.revents) & POLLHUP != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
            dbus_watch_handle(watch, flags)
        }
        fireDueTimers()
    }

    // MARK: Timeouts

    /// libdbus timeouts repeat every interval while enabled.
    private func rearm(_ timeout: OpaquePointer) {
        guard let index = timers.firstIndex(where: { $0.timeout == timeout }) else { return }
        timers[index].deadline =
            dbus_timeout_get_enabled(timeout) != 0
            ? .now.advanced(by: .milliseconds(dbus_timeout_get_interval(timeout))) : nil
    }

    /// Milliseconds until the nearest deadline, or -1 (no deadline: sleep until an event).
    private func pollTimeout() -> Int32 {
        guard let nearest = timers.compactMap(\.deadline).min() else { return -1 }
        return (nearest - .now).libdbusMilliseconds
    }

    private func fireDueTimers() {
        let now = ContinuousClock.now
        let due = timers.filter { $0.deadline.map { $0 <= now } ?? false }.map(\.timeout)
        for timeout in due where timers.contains(where: { $0.timeout == timeout }) {
            rearm(timeout)
            dbus_timeout_handle(timeout)
        }
    }

    // MARK: Sending

    /// Queues a message that wants no reply, or a reply to a method call.
    func send(_ message: Message) {
        guard closeReason == nil else { return }
        dbus_connection_send(connection, message.raw, nil)
    }

    /// Sends a method call; `handler` runs on this thread exactly once: with the reply, the
    /// error reply, libdbus's NoReply at the timeout, or Disconnected when the connection
    /// closes first. Nothing runs if `cancelCall(id)` comes first.
    func send(_ message: Message, timeout: Int32, id: UInt64, onReply handler: @escaping ReplyHandler) {
        guard closeReason == nil else { return handler(.failure(.closed)) }
        var call: OpaquePointer?
        guard dbus_connection_send_with_reply(connection, message.raw, &call, timeout) != 0 else {
            return handler(.failure(.outOfMemory))
        }
        // libdbus gives no pending call once it knows the connection is gone.
        guard let call else { return handler(.failure(.closed)) }
        let reply = PendingReply(id: id, handler: handler, core: self)
        let notified = dbus_pending_call_set_notify(
            call,
            { call, context in
                let reply = Unmanaged<PendingReply>.fromOpaque(context!).takeUnretainedValue()
                reply.core.complete(reply, call: call!)
            },
            Unmanaged.passRetained(reply).toOpaque(),
            { context in Unmanaged<PendingReply>.fromOpaque(context!).release() })
        guard notified != 0 else {
            dbus_pending_call_cancel(call)
            dbus_pending_call_unref(call)
            return handler(.failure(.outOfMemory))
        }
        pendingCalls[id] = PendingCall(call: call, reply: reply)
    }

    private func complete(_ reply: PendingReply, call: OpaquePointer) {
        pendingCalls[reply.id] = nil
        let message = dbus_pending_call_steal_reply(call)
        dbus_pending_call_unref(call)
        let result = Result { () throws(DBusError) in try Message(adopting: message) }
        // A call cut short by a lost connection gets libdbus's own NoReply (no sender): say
        // what really happened.
        if case .success(let answer) = result, answer.sender == nil, dbus_connection_get_is_connected(connection) == 0 {
            return reply.handler(.failure(.closed))
        }
        reply.handler(result)
    }

    /// Forgets a call whose caller stopped waiting; a reply that still comes is dropped.
    func cancelCall(_ id: UInt64) {
        guard let pending = pendingCalls.removeValue(forKey: id) else { return }
        dbus_pending_call_cancel(pending.call)
        dbus_pending_call_unref(pending.call)
    }

    /// A method call to the bus itself (`org.freedesktop.DBus`), answered on this thread.
    func callBus(
        _ member: String, _ arguments: [DBusValue], onReply handler: @escaping (Result<[DBusValue], DBusError>) -> Void
    ) {
        do {
            let message = try Message.methodCall(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                interface: "org.freedesktop.DBus", member: member, arguments: arguments)
            send(message, timeout: DBusConnection.defaultTimeout.libdbusMilliseconds, id: mailbox.nextID()) { result in
                handler(result.flatMap { reply in Result { () throws(DBusError) in try reply.replyValues() } })
            }
        } catch {
            handler(.failure(error))
        }
    }

    // MARK: Receiving

    private func handle(_ message: Message) -> DBusHandlerResult {
        switch message.type {
        case DBUS_MESSAGE_TYPE_METHOD_CALL:
            routeMethodCall(message)
            return DBUS_HANDLER_RESULT_HANDLED
        case DBUS_MESSAGE_TYPE_SIGNAL:
            // libdbus's own word that the bus is gone; no peer can send on this interface. Made
            // again, when limited, once dispatching is over: not from inside libdbus's callback.
            if message.interface == "org.freedesktop.DBus.Local", message.member == "Disconnected" {
                if incomingLimit != nil {
                    reconnectPending = true
                } else {
                    beginClose(.disconnected)
                }
                return DBUS_HANDLER_RESULT_HANDLED
            }
            deliverSignal(message)
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        default:
            // A reply nobody waits for any more: it came after its timeout or cancellation.
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
    }

    // MARK: Closing

    func beginClose(_ reason: DBusConnection.CloseReason) {
        if closeReason == nil {
            closeReason = reason
        }
    }

    private func failPendingCalls() {
        let calls = pendingCalls.values
        pendingCalls = [:]
        for pending in calls {
            dbus_pending_call_cancel(pending.call)
            dbus_pending_call_unref(pending.call)
            pending.reply.handler(.failure(.closed))
        }
    }

    /// Fails everything still waiting, closes and releases the connection, then tells the
    /// mailbox, whose waiters learn the connection is gone only once it really is.
    private func shutDown() {
        let reason = closeReason ?? .closed
        for job in mailbox.stopAccepting() {
            job(self)
        }
        failPendingCalls()
        let ended = subscriptions.values
        subscriptions = [:]
        for subscription in ended {
            subscription.finish()
        }
        objects = [:]
        if !isReleased {
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
        }
        mailbox.finish(reason)
    }
}

extension Duration {
    /// Whole milliseconds for libdbus, rounded up so a deadline is never served early; a
    /// negative duration is 0, and anything past libdbus's range means "never".
    var libdbusMilliseconds: Int32 {
        guard self > .zero else { return 0 }
        let (seconds, attoseconds) = components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        let fraction = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        guard !milliseconds.overflow, milliseconds.partialValue + fraction < Int64(CDBUS_TIMEOUT_INFINITE) else {
            return CDBUS_TIMEOUT_INFINITE
        }
        return Int32(milliseconds.partialValue + fraction)
    }
}

/// Runs `finished` once `done()` has been called `count` times (at once for none). Used on the
/// connection thread alone.
private final class Countdown {
    private var left: Int
    private let finished: () -> Void

    init(_ count: Int, finished: @escaping () -> Void) {
        left = count
        self.finished = finished
        if count == 0 { finished() }
    }

    func done() {
        left -= 1
        if left == 0 { finished() }
    }
}

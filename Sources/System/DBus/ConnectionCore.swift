import Glibc
import MainLoop
import Synchronization
internal import CDBus

/// Everything that touches the libdbus connection, confined to the main loop's thread.
///
/// libdbus is driven by the loop: its watches (the bus socket) and timeouts (the deadlines of
/// pending calls) are loop sources, and when messages wait to be dispatched, a zero timeout on
/// the loop dispatches them. So an idle connection costs nothing, and libdbus's callbacks
/// (watches, timeouts, the message filter, pending-call notifications) all run on the loop's
/// thread, as do the jobs other tasks hand over through the `Mailbox`: the tables below need
/// no lock. How it is opened, and opened again after libdbus dropped it, is in
/// `ConnectionOpening.swift`.
final class ConnectionCore {
    /// Runs on the loop's thread with the reply, or with the error that replaced it.
    typealias ReplyHandler = (Result<Message, DBusError>) -> Void

    var connection: OpaquePointer
    let mailbox: Mailbox
    let bus: DBusConnection.Bus
    /// Set by `DBusConnection.connect(to:limitingIncomingMessagesTo:)`: the most a method call's
    /// or a signal's values may take; a call over it is answered `LimitsExceeded` and its sender
    /// told once (`Mailbox.announceOversized`), a signal over it dropped. libdbus's own limit is then set
    /// to the protocol's, which no bus lets a message pass: libdbus drops the whole connection on
    /// a message over its limit, and the daemon's unique name and bus name with it. Such a
    /// connection is also made again when it is dropped while the bus is still there.
    let incomingLimit: Int?
    /// The protocol's largest message (`DBUS_MAXIMUM_MESSAGE_LENGTH`, 128 MiB).
    static let protocolMaximumMessage = 128 << 20
    /// Senders already told of through `Mailbox.announceOversized`, bounded.
    var oversizedSenders: Set<String> = []
    /// Names this connection asked for and got, asked for again after a reconnection.
    var ownedNames: Set<String> = []
    /// libdbus said the connection is gone; made again after this round of dispatching.
    private var reconnectPending = false
    /// The connection was released and none could be made again: nothing left to close.
    var isReleased = false
    /// Set once the connection starts to close; from then on every operation fails.
    private(set) var closeReason: DBusConnection.CloseReason?

    /// libdbus's watches and timeouts, each with its loop source while enabled.
    private var watches: [OpaquePointer: LoopSource] = [:]
    private var timeouts: [OpaquePointer: LoopSource] = [:]
    /// The pending dispatch, while messages wait for one.
    private var dispatching: LoopSource?
    private var pendingCalls: [UInt64: PendingCall] = [:]
    /// Exported interfaces, by object path and then interface name.
    var objects: [String: [String: ExportedInterface]] = [:]
    var subscriptions: [UInt64: Subscription] = [:]

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

    init(connection: OpaquePointer, mailbox: Mailbox, bus: DBusConnection.Bus, incomingLimit: Int?) {
        self.connection = connection
        self.mailbox = mailbox
        self.bus = bus
        self.incomingLimit = incomingLimit
    }

    /// The callbacks get this object unretained: it outlives the connection, which is closed and
    /// released before the mailbox lets go of it.
    func installCallbacks() -> Bool {
        let context = Unmanaged.passUnretained(self).toOpaque()
        return dbus_connection_set_watch_functions(
            connection,
            { watch, context in
                ConnectionCore.from(context).watchChanged(watch!)
                return 1
            },
            { watch, context in
                ConnectionCore.from(context).watches.removeValue(forKey: watch!)?.cancel()
            },
            { watch, context in
                ConnectionCore.from(context).watchChanged(watch!)
            },
            context, nil) != 0
            && dbus_connection_set_timeout_functions(
                connection,
                { timeout, context in
                    ConnectionCore.from(context).timeoutChanged(timeout!)
                    return 1
                },
                { timeout, context in
                    ConnectionCore.from(context).timeouts.removeValue(forKey: timeout!)?.cancel()
                },
                { timeout, context in
                    ConnectionCore.from(context).timeoutChanged(timeout!)
                },
                context, nil) != 0
            && dbus_connection_add_filter(
                connection,
                { _, message, context in
                    ConnectionCore.from(context).handle(Message(retaining: message!))
                },
                context, nil) != 0
            && {
                dbus_connection_set_dispatch_status_function(
                    connection,
                    { _, status, context in
                        ConnectionCore.from(context).dispatchStatusChanged(status)
                    },
                    context, nil)
                return true
            }()
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> ConnectionCore {
        Unmanaged<ConnectionCore>.fromOpaque(context!).takeUnretainedValue()
    }

    // MARK: The loop's sources

    /// A watch added or toggled: a source for the socket while libdbus wants it watched.
    private func watchChanged(_ watch: OpaquePointer) {
        watches.removeValue(forKey: watch)?.cancel()
        guard dbus_watch_get_enabled(watch) != 0 else { return }
        let flags = dbus_watch_get_flags(watch)
        var readiness: Readiness = []
        if flags & DBUS_WATCH_READABLE.rawValue != 0 { readiness.insert(.readable) }
        if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { readiness.insert(.writable) }
        watches[watch] = LoopSource.watch(dbus_watch_get_unix_fd(watch), for: readiness) { [unowned self] ready in
            mailbox.wakeUps.add(1, ordering: .relaxed)
            // Handling one watch can remove another, which libdbus then frees.
            guard watches[watch] != nil else { return }
            var flags: UInt32 = 0
            if ready.contains(.readable) { flags |= DBUS_WATCH_READABLE.rawValue }
            if ready.contains(.writable) { flags |= DBUS_WATCH_WRITABLE.rawValue }
            if ready.contains(.error) { flags |= DBUS_WATCH_ERROR.rawValue }
            if ready.contains(.hangUp) { flags |= DBUS_WATCH_HANGUP.rawValue }
            dbus_watch_handle(watch, flags)
        }
    }

    /// A timeout added or toggled: libdbus's timeouts repeat every interval while enabled.
    private func timeoutChanged(_ timeout: OpaquePointer) {
        timeouts.removeValue(forKey: timeout)?.cancel()
        guard dbus_timeout_get_enabled(timeout) != 0 else { return }
        let interval = UInt32(max(0, dbus_timeout_get_interval(timeout)))
        timeouts[timeout] = LoopSource.timeout(milliseconds: interval) { [unowned self] in
            mailbox.wakeUps.add(1, ordering: .relaxed)
            guard timeouts[timeout] != nil else { return false }
            dbus_timeout_handle(timeout)
            return true
        }
    }

    /// Messages wait: dispatched at the loop's next round, not from inside libdbus's callback.
    func dispatchStatusChanged(_ status: DBusDispatchStatus) {
        guard status == DBUS_DISPATCH_DATA_REMAINS, dispatching == nil, closeReason == nil else { return }
        dispatching = LoopSource.timeout(milliseconds: 0) { [unowned self] in
            mailbox.wakeUps.add(1, ordering: .relaxed)
            dispatching = nil
            dispatch()
            return false
        }
    }

    private func dispatch() {
        while closeReason == nil, dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS {}
        if reconnectPending {
            reconnectPending = false
            reconnect()
        }
    }

    // MARK: Sending

    /// Queues a message that wants no reply, or a reply to a method call.
    func send(_ message: Message) {
        guard closeReason == nil else { return }
        dbus_connection_send(connection, message.raw, nil)
    }

    /// Sends a method call; `handler` runs on the loop's thread exactly once: with the reply, the
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

    /// A method call to the bus itself (`org.freedesktop.DBus`), answered on the loop's thread.
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

    /// From here on everything fails; the connection is shut down at the loop's next round,
    /// never from inside one of libdbus's callbacks.
    func beginClose(_ reason: DBusConnection.CloseReason) {
        guard closeReason == nil else { return }
        closeReason = reason
        // The core is the mailbox's until its end, so the job is taken.
        mailbox.submit { core in core.shutDown() }
    }

    func failPendingCalls() {
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
        failPendingCalls()
        let ended = subscriptions.values
        subscriptions = [:]
        for subscription in ended {
            subscription.finish()
        }
        objects = [:]
        if !isReleased { release() }
        isReleased = true
        mailbox.finish(reason)
    }

    /// Closes and lets go of the connection, and with it its watches and timeouts.
    func release() {
        dispatching?.cancel()
        dispatching = nil
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
        // libdbus removes its watches and timeouts as the last reference goes; whatever it kept
        // is cancelled here all the same.
        watches.values.forEach { $0.cancel() }
        timeouts.values.forEach { $0.cancel() }
        watches = [:]
        timeouts = [:]
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

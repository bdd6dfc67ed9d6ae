import Glibc
import MainLoop
internal import CDBus

/// Opening the connection: found where libdbus looks for the bus, readied, and registered with
/// `Hello`; and opened again, with what lived on it, when libdbus dropped it.
extension ConnectionCore {
    /// Connects and says `Hello` to the bus, on the loop but without blocking it: the socket's
    /// connect is immediate, and the authentication and `Hello` are driven by the loop like any
    /// other traffic, so a bus slow to answer holds up nothing else. Returns the unique name the
    /// bus assigned.
    static func start(_ bus: DBusConnection.Bus, incomingLimit: Int?, mailbox: Mailbox) async throws -> String {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
            MainLoop.shared.submit {
                let core: ConnectionCore
                do {
                    core = ConnectionCore(
                        connection: try ConnectionCore.open(bus), mailbox: mailbox, bus: bus, incomingLimit: incomingLimit)
                } catch {
                    return continuation.resume(throwing: error)
                }
                guard core.prepare() else {
                    core.release()
                    return continuation.resume(throwing: DBusError.outOfMemory)
                }
                core.register { result in
                    switch result {
                    case .success(let name):
                        mailbox.attach(core)
                        continuation.resume(returning: name)
                    case .failure(let error):
                        core.failPendingCalls()
                        core.release()
                        continuation.resume(throwing: error)
                    }
                }
            }
        }
    }

    /// A private connection, not yet registered: nobody else in the process shares it, and
    /// closing it is ours. The buses are found where libdbus looks for them (less its
    /// autolaunch, which a daemon must not do).
    private static func open(_ bus: DBusConnection.Bus) throws(DBusError) -> OpaquePointer {
        let environment = { (name: String) in getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
        let address: String
        switch bus {
        case .session:
            if let set = environment("DBUS_SESSION_BUS_ADDRESS") {
                address = set
            } else if let runtime = environment("XDG_RUNTIME_DIR"), access("\(runtime)/bus", F_OK) == 0 {
                address = "unix:path=\(runtime)/bus"
            } else {
                throw DBusError(
                    name: "org.freedesktop.DBus.Error.NotSupported",
                    message: "no session bus: DBUS_SESSION_BUS_ADDRESS is unset and there is no $XDG_RUNTIME_DIR/bus")
            }
        case .system:
            address = environment("DBUS_SYSTEM_BUS_ADDRESS") ?? "unix:path=/var/run/dbus/system_bus_socket"
        case .address(let given):
            address = given
        }
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        guard let connection = dbus_connection_open_private(address, &error) else { throw DBusError(consuming: &error) }
        return connection
    }

    /// `Hello`, which every bus connection sends first: its answer is the unique name.
    private func register(_ registered: @escaping (Result<String, DBusError>) -> Void) {
        callBus("Hello", []) { [self] result in
            guard case .success(let reply) = result, let name = reply.first?.stringValue else {
                return registered(result.flatMap { _ in .failure(.failed("the bus answered Hello without a name")) })
            }
            _ = dbus_bus_set_unique_name(connection, name)
            registered(.success(name))
        }
    }

    /// Readies a connection just opened: the caller decides what a lost bus means (the daemon
    /// exits for systemd to restart it), the incoming limit, and the callbacks. False when
    /// libdbus has no memory for them.
    private func prepare() -> Bool {
        dbus_connection_set_exit_on_disconnect(connection, 0)
        if incomingLimit != nil { dbus_connection_set_max_message_size(connection, Self.protocolMaximumMessage) }
        guard installCallbacks() else { return false }
        // Messages that came with the bus's answer to Hello are dispatched at once.
        dispatchStatusChanged(dbus_connection_get_dispatch_status(connection))
        return true
    }

    /// Makes the connection again after libdbus dropped it, and carries over what lived on it:
    /// match rules, owned names (lost for good, and the connection closed as `nameTaken`, if
    /// another took one meanwhile), watched owners. Calls in flight fail. Closes it when the bus cannot be reached.
    func reconnect() {
        failPendingCalls()
        release()
        do {
            connection = try Self.open(bus)
        } catch {
            isReleased = true
            return beginClose(.disconnected)
        }
        guard prepare() else { return beginClose(.disconnected) }
        register { [self] result in
            guard case .success(let uniqueName) = result else { return beginClose(.disconnected) }
            mailbox.connected(as: uniqueName)
            restore(announcingAs: uniqueName)
        }
    }

    /// Match rules, names and watched owners again on a connection made anew; announced once the
    /// bus has answered for every rule and name, so that whoever hears of the reconnection finds
    /// the connection as it was.
    private func restore(announcingAs uniqueName: String) {
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
                guard case .success(let reply) = result else { return self.beginClose(.disconnected) }
                guard reply.first?.uint32Value.map(owned.contains) == true else { return self.closeForTaken(name) }
                restoring.done()
            }
        }
    }

    /// Closes the connection as `nameTaken`, naming the owner the bus gives for `name`.
    private func closeForTaken(_ name: String) {
        callBus("GetNameOwner", [.string(name)]) { result in
            let owner = if case .success(let values) = result { values.first?.stringValue } else { String?.none }
            self.beginClose(.nameTaken(name, owner: owner))
        }
    }
}

/// Runs `finished` once `done()` has been called `count` times (at once for none). Used on the
/// loop's thread alone.
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

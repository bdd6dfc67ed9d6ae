internal import CDBus

extension DBusConnection {
    /// Asks for `name` without queueing (`DBUS_NAME_FLAG_DO_NOT_QUEUE`): true when we are now
    /// its primary owner (or already were), false when another connection holds it.
    public func requestName(_ name: String) async throws -> Bool {
        try Syntax.checkBusName(name)
        let reply = try await callBus("RequestName", [.string(name), .uint32(UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE))])
        let owned = [DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER, DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER].map(UInt32.init)
        let isOwner = reply.first?.uint32Value.map(owned.contains) ?? false
        if isOwner { mailbox.submit { $0.ownedNames.insert(name) } }
        return isOwner
    }

    /// Gives up `name`; nothing happens if we do not own it.
    public func releaseName(_ name: String) async throws {
        try Syntax.checkBusName(name)
        mailbox.submit { $0.ownedNames.remove(name) }
        _ = try await callBus("ReleaseName", [.string(name)])
    }

    public func nameHasOwner(_ name: String) async throws -> Bool {
        try Syntax.checkBusName(name)
        return try await callBus("NameHasOwner", [.string(name)]).first?.boolValue ?? false
    }

    /// The names the bus would start a service for on first use (D-Bus activation).
    public func activatableNames() async throws -> [String] {
        try await callBus("ListActivatableNames", []).first?.stringArrayValue ?? []
    }

    /// The unique name of `name`'s owner, or nil when nobody owns it.
    public func nameOwner(_ name: String) async throws -> String? {
        try Syntax.checkBusName(name)
        do {
            return try await callBus("GetNameOwner", [.string(name)]).first?.stringValue
        } catch let error as DBusError where error.name == DBusError.Name.nameHasNoOwner {
            return nil
        }
    }

    /// The owner of `name` (a unique name, or nil when nobody owns it): first the current one,
    /// then each change, until the stream is dropped or the connection closes.
    ///
    /// The current owner is read after the bus has started sending `NameOwnerChanged` for
    /// `name`, and changes are taken only from the signals that follow that answer, so no
    /// change is lost or reported out of order. A consumer that lags may skip intermediate
    /// owners but always sees the latest.
    public func watchNameOwner(_ name: String) async throws -> AsyncStream<String?> {
        try Syntax.checkBusName(name)
        let (stream, continuation) = AsyncStream.makeStream(
            of: String?.self, bufferingPolicy: .bufferingNewest(Self.signalBufferLimit))
        let id = mailbox.nextID()
        let _: Void = try await onLoop { core, done in
            let tracker = OwnerTracker(continuation)
            let rule = DBusMatchRule(
                sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "NameOwnerChanged", arg0: name)
            let subscription = Subscription(
                rule: rule, deliver: tracker.changed, finish: { continuation.finish() },
                // Owners may have come and gone while the connection was down.
                reconnected: { core in
                    core.callBus("GetNameOwner", [.string(name)]) { result in
                        guard case .success(let values) = result else { return tracker.moved(to: nil) }
                        tracker.moved(to: values.first?.stringValue)
                    }
                })
            core.subscribe(id, subscription) { tracker.refusal = $0 }
            // The bus answers in order: AddMatch's reply has come when this one does.
            core.callBus("GetNameOwner", [.string(name)]) { result in
                if let refusal = tracker.refusal {
                    return done(.failure(refusal))
                }
                switch result {
                case .success(let values):
                    tracker.start(values.first?.stringValue)
                case .failure(let error) where error.name == DBusError.Name.nameHasNoOwner:
                    tracker.start(nil)
                case .failure(let error):
                    core.unsubscribe(id)
                    return done(.failure(error))
                }
                done(.success(()))
            }
        }
        endSubscription(id, when: continuation)
        return stream
    }

    /// What the bus knows of the connection `name` (a unique or well-known name):
    /// `GetConnectionCredentials`.
    public func peer(_ name: String) async throws -> DBusPeer {
        try Syntax.checkBusName(name)
        let credentials = try await callBus("GetConnectionCredentials", [.string(name)]).first?.vardictValue ?? [:]
        let label: [UInt8]? = switch credentials["LinuxSecurityLabel"] {
        case .bytes(let bytes): bytes
        case .array("y", let values): values.compactMap(\.byteValue)
        default: nil
        }
        return DBusPeer(
            uid: credentials["UnixUserID"]?.uint32Value, pid: credentials["ProcessID"]?.uint32Value,
            securityLabel: label.map { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
    }

    private func callBus(_ member: String, _ arguments: [DBusValue]) async throws -> [DBusValue] {
        try await call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: member, arguments: arguments)
    }
}

/// Turns `NameOwnerChanged` into owners, on the loop's thread: nothing before the
/// current owner is known, and no repeats.
private final class OwnerTracker {
    private let continuation: AsyncStream<String?>.Continuation
    private var started = false
    private var lastOwner: String?
    /// Set when the bus refused the match rule.
    var refusal: DBusError?

    init(_ continuation: AsyncStream<String?>.Continuation) {
        self.continuation = continuation
    }

    func start(_ owner: String?) {
        started = true
        continuation.yield(owner)
        lastOwner = owner
    }

    func changed(_ signal: DBusSignal) {
        guard started, signal.arguments.count == 3, let newOwner = signal.arguments[2].stringValue else { return }
        moved(to: newOwner.isEmpty ? nil : newOwner)
    }

    func moved(to owner: String?) {
        guard started, owner != lastOwner else { return }
        lastOwner = owner
        continuation.yield(owner)
    }
}

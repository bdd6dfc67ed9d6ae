/// A signal as received.
public struct DBusSignal: Sendable, Hashable {
    /// The sender's unique name (`:1.42`), or `org.freedesktop.DBus` for the bus itself.
    public let sender: String
    /// Our unique name when the signal was sent to us alone; nil for a broadcast.
    public let destination: String?
    public let path: String
    public let interface: String
    public let member: String
    public let arguments: [DBusValue]
}

/// Which signals a subscription wants; unset fields match anything.
///
/// The bus uses the rule to route broadcasts to us. Signals sent to us alone arrive without
/// any rule (GNOME sends `ActionInvoked` that way), so each received signal is matched again
/// here, and unicast ones reach every subscription whose rule fits.
public struct DBusMatchRule: Sendable, Hashable, CustomStringConvertible {
    /// A unique name, or `org.freedesktop.DBus`. A well-known name is refused: signals carry
    /// the owner's unique name, so it could never match here.
    public var sender: String?
    public var path: String?
    public var interface: String?
    public var member: String?
    /// The first argument, when it is a string (as the name in `NameOwnerChanged`).
    public var arg0: String?

    public init(
        sender: String? = nil, path: String? = nil, interface: String? = nil, member: String? = nil, arg0: String? = nil
    ) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arg0 = arg0
    }

    /// The rule in the bus's syntax, as `AddMatch` takes it.
    public var description: String {
        let fields = [("sender", sender), ("path", path), ("interface", interface), ("member", member), ("arg0", arg0)]
        return fields.reduce("type='signal'") { rule, field in
            guard let value = field.1 else { return rule }
            // Inside quotes nothing is special but the quote itself, written as '\''.
            return rule + ",\(field.0)='" + value.replacing("'", with: "'\\''") + "'"
        }
    }

    func check() throws(DBusError) {
        if let sender {
            try Syntax.checkBusName(sender)
            guard sender.hasPrefix(":") || sender == "org.freedesktop.DBus" else {
                throw .invalidArgs("a match rule's sender must be a unique name or org.freedesktop.DBus, not \(sender)")
            }
        }
        if let path { try Syntax.checkObjectPath(path) }
        if let interface { try Syntax.checkInterface(interface) }
        if let member { try Syntax.checkMember(member) }
        if let arg0 { try Syntax.checkString(arg0) }
    }

    func matches(_ signal: DBusSignal) -> Bool {
        (sender == nil || sender == signal.sender)
            && (path == nil || path == signal.path)
            && (interface == nil || interface == signal.interface)
            && (member == nil || member == signal.member)
            && (arg0 == nil || arg0 == signal.arguments.first?.stringValue)
    }
}

/// One live subscription, kept on the loop's thread.
struct Subscription {
    let rule: DBusMatchRule
    let deliver: (DBusSignal) -> Void
    let finish: () -> Void
    /// What to catch up on after the connection was made again (a watched name's owner).
    var reconnected: ((ConnectionCore) -> Void)? = nil
}

extension DBusConnection {
    /// How many undelivered signals a subscription holds before it drops the oldest: a
    /// consumer that stops reading must not grow the daemon without bound.
    static let signalBufferLimit = 256

    /// Signals matching `rule`, broadcast or sent to us alone, until the stream is dropped or
    /// the connection closes (the stream then ends). Throws if the bus refuses the rule.
    public func signals(matching rule: DBusMatchRule) async throws -> AsyncStream<DBusSignal> {
        try rule.check()
        let (stream, continuation) = AsyncStream.makeStream(
            of: DBusSignal.self, bufferingPolicy: .bufferingNewest(Self.signalBufferLimit))
        let id = mailbox.nextID()
        let _: Void = try await onLoop { core, done in
            let subscription = Subscription(
                rule: rule, deliver: { continuation.yield($0) }, finish: { continuation.finish() })
            core.subscribe(id, subscription) { error in done(error.map { .failure($0) } ?? .success(())) }
        }
        endSubscription(id, when: continuation)
        return stream
    }

    /// Removes the subscription, and its rule at the bus, once the consumer stops listening.
    func endSubscription<Element>(_ id: UInt64, when continuation: AsyncStream<Element>.Continuation) {
        let mailbox = self.mailbox
        continuation.onTermination = { _ in
            mailbox.submit { core in core.unsubscribe(id) }
        }
    }
}

extension ConnectionCore {
    /// Registers locally before asking the bus, so no signal slips by between the bus adding
    /// the rule and the subscription existing. `completion` gets nil once the bus agreed.
    func subscribe(_ id: UInt64, _ subscription: Subscription, completion: @escaping (DBusError?) -> Void) {
        guard closeReason == nil else { return completion(.closed) }
        subscriptions[id] = subscription
        callBus("AddMatch", [.string(subscription.rule.description)]) { result in
            if case .failure(let error) = result {
                self.subscriptions[id] = nil
                return completion(error)
            }
            completion(nil)
        }
    }

    func unsubscribe(_ id: UInt64) {
        guard let subscription = subscriptions.removeValue(forKey: id) else { return }
        callBus("RemoveMatch", [.string(subscription.rule.description)]) { _ in }
    }

    /// A signal carrying what `DBusValue` cannot hold (a Unix fd), or over `incomingLimit`, is
    /// dropped.
    func deliverSignal(_ message: Message) {
        guard !subscriptions.isEmpty, let arguments = try? message.arguments(limit: incomingLimit) else { return }
        let signal = DBusSignal(
            sender: message.sender ?? "", destination: message.destination, path: message.path ?? "",
            interface: message.interface ?? "", member: message.member ?? "", arguments: arguments)
        for subscription in subscriptions.values where subscription.rule.matches(signal) {
            subscription.deliver(signal)
        }
    }
}

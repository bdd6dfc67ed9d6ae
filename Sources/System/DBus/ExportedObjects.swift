internal import CDBus

/// A method an exported object answers.
public struct DBusMethod: Sendable {
    public let name: String
    /// The exact signature a call must carry; any other gets `InvalidArgs` without reaching
    /// the handler.
    public let inputSignature: String
    /// The signature the handler's reply must have; a reply of another shape is sent as a
    /// `Failed` error instead.
    public let outputSignature: String
    /// Runs as its own task, so calls can be answered out of order. A thrown `DBusError`
    /// becomes the error reply; any other error becomes `Failed`.
    public let handler: @Sendable (DBusMethodCall) async throws -> [DBusValue]

    public init(
        _ name: String, input: String = "", output: String = "",
        handler: @escaping @Sendable (DBusMethodCall) async throws -> [DBusValue]
    ) {
        self.name = name
        self.inputSignature = input
        self.outputSignature = output
        self.handler = handler
    }
}

/// One incoming method call, as its handler sees it.
public struct DBusMethodCall: Sendable {
    /// The caller's unique name.
    public let sender: String
    public let path: String
    public let interface: String
    public let member: String
    public let arguments: [DBusValue]
}

struct ExportedInterface {
    let introspection: String
    let methods: [String: DBusMethod]
}

extension DBusConnection {
    /// Answers method calls to `interface` on the object at `path` until the connection closes.
    ///
    /// `introspection` is the interface's `<interface name="...">...</interface>` element;
    /// `org.freedesktop.DBus.Introspectable.Introspect` answers with it inside a `<node>`
    /// that also lists the standard interfaces and any child objects. Calls to methods not
    /// listed here get `UnknownMethod`, to other interfaces `UnknownInterface`, to other paths
    /// `UnknownObject`. (libdbus itself answers `org.freedesktop.DBus.Peer`.)
    public func export(path: String, interface: String, introspection: String, methods: [DBusMethod]) async throws {
        try Syntax.checkObjectPath(path)
        try Syntax.checkInterface(interface)
        guard interface != ConnectionCore.introspectable, interface != ConnectionCore.peer else {
            throw DBusError.invalidArgs("\(interface) is answered by the connection itself")
        }
        var table: [String: DBusMethod] = [:]
        for method in methods {
            try Syntax.checkMember(method.name)
            try Syntax.checkSignature(method.inputSignature)
            try Syntax.checkSignature(method.outputSignature)
            guard table.updateValue(method, forKey: method.name) == nil else {
                throw DBusError.invalidArgs("method \(method.name) is listed twice")
            }
        }
        let exported = ExportedInterface(introspection: introspection, methods: table)
        let _: Void = try await onLoop { core, done in
            done(Result { () throws(DBusError) in try core.export(exported, path: path, interface: interface) })
        }
    }
}

extension ConnectionCore {
    static let introspectable = "org.freedesktop.DBus.Introspectable"
    static let peer = "org.freedesktop.DBus.Peer"

    fileprivate func export(_ exported: ExportedInterface, path: String, interface: String) throws(DBusError) {
        guard closeReason == nil else { throw .closed }
        guard objects[path]?[interface] == nil else {
            throw .invalidArgs("\(interface) is already exported at \(path)")
        }
        objects[path, default: [:]][interface] = exported
    }

    /// A call over `incomingLimit` came from `sender`: told once per sender (of the last 256).
    private func noteOversized(from sender: String, member: String) {
        if oversizedSenders.count >= 256 { oversizedSenders.removeAll() }
        guard oversizedSenders.insert(sender).inserted else { return }
        mailbox.announceOversized(DBusOversizedMessage(sender: sender, member: member))
    }

    /// Answers one incoming method call: routing and argument checks here, the handler in a task.
    func routeMethodCall(_ call: Message) {
        let path = call.path ?? "/"
        let member = call.member ?? ""
        func refuse(_ name: String, _ message: String) {
            replyError(to: call, DBusError(name: name, message: message))
        }
        if member == "Introspect", call.interface == nil || call.interface == Self.introspectable {
            guard call.signature.isEmpty else {
                return refuse(DBusError.Name.invalidArgs, "Introspect takes no arguments")
            }
            guard let document = introspectionDocument(for: path) else {
                return refuse(DBusError.Name.unknownObject, "no object at \(path)")
            }
            return reply(to: call) { () throws(DBusError) in try call.methodReturn([.string(document)]) }
        }
        guard let interfaces = objects[path] else {
            return refuse(DBusError.Name.unknownObject, "no object at \(path)")
        }
        let found: (interface: String, method: DBusMethod)?
        if let interface = call.interface {
            guard let exported = interfaces[interface] else {
                return refuse(DBusError.Name.unknownInterface, "no interface \(interface) at \(path)")
            }
            found = exported.methods[member].map { (interface, $0) }
        } else {
            // The spec lets a call omit the interface; pick deterministically if two define it.
            found = interfaces.keys.sorted().lazy
                .compactMap { name in interfaces[name]?.methods[member].map { (name, $0) } }
                .first
        }
        guard let (interface, method) = found else {
            return refuse(DBusError.Name.unknownMethod, "no method \(member) at \(path)")
        }
        guard call.signature == method.inputSignature else {
            let expected = method.inputSignature
            let given = call.signature
            return refuse(DBusError.Name.invalidArgs, "\(member) takes arguments '\(expected)', not '\(given)'")
        }
        let request: DBusMethodCall
        do {
            let arguments = try call.arguments(limit: incomingLimit)
            request = DBusMethodCall(
                sender: call.sender ?? "", path: path, interface: interface, member: member, arguments: arguments)
        } catch {
            if error.name == DBusError.Name.limitsExceeded { noteOversized(from: call.sender ?? "", member: member) }
            return replyError(to: call, error)
        }
        let mailbox = self.mailbox
        Task {
            let reply: Message
            do {
                let values = try await method.handler(request)
                let signature = values.map(\.signature).joined()
                guard signature == method.outputSignature else {
                    throw DBusError.failed(
                        "\(member) produced a reply of type '\(signature)' instead of '\(method.outputSignature)'")
                }
                reply = try call.methodReturn(values)
            } catch {
                guard let errorReply = try? call.errorReply(error as? DBusError ?? .failed("\(error)")) else { return }
                reply = errorReply
            }
            if call.expectsReply {
                mailbox.submit { core in core.send(reply) }
            }
        }
    }

    private func replyError(to call: Message, _ error: DBusError) {
        reply(to: call) { () throws(DBusError) in try call.errorReply(error) }
    }

    private func reply(to call: Message, _ build: () throws(DBusError) -> Message) {
        guard call.expectsReply, let reply = try? build() else { return }
        send(reply)
    }

    private func introspectionDocument(for path: String) -> String? {
        let interfaces = objects[path] ?? [:]
        let children = childNodes(of: path)
        guard !interfaces.isEmpty || !children.isEmpty else { return nil }
        var document = """
            <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
            <node>
              <interface name="\(Self.introspectable)">
                <method name="Introspect"><arg name="xml_data" type="s" direction="out"/></method>
              </interface>
              <interface name="\(Self.peer)">
                <method name="Ping"/>
                <method name="GetMachineId"><arg name="machine_uuid" type="s" direction="out"/></method>
              </interface>

            """
        for name in interfaces.keys.sorted() {
            document += interfaces[name]!.introspection + "\n"
        }
        for child in children {
            document += "  <node name=\"\(child)\"/>\n"
        }
        return document + "</node>\n"
    }

    /// The next path element of every exported object below `path`, so tools can walk the tree.
    private func childNodes(of path: String) -> [String] {
        let prefix = path == "/" ? "/" : path + "/"
        let names = objects.keys.filter { $0.hasPrefix(prefix) && $0 != path }
            .compactMap { $0.dropFirst(prefix.count).split(separator: "/").first.map(String.init) }
        return Set(names).sorted()
    }
}

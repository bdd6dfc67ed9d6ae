internal import CDBus

/// One libdbus message, holding one reference to it.
///
/// Sendable because a message is finished before it crosses a thread: it is built on the
/// caller's thread and then only sent, or it is received and then only read. libdbus counts
/// references atomically once `dbus_threads_init_default` has run.
final class Message: @unchecked Sendable {
    let raw: OpaquePointer

    /// Takes over the reference a libdbus constructor returned; nil means it ran out of memory.
    init(adopting raw: OpaquePointer?) throws(DBusError) {
        guard let raw else { throw DBusError.outOfMemory }
        self.raw = raw
    }

    /// Takes a new reference to a message libdbus lends for the length of a callback.
    init(retaining raw: OpaquePointer) {
        self.raw = dbus_message_ref(raw)
    }

    deinit {
        dbus_message_unref(raw)
    }

    // MARK: Building

    /// `startingService` false asks the bus not to start the destination by D-Bus activation
    /// when nobody owns it: the call then fails with `ServiceUnknown`.
    static func methodCall(
        destination: String, path: String, interface: String, member: String, arguments: [DBusValue],
        startingService: Bool = true
    ) throws(DBusError) -> Message {
        try Syntax.checkBusName(destination)
        try Syntax.checkObjectPath(path)
        try Syntax.checkInterface(interface)
        try Syntax.checkMember(member)
        let message = try Message(adopting: dbus_message_new_method_call(destination, path, interface, member))
        if !startingService { dbus_message_set_auto_start(message.raw, 0) }
        try message.append(arguments)
        return message
    }

    /// A signal; with a destination it goes to that peer alone instead of to every match rule.
    static func signal(
        path: String, interface: String, member: String, destination: String?, arguments: [DBusValue]
    ) throws(DBusError) -> Message {
        try Syntax.checkObjectPath(path)
        try Syntax.checkInterface(interface)
        try Syntax.checkMember(member)
        let message = try Message(adopting: dbus_message_new_signal(path, interface, member))
        if let destination {
            try Syntax.checkBusName(destination)
            guard dbus_message_set_destination(message.raw, destination) != 0 else { throw DBusError.outOfMemory }
        }
        try message.append(arguments)
        return message
    }

    /// The method return answering this method call.
    func methodReturn(_ values: [DBusValue]) throws(DBusError) -> Message {
        let reply = try Message(adopting: dbus_message_new_method_return(raw))
        try reply.append(values)
        return reply
    }

    /// The error reply answering this method call. An error name libdbus would refuse is
    /// replaced by `Failed` rather than lost.
    func errorReply(_ error: DBusError) throws(DBusError) -> Message {
        var error = error
        if (try? Syntax.checkErrorName(error.name)) == nil {
            error = .failed("\(error.message) (sent with an invalid error name)")
        }
        return try Message(adopting: dbus_message_new_error(raw, error.name, error.message))
    }

    // MARK: Reading

    var type: Int32 { dbus_message_get_type(raw) }
    var path: String? { dbus_message_get_path(raw).map { String(cString: $0) } }
    var interface: String? { dbus_message_get_interface(raw).map { String(cString: $0) } }
    var member: String? { dbus_message_get_member(raw).map { String(cString: $0) } }
    var sender: String? { dbus_message_get_sender(raw).map { String(cString: $0) } }
    var destination: String? { dbus_message_get_destination(raw).map { String(cString: $0) } }
    var errorName: String? { dbus_message_get_error_name(raw).map { String(cString: $0) } }
    var signature: String { String(cString: dbus_message_get_signature(raw)) }
    var expectsReply: Bool { dbus_message_get_no_reply(raw) == 0 }

    /// The values of a method return, or the error of an error reply thrown as a `DBusError`.
    func replyValues() throws(DBusError) -> [DBusValue] {
        guard type == DBUS_MESSAGE_TYPE_ERROR else { return try arguments() }
        let text = (try? arguments())?.first?.stringValue ?? ""
        throw DBusError(name: errorName ?? DBusError.Name.failed, message: text)
    }
}

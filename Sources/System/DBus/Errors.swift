internal import CDBus

/// An error named the D-Bus way: an error reply from a peer, a failure of the bus or the
/// connection, or input this wrapper refused before it could reach libdbus.
///
/// Thrown from an exported method's handler, it becomes the error reply the caller sees.
public struct DBusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// An error name such as `org.freedesktop.DBus.Error.InvalidArgs`.
    public var name: String
    /// Human-readable detail; may be empty.
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    public var description: String {
        message.isEmpty ? name : "\(name): \(message)"
    }

    /// The standard error names this wrapper produces or callers commonly test for.
    public enum Name {
        public static let failed = "org.freedesktop.DBus.Error.Failed"
        public static let noMemory = "org.freedesktop.DBus.Error.NoMemory"
        public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
        public static let limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"
        /// The call timed out, or the peer left without answering.
        public static let noReply = "org.freedesktop.DBus.Error.NoReply"
        /// The connection is closed or the bus went away.
        public static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
        public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
        public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
        public static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
        public static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
        public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
        public static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    }

    static func invalidArgs(_ message: String) -> DBusError {
        DBusError(name: Name.invalidArgs, message: message)
    }

    static func failed(_ message: String) -> DBusError {
        DBusError(name: Name.failed, message: message)
    }

    static let closed = DBusError(name: Name.disconnected, message: "the D-Bus connection is closed")
    static let outOfMemory = DBusError(name: Name.noMemory, message: "libdbus ran out of memory")

    /// Takes over a libdbus error that is set, and frees it.
    init(consuming error: inout CDBus.DBusError) {
        self.init(
            name: error.name.map { String(cString: $0) } ?? Name.failed,
            message: error.message.map { String(cString: $0) } ?? "")
        dbus_error_free(&error)
    }
}

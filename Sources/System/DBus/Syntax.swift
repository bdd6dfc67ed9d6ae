internal import CDBus

/// Checks of everything libdbus aborts the process over.
///
/// libdbus treats a malformed object path, name, signature or string handed to its message
/// functions as a programming error and calls `abort()`. Input from the network must never do
/// that, so every such value passes through here first and fails as a thrown `DBusError`.
/// The syntax checks call libdbus's own non-aborting validators (`dbus_validate_path` and
/// friends), so they accept exactly what the aborting checks accept.
///
/// A Swift `String` is always valid UTF-8 (decoding repairs bad bytes), so the one string
/// hazard left is an embedded NUL: C would silently cut the string short there.
enum Syntax {
    static func checkObjectPath(_ path: String) throws(DBusError) {
        try check(path, kind: "object path", with: dbus_validate_path)
    }

    static func checkInterface(_ name: String) throws(DBusError) {
        try check(name, kind: "interface name", with: dbus_validate_interface)
    }

    static func checkMember(_ name: String) throws(DBusError) {
        try check(name, kind: "member name", with: dbus_validate_member)
    }

    static func checkErrorName(_ name: String) throws(DBusError) {
        try check(name, kind: "error name", with: dbus_validate_error_name)
    }

    static func checkBusName(_ name: String) throws(DBusError) {
        try check(name, kind: "bus name", with: dbus_validate_bus_name)
    }

    /// One complete type, as an array element, a variant or a dictionary needs.
    static func checkSingleType(_ signature: String) throws(DBusError) {
        try check(signature, kind: "signature", with: dbus_signature_validate_single)
    }

    /// Zero or more complete types, as a message body has.
    static func checkSignature(_ signature: String) throws(DBusError) {
        try check(signature, kind: "signature", with: dbus_signature_validate)
    }

    /// String contents are never quoted in the error: they may be anything, secrets included.
    static func checkString(_ string: String) throws(DBusError) {
        if string.utf8.contains(0) {
            throw .invalidArgs("a string contains a NUL byte, which D-Bus strings cannot carry")
        }
    }

    private static func check(
        _ text: String, kind: String,
        with validate: (UnsafePointer<CChar>?, UnsafeMutablePointer<CDBus.DBusError>?) -> dbus_bool_t
    ) throws(DBusError) {
        if text.utf8.contains(0) {
            throw .invalidArgs("\(kind) \(quoted(text)) contains a NUL byte")
        }
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        guard text.withCString({ validate($0, &error) }) == 0 else { return }
        let reason = DBusError(consuming: &error).message
        throw .invalidArgs("\(kind) \(quoted(text)) is invalid: \(reason)")
    }

    /// Escaped and cut short, so a hostile name cannot flood a log line or forge a new one.
    private static func quoted(_ text: String) -> String {
        let limit = 80
        let shown = String(reflecting: String(text.prefix(limit)))
        return text.count > limit ? shown + "..." : shown
    }
}

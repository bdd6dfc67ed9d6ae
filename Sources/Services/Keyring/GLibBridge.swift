internal import CSecret

/// A `GError`, copied out before the original is freed.
struct GLibError: Error {
    let domain: GQuark
    let code: Int32
    let message: String

    func `is`(_ domain: GQuark, _ code: UInt32) -> Bool {
        self.domain == domain && self.code == Int32(code)
    }

    func isOneOf<Code: RawRepresentable<UInt32>>(_ domain: GQuark, _ codes: [Code]) -> Bool {
        codes.contains { `is`(domain, $0.rawValue) }
    }

    /// The error of reaching for an item that was deleted after a search found it: libsecret's
    /// own "No such secret item at path", or the service's answer for a gone object.
    var isVanishedItem: Bool {
        isOneOf(g_dbus_error_quark(), [G_DBUS_ERROR_UNKNOWN_METHOD, G_DBUS_ERROR_UNKNOWN_OBJECT, G_DBUS_ERROR_UNKNOWN_INTERFACE])
            || `is`(secret_error_get_quark(), SECRET_ERROR_NO_SUCH_OBJECT.rawValue)
    }
}

/// Conversions between Swift values and the GLib types libsecret takes and gives: attribute
/// tables, strings, lists and errors. Every GLib object made or received here is freed here.
enum GLibBridge {
    /// Copies the strings of an attribute table libsecret handed over, then frees the table:
    /// `secret_item_get_attributes` returns a new reference that is ours to release.
    static func takeAttributes(_ table: OpaquePointer) -> [String: String] {
        defer { g_hash_table_unref(table) }
        var attributes: [String: String] = [:]
        var iterator = GHashTableIter()
        var name: gpointer?
        var value: gpointer?
        g_hash_table_iter_init(&iterator, table)
        while g_hash_table_iter_next(&iterator, &name, &value) != 0 {
            guard let name, let value else { continue }
            attributes[String(cString: name.assumingMemoryBound(to: CChar.self))] =
                String(cString: value.assumingMemoryBound(to: CChar.self))
        }
        return attributes
    }

    /// The strings of a NULL-terminated array, which stays the caller's to free.
    static func strings(_ array: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> [String] {
        var strings: [String] = []
        var next = array
        while let current = next, let string = current.pointee {
            strings.append(String(cString: string))
            next = current + 1
        }
        return strings
    }

    /// Copies and frees a string handed over with transfer full (such as a label).
    static func takeString(_ string: UnsafeMutablePointer<gchar>?) -> String? {
        guard let string else { return nil }
        defer { g_free(string) }
        return String(cString: string)
    }

    /// Calls a function that reports failure through a `GError **`, and throws a set error.
    /// The `GError` is freed here and nowhere else, whatever the call returned, so no path can
    /// leak it or free it twice.
    static func call<Result>(
        _ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> Result
    ) throws(GLibError) -> Result {
        var error: UnsafeMutablePointer<GError>?
        let result = body(&error)
        if let error {
            defer { g_error_free(error) }
            throw GLibError(
                domain: error.pointee.domain, code: error.pointee.code,
                message: error.pointee.message.map { String(cString: $0) } ?? "unknown error")
        }
        return result
    }
}

internal import CDBus
import Glibc

extension Message {
    /// Appends `values` to the body through `DBusMessageIter`.
    ///
    /// Every value is checked before its bytes reach libdbus (see `Syntax`). On a throw the
    /// message is half-built and must be discarded.
    func append(_ values: [DBusValue]) throws(DBusError) {
        try Syntax.checkSignature(values.map(\.signature).joined())
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(raw, &iter)
        var writer = ValueWriter()
        for value in values {
            try writer.append(value, to: &iter, depth: 0)
        }
    }

    /// The body as values. libdbus has already validated everything it received. With a
    /// `limit`, a body whose values take more bytes than that (each string its length, each
    /// other value 8) is refused with `LimitsExceeded` as soon as it is seen to, before the
    /// rest is copied out.
    func arguments(limit: Int? = nil) throws(DBusError) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(raw, &iter) != 0 else { return [] }
        var reader = ValueReader(budget: limit ?? Int.max)
        return try reader.readAll(&iter)
    }
}

/// Writes values, refusing what libdbus would abort on and what the bus would answer by
/// dropping the connection: containers nested deeper than 64 (variants count too), and
/// messages over 32 MiB, the default `max_message_size` of dbus-daemon and of libdbus peers
/// (a desktop's session bus raises it; a bare bus config and the receiving peer may not).
/// Both were seen to disconnect a client from dbus-daemon 1.14 rather than fail the message.
private struct ValueWriter {
    private static let maximumDepth = 64

    /// An upper bound of the marshalled body size still allowed (every value is charged its
    /// worst padding), 1 MiB under the 32 MiB limit to leave room for the header.
    private var budget = 31 << 20

    mutating func append(_ value: DBusValue, to iter: inout DBusMessageIter, depth: Int) throws(DBusError) {
        switch value {
        case .byte(let byte): try appendFixed(CDBUS_TYPE_BYTE, byte, to: &iter)
        // libdbus refuses a dbus_bool_t other than 0 or 1.
        case .bool(let bool): try appendFixed(CDBUS_TYPE_BOOLEAN, dbus_bool_t(bool ? 1 : 0), to: &iter)
        case .int16(let number): try appendFixed(CDBUS_TYPE_INT16, number, to: &iter)
        case .uint16(let number): try appendFixed(CDBUS_TYPE_UINT16, number, to: &iter)
        case .int32(let number): try appendFixed(CDBUS_TYPE_INT32, number, to: &iter)
        case .uint32(let number): try appendFixed(CDBUS_TYPE_UINT32, number, to: &iter)
        case .int64(let number): try appendFixed(CDBUS_TYPE_INT64, number, to: &iter)
        case .uint64(let number): try appendFixed(CDBUS_TYPE_UINT64, number, to: &iter)
        case .double(let number): try appendFixed(CDBUS_TYPE_DOUBLE, number, to: &iter)
        case .string(let string):
            try Syntax.checkString(string)
            try appendText(CDBUS_TYPE_STRING, string, to: &iter)
        case .objectPath(let path):
            try Syntax.checkObjectPath(path)
            try appendText(CDBUS_TYPE_OBJECT_PATH, path, to: &iter)
        case .signature(let signature):
            try Syntax.checkSignature(signature)
            try appendText(CDBUS_TYPE_SIGNATURE, signature, to: &iter)
        case .array(let elementSignature, let elements):
            try Syntax.checkSingleType(elementSignature)
            try appendContainer(CDBUS_TYPE_ARRAY, elementSignature, to: &iter, depth: depth) {
                (writer: inout ValueWriter, sub: inout DBusMessageIter) throws(DBusError) in
                for element in elements {
                    try Self.expect(element, toHave: elementSignature, in: "array")
                    try writer.append(element, to: &sub, depth: depth + 1)
                }
            }
        case .bytes(let bytes):
            try appendContainer(CDBUS_TYPE_ARRAY, "y", to: &iter, depth: depth) {
                (writer: inout ValueWriter, sub: inout DBusMessageIter) throws(DBusError) in
                try writer.spend(bytes.count)
                let appended = bytes.withUnsafeBufferPointer { buffer in
                    var start = buffer.baseAddress
                    return dbus_message_iter_append_fixed_array(&sub, CDBUS_TYPE_BYTE, &start, Int32(buffer.count))
                }
                guard appended != 0 else { throw DBusError.outOfMemory }
            }
        case .dictionary(let keySignature, let valueSignature, let entries):
            let entrySignature = "{" + keySignature + valueSignature + "}"
            // Validating the whole `a{..}` also checks that the key is a basic type.
            try Syntax.checkSingleType("a" + entrySignature)
            try appendContainer(CDBUS_TYPE_ARRAY, entrySignature, to: &iter, depth: depth) {
                (writer: inout ValueWriter, sub: inout DBusMessageIter) throws(DBusError) in
                for entry in entries {
                    try Self.expect(entry.key, toHave: keySignature, in: "dictionary key")
                    try Self.expect(entry.value, toHave: valueSignature, in: "dictionary value")
                    try writer.appendContainer(CDBUS_TYPE_DICT_ENTRY, nil, to: &sub, depth: depth + 1) {
                        (writer: inout ValueWriter, pair: inout DBusMessageIter) throws(DBusError) in
                        try writer.append(entry.key, to: &pair, depth: depth + 2)
                        try writer.append(entry.value, to: &pair, depth: depth + 2)
                    }
                }
            }
        case .struct(let fields):
            guard !fields.isEmpty else { throw DBusError.invalidArgs("a D-Bus struct needs at least one field") }
            try appendContainer(CDBUS_TYPE_STRUCT, nil, to: &iter, depth: depth) {
                (writer: inout ValueWriter, sub: inout DBusMessageIter) throws(DBusError) in
                for field in fields {
                    try writer.append(field, to: &sub, depth: depth + 1)
                }
            }
        case .fileDescriptor:
            throw DBusError.invalidArgs("sending file descriptors is not supported")
        case .variant(let inner):
            let innerSignature = inner.signature
            try Syntax.checkSingleType(innerSignature)
            try appendContainer(CDBUS_TYPE_VARIANT, innerSignature, to: &iter, depth: depth) {
                (writer: inout ValueWriter, sub: inout DBusMessageIter) throws(DBusError) in
                try writer.append(inner, to: &sub, depth: depth + 1)
            }
        }
    }

    private static func expect(_ value: DBusValue, toHave signature: String, in place: String) throws(DBusError) {
        let actual = value.signature
        guard actual == signature else {
            throw DBusError.invalidArgs("\(place) of type '\(signature)' given a value of type '\(actual)'")
        }
    }

    private mutating func spend(_ bytes: Int) throws(DBusError) {
        budget -= bytes
        guard budget >= 0 else {
            throw DBusError(
                name: DBusError.Name.limitsExceeded, message: "message too large for D-Bus (31 MiB at most)")
        }
    }

    private mutating func appendFixed<Number: BitwiseCopyable>(
        _ type: Int32, _ number: Number, to iter: inout DBusMessageIter
    ) throws(DBusError) {
        try spend(16)
        var number = number
        guard dbus_message_iter_append_basic(&iter, type, &number) != 0 else { throw DBusError.outOfMemory }
    }

    /// Strings, object paths and signatures: libdbus takes a pointer to a `const char *`.
    private mutating func appendText(_ type: Int32, _ text: String, to iter: inout DBusMessageIter) throws(DBusError) {
        try spend(text.utf8.count + 8)
        let appended = text.withCString { characters in
            var pointer: UnsafePointer<CChar>? = characters
            return dbus_message_iter_append_basic(&iter, type, &pointer)
        }
        guard appended != 0 else { throw DBusError.outOfMemory }
    }

    private mutating func appendContainer(
        _ type: Int32, _ containedSignature: String?, to iter: inout DBusMessageIter, depth: Int,
        contents: (inout ValueWriter, inout DBusMessageIter) throws(DBusError) -> Void
    ) throws(DBusError) {
        guard depth < Self.maximumDepth else {
            throw DBusError.invalidArgs("value nested deeper than D-Bus allows (\(Self.maximumDepth) containers)")
        }
        try spend(16 + (containedSignature?.utf8.count ?? 0))
        var sub = DBusMessageIter()
        guard dbus_message_iter_open_container(&iter, type, containedSignature, &sub) != 0 else {
            throw DBusError.outOfMemory
        }
        do {
            try contents(&self, &sub)
        } catch {
            dbus_message_iter_abandon_container(&iter, &sub)
            throw error
        }
        guard dbus_message_iter_close_container(&iter, &sub) != 0 else { throw DBusError.outOfMemory }
    }
}

/// Walks a received message's iterator back into values.
private struct ValueReader {
    /// Bytes the values still read may take.
    var budget: Int

    mutating func readAll(_ iter: inout DBusMessageIter) throws(DBusError) -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != CDBUS_TYPE_INVALID {
            values.append(try read(&iter))
            dbus_message_iter_next(&iter)
        }
        return values
    }

    private mutating func read(_ iter: inout DBusMessageIter) throws(DBusError) -> DBusValue {
        try spend(8)
        switch dbus_message_iter_get_arg_type(&iter) {
        case CDBUS_TYPE_BYTE: return .byte(Self.basic(&iter, UInt8.zero))
        case CDBUS_TYPE_BOOLEAN: return .bool(Self.basic(&iter, dbus_bool_t.zero) != 0)
        case CDBUS_TYPE_INT16: return .int16(Self.basic(&iter, Int16.zero))
        case CDBUS_TYPE_UINT16: return .uint16(Self.basic(&iter, UInt16.zero))
        case CDBUS_TYPE_INT32: return .int32(Self.basic(&iter, Int32.zero))
        case CDBUS_TYPE_UINT32: return .uint32(Self.basic(&iter, UInt32.zero))
        case CDBUS_TYPE_INT64: return .int64(Self.basic(&iter, Int64.zero))
        case CDBUS_TYPE_UINT64: return .uint64(Self.basic(&iter, UInt64.zero))
        case CDBUS_TYPE_DOUBLE: return .double(Self.basic(&iter, Double.zero))
        case CDBUS_TYPE_STRING: return .string(try text(&iter))
        case CDBUS_TYPE_OBJECT_PATH: return .objectPath(try text(&iter))
        case CDBUS_TYPE_SIGNATURE: return .signature(try text(&iter))
        // libdbus hands over a duplicate of the descriptor, ours to close.
        case CDBUS_TYPE_UNIX_FD: return .fileDescriptor(DBusFileDescriptor(taking: Self.basic(&iter, Int32(-1))))
        case CDBUS_TYPE_ARRAY: return try array(&iter)
        case CDBUS_TYPE_STRUCT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .struct(try readAll(&sub))
        case CDBUS_TYPE_VARIANT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .variant(try read(&sub))
        case let unsupported:
            let code = UnicodeScalar(UInt8(truncatingIfNeeded: unsupported))
            throw DBusError.invalidArgs("values of D-Bus type '\(code)' are not supported")
        }
    }

    private mutating func array(_ iter: inout DBusMessageIter) throws(DBusError) -> DBusValue {
        // "a" followed by the element type; for a dictionary, "{" key value "}".
        let elementSignature = String(Self.signature(&iter).dropFirst())
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        guard dbus_message_iter_get_element_type(&iter) == CDBUS_TYPE_DICT_ENTRY else {
            return .array(elementSignature: elementSignature, try readAll(&sub))
        }
        let keyAndValue = elementSignature.dropFirst().dropLast()
        var entries: [DBusDictEntry] = []
        while dbus_message_iter_get_arg_type(&sub) != CDBUS_TYPE_INVALID {
            var pair = DBusMessageIter()
            dbus_message_iter_recurse(&sub, &pair)
            let key = try read(&pair)
            dbus_message_iter_next(&pair)
            entries.append(DBusDictEntry(key: key, value: try read(&pair)))
            dbus_message_iter_next(&sub)
        }
        // A dictionary key is a basic type: always one character.
        return .dictionary(
            keySignature: String(keyAndValue.prefix(1)), valueSignature: String(keyAndValue.dropFirst()), entries)
    }

    private static func basic<Number: BitwiseCopyable>(_ iter: inout DBusMessageIter, _ zero: Number) -> Number {
        var number = zero
        dbus_message_iter_get_basic(&iter, &number)
        return number
    }

    /// Measured before it is copied: a string over what is left is never made.
    private mutating func text(_ iter: inout DBusMessageIter) throws(DBusError) -> String {
        var pointer: UnsafePointer<CChar>?
        dbus_message_iter_get_basic(&iter, &pointer)
        guard let pointer else { return "" }
        try spend(strlen(pointer))
        return String(cString: pointer)
    }

    private mutating func spend(_ bytes: Int) throws(DBusError) {
        budget -= bytes
        guard budget >= 0 else { throw DBusError(name: DBusError.Name.limitsExceeded, message: "the message is over the limit of what is read") }
    }

    private static func signature(_ iter: inout DBusMessageIter) -> String {
        guard let characters = dbus_message_iter_get_signature(&iter) else { return "" }
        defer { dbus_free(characters) }
        return String(cString: characters)
    }
}

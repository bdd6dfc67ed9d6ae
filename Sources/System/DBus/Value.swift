import Glibc
import Synchronization

/// One D-Bus value of any type this wrapper sends and receives.
///
/// Containers carry their element types explicitly, so an empty array still has a signature.
/// Nothing here is checked on construction: a message refuses a malformed value (an array
/// element of the wrong type, an invalid object path, a NUL in a string, ...) with a thrown
/// `DBusError` when the value is appended, before libdbus sees it.
/// Unix file descriptors (`h`) are received (logind's `Inhibit` answers one) but never sent.
public enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// `a` + `elementSignature`; every element must have exactly that signature.
    case array(elementSignature: String, [DBusValue])
    /// An `ay` to send, held and written as its bytes: as `.array("y", ...)` each byte is a
    /// value of its own, some 30 times the size, which a picture (a tray icon's pixels) makes
    /// megabytes of. Received, an `ay` is an `.array` as ever.
    case bytes([UInt8])
    /// `a{KV}`; the key signature must be a basic type. Entries keep their order on the wire.
    case dictionary(keySignature: String, valueSignature: String, [DBusDictEntry])
    case `struct`([DBusValue])
    indirect case variant(DBusValue)
    /// A descriptor a peer passed, ours to keep: it closes when the last reference goes.
    case fileDescriptor(DBusFileDescriptor)

    /// The D-Bus type signature of this value.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .array(let elementSignature, _): "a" + elementSignature
        case .bytes: "ay"
        case .dictionary(let keySignature, let valueSignature, _): "a{" + keySignature + valueSignature + "}"
        case .struct(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        case .fileDescriptor: "h"
        }
    }
}

/// A file descriptor received in a message, owned by whoever holds this: closed when the last
/// reference goes (or at `close()`), so holding it holds whatever it stands for (a logind lock).
public final class DBusFileDescriptor: Sendable, Hashable {
    /// Closed at most once, whichever thread calls `close()` or drops the last reference: the
    /// loop's, or a task's on another.
    private let descriptor: Mutex<Int32>

    init(taking descriptor: Int32) {
        self.descriptor = Mutex(descriptor)
    }

    deinit {
        close()
    }

    /// Closes it now; later calls do nothing.
    public func close() {
        let taken = descriptor.withLock { descriptor in
            defer { descriptor = -1 }
            return descriptor
        }
        if taken >= 0 { _ = Glibc.close(taken) }
    }

    public static func == (lhs: DBusFileDescriptor, rhs: DBusFileDescriptor) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// One key and value of a `DBusValue.dictionary`.
public struct DBusDictEntry: Sendable, Hashable {
    public var key: DBusValue
    public var value: DBusValue

    public init(key: DBusValue, value: DBusValue) {
        self.key = key
        self.value = value
    }
}

// MARK: - Building common shapes

extension DBusValue {
    /// An `a{sv}` ("vardict", as in notification hints and launcher properties): each value is
    /// wrapped in a variant, and keys are sorted so equal dictionaries make identical messages.
    public static func vardict(_ entries: [String: DBusValue]) -> DBusValue {
        .dictionary(
            keySignature: "s", valueSignature: "v",
            entries.sorted { $0.key < $1.key }.map { DBusDictEntry(key: .string($0.key), value: .variant($0.value)) })
    }

    /// An `as`.
    public static func stringArray(_ strings: [String]) -> DBusValue {
        .array(elementSignature: "s", strings.map(DBusValue.string))
    }
}

// MARK: - Reading values back

extension DBusValue {
    public var byteValue: UInt8? { if case .byte(let value) = self { value } else { nil } }
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    public var int32Value: Int32? { if case .int32(let value) = self { value } else { nil } }
    public var uint32Value: UInt32? { if case .uint32(let value) = self { value } else { nil } }
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    public var arrayValue: [DBusValue]? { if case .array(_, let elements) = self { elements } else { nil } }
    public var structValue: [DBusValue]? { if case .struct(let fields) = self { fields } else { nil } }
    public var variantValue: DBusValue? { if case .variant(let value) = self { value } else { nil } }
    public var fileDescriptorValue: DBusFileDescriptor? { if case .fileDescriptor(let value) = self { value } else { nil } }

    /// The strings of an `as`; nil for anything else.
    public var stringArrayValue: [String]? {
        guard case .array("s", let elements) = self else { return nil }
        return elements.compactMap(\.stringValue)
    }

    /// An `a{sv}` as a Swift dictionary with the variants unwrapped; nil for anything else.
    /// A key that appears twice keeps its last value.
    public var vardictValue: [String: DBusValue]? {
        guard case .dictionary("s", "v", let entries) = self else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.stringValue, let value = entry.value.variantValue else { return nil }
            result[key] = value
        }
        return result
    }
}

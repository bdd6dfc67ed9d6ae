import DBus

// Readers the daemon itself never needs, for tests that look inside what a peer sent.
extension DBusValue {
    public var int64Value: Int64? { if case .int64(let value) = self { value } else { nil } }
    public var doubleValue: Double? { if case .double(let value) = self { value } else { nil } }
    public var objectPathValue: String? { if case .objectPath(let value) = self { value } else { nil } }
    public var dictionaryValue: [DBusDictEntry]? {
        if case .dictionary(_, _, let entries) = self { entries } else { nil }
    }
}

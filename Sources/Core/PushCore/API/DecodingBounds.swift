/// Numbers read from JSON, bounded where they are decoded: the same rule for a server's answer and
/// for what the daemon reads back from its own state files, which anything running as the user
/// (or a bad disk) may have changed. A count out of range is clamped, as a server's is; an id out
/// of range makes the value undecodable, so a state file holding one is set aside and rebuilt
/// like a corrupt one, and nothing downstream ever does arithmetic on a number at a type's edge.
extension KeyedDecodingContainer {
    /// A count (`unread`, a summary's notices) within `OutsideCount`'s range, whatever number is
    /// written: past Int64, or with a fraction or an exponent, it is still a count, clamped. Nil
    /// when the key is absent or null; an error when it is not a number.
    func decodeCountIfPresent(forKey key: Key) throws -> Int? {
        if let exact = try? decodeIfPresent(Int64.self, forKey: key) {
            return OutsideCount.clamped(exact)
        }
        if let huge = try decodeIfPresent(Double.self, forKey: key), huge.isFinite {
            return OutsideCount.clamped(Int64(min(max(huge, 0), 1e18)))
        }
        return nil
    }

    /// A count that must be there.
    func decodeCount(forKey key: Key) throws -> Int {
        guard let count = try decodeCountIfPresent(forKey: key) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not a count")
        }
        return count
    }

    /// An id: positive and at most `maximum`.
    func decodeID<ID: FixedWidthInteger & Decodable>(_ type: ID.Type, forKey key: Key, maximum: ID = .max) throws -> ID {
        let id = try decode(ID.self, forKey: key)
        guard id > 0, id <= maximum else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "the id \(id) is out of range")
        }
        return id
    }

    /// An id that may be absent (or null).
    func decodeIDIfPresent<ID: FixedWidthInteger & Decodable>(_ type: ID.Type, forKey key: Key, maximum: ID = .max) throws -> ID? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeID(ID.self, forKey: key, maximum: maximum)
    }

    /// A list of ids, each positive and at most `maximum`.
    func decodeIDs<ID: FixedWidthInteger & Decodable>(_ type: ID.Type, forKey key: Key, maximum: ID = .max) throws -> [ID] {
        let ids = try decode([ID].self, forKey: key)
        guard ids.allSatisfy({ $0 > 0 && $0 <= maximum }) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "an id is out of range")
        }
        return ids
    }
}

extension OutsideCount {
    /// `a + b` within `0...maximum`, whatever the two are: never an overflow.
    public static func sum(_ a: Int, _ b: Int) -> Int {
        let (added, overflow) = a.addingReportingOverflow(b)
        if overflow { return a < 0 ? 0 : maximum }
        return clamped(added)
    }
}

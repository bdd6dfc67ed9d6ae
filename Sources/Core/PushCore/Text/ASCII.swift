/// Byte classes shared by the hand-written parsers. Every parser here works on UTF-8 bytes and
/// accepts only ASCII, so a Unicode lookalike can never pass for the character it imitates.
enum ASCII {
    static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    /// `[A-Za-z0-9._-]`: gitbay user, owner and repository names.
    static func isNameCharacter(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "-")
    }

    /// RFC 3986 unreserved: `[A-Za-z0-9._~-]`.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        isNameCharacter(byte) || byte == UInt8(ascii: "~")
    }

    /// Printable ASCII without the space: what may travel in an HTTP header value untouched.
    static func isVisible(_ byte: UInt8) -> Bool {
        (0x21...0x7E).contains(byte)
    }

    static func lowercased(_ bytes: some Sequence<UInt8>) -> String {
        String(decoding: bytes.map { isLetter($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// The value of a run of decimal digits, or nil when it is empty, holds anything else or
    /// exceeds `limit`.
    static func decimalValue(_ bytes: some Collection<UInt8>, limit: Int64 = .max) -> Int64? {
        guard !bytes.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in bytes {
            guard isDigit(byte) else { return nil }
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = shifted.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflowA, !overflowB, sum <= limit else { return nil }
            value = sum
        }
        return value
    }
}

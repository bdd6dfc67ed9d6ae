/// This install's address for push: 32 random bytes as 64 lowercase hex digits, registered with
/// every account (`device add`) and, by default, the relay topic.
///
/// Not a credential, but whoever knows it can read a relay topic named after it, so it prints
/// the way the server lists it: the first 8 characters and "…". Use `hex` to store or send it.
public struct InstallToken: Sendable, Equatable, CustomStringConvertible {
    /// 64 lowercase hex digits.
    public let hex: String

    public static let byteCount = 32

    /// From fresh random bytes (the caller owns the randomness).
    public init(bytes: [UInt8]) throws(InstallTokenError) {
        guard bytes.count == Self.byteCount else { throw .wrongByteCount(bytes.count) }
        hex = bytes.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// From the state file: exactly 64 lowercase hex digits, optionally followed by one newline
    /// ("\n" or "\r\n").
    public init(parsing text: String) throws(InstallTokenError) {
        var digits = Substring(text)
        // "\r\n" is a single Character in Swift, so it needs its own comparison.
        if digits.last == "\n" || digits.last == "\r\n" { digits.removeLast() }
        guard digits.utf8.count == Self.byteCount * 2,
              digits.utf8.allSatisfy({ ASCII.isDigit($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        else { throw .notHex }
        hex = String(digits)
    }

    /// The first 8 characters, as `device list` shows the token.
    public var shortID: String { String(hex.prefix(8)) }

    public var description: String { "\(shortID)…" }
}

public enum InstallTokenError: Error, Equatable, CustomStringConvertible {
    case wrongByteCount(Int)
    case notHex

    public var description: String {
        switch self {
        case .wrongByteCount(let count):
            "an install token is made of \(InstallToken.byteCount) bytes, not \(count)"
        case .notHex:
            "the install token is not \(InstallToken.byteCount * 2) lowercase hex digits"
        }
    }
}

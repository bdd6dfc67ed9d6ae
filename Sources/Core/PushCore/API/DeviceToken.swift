/// One account's address for push: 32 random bytes as 64 lowercase hex digits, made when the
/// account is first registered, registered with that account only (`device add`), and its
/// relay topic.
///
/// Each account has its own: gitbay's `device add` upserts on the token and hands the row to
/// the newest caller, so a token shared by two accounts of one instance would push to one of
/// them only, and one shared across instances would let any instance's operator (or a relay's)
/// wake accounts of the others. Not a credential, but whoever knows it can read the relay topic
/// named after it, so it prints the way the server lists it: the first 8 characters and "…".
/// Use `hex` to store or send it.
public struct DeviceToken: Sendable, Hashable, CustomStringConvertible {
    /// 64 lowercase hex digits.
    public let hex: String

    public static let byteCount = 32

    /// From fresh random bytes (the caller owns the randomness).
    public init(bytes: [UInt8]) throws(DeviceTokenError) {
        guard bytes.count == Self.byteCount else { throw .wrongByteCount(bytes.count) }
        hex = bytes.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// From a state file: exactly 64 lowercase hex digits, optionally followed by one newline
    /// ("\n" or "\r\n").
    public init(parsing text: String) throws(DeviceTokenError) {
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

public enum DeviceTokenError: Error, Equatable, CustomStringConvertible {
    case wrongByteCount(Int)
    case notHex

    public var description: String {
        switch self {
        case .wrongByteCount(let count):
            "a device token is made of \(DeviceToken.byteCount) bytes, not \(count)"
        case .notHex:
            "a device token is not \(DeviceToken.byteCount * 2) lowercase hex digits"
        }
    }
}

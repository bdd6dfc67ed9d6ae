/// A key press, as decoded from what the terminal sends in raw mode.
public enum Key: Sendable, Equatable {
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, escape, backspace
    /// A printable character (letters, digits, space, punctuation).
    case character(Character)
    /// Ctrl and a letter: `control("c")` is ^C (raw mode sends it as a byte, not a signal).
    case control(Character)
    /// An escape sequence the view has no use for (function keys, mouse reports).
    case unknown
}

/// Turns the bytes a terminal sends into keys. Bytes arrive in chunks that may split an escape
/// sequence, so what cannot be decided yet is kept for the next chunk; a lone ESC with nothing
/// after it within a moment is the Escape key (`flush`).
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    public init() {}

    /// Whether a lone ESC or an unfinished sequence waits for more bytes.
    public var isWaiting: Bool { !pending.isEmpty }

    public mutating func decode(_ bytes: some Sequence<UInt8>) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        while let (key, used) = Self.next(pending[...]) {
            pending.removeFirst(used)
            if let key { keys.append(key) }
        }
        return keys
    }

    /// What is still waiting, taken as complete: a lone ESC is the Escape key.
    public mutating func flush() -> [Key] {
        defer { pending = [] }
        guard let first = pending.first else { return [] }
        return first == 0x1B && pending.count == 1 ? [.escape] : [.unknown]
    }

    /// The first key in `bytes` and how many bytes it took; nil when more bytes are needed.
    /// A nil key with a count skips bytes that mean nothing (a stray UTF-8 continuation).
    private static func next(_ bytes: ArraySlice<UInt8>) -> (Key?, Int)? {
        guard let first = bytes.first else { return nil }
        switch first {
        case 0x1B: return escapeSequence(bytes)
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x01...0x1A: return (.control(Character(Unicode.Scalar(first + 0x60))), 1)
        case 0x20...0x7E: return (.character(Character(Unicode.Scalar(first))), 1)
        case 0xC2...0xF4:
            // A multi-byte character: the view binds none, but it must be consumed whole.
            let length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : 2
            guard bytes.count >= length else { return nil }
            let text = String(decoding: bytes.prefix(length), as: UTF8.self)
            return (text.count == 1 ? .character(text.first!) : .unknown, length)
        default:
            return (nil, 1)
        }
    }

    /// `ESC [ ... final`, `ESC O x`, or ESC followed by another key (Alt+key, read as Escape).
    private static func escapeSequence(_ bytes: ArraySlice<UInt8>) -> (Key?, Int)? {
        let start = bytes.startIndex
        guard bytes.count >= 2 else { return nil }
        let second = bytes[start + 1]
        if second == UInt8(ascii: "O") {
            guard bytes.count >= 3 else { return nil }
            return (finalKey(bytes[start + 2], parameter: nil), 3)
        }
        guard second == UInt8(ascii: "[") else { return (.escape, 1) }
        // Parameter and intermediate bytes, then one final byte in 0x40...0x7E.
        var index = start + 2
        while index < bytes.endIndex, (0x20...0x3F).contains(bytes[index]) { index += 1 }
        guard index < bytes.endIndex else { return bytes.count > 32 ? (.unknown, bytes.count) : nil }
        let parameter = String(decoding: bytes[(start + 2)..<index], as: UTF8.self)
        return (finalKey(bytes[index], parameter: parameter), index - start + 1)
    }

    private static func finalKey(_ final: UInt8, parameter: String?) -> Key {
        switch (Unicode.Scalar(final), parameter ?? "") {
        case ("A", _): .up
        case ("B", _): .down
        case ("C", _): .right
        case ("D", _): .left
        case ("H", _): .home
        case ("F", _): .end
        case ("~", "1"), ("~", "7"): .home
        case ("~", "4"), ("~", "8"): .end
        case ("~", "5"): .pageUp
        case ("~", "6"): .pageDown
        default: .unknown
        }
    }
}

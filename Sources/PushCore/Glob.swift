/// A shell-style wildcard pattern, matched against a whole string: `*` matches any run of
/// characters (`/` included), `?` any one character, `[abc]`, `[a-z]` and `[!abc]` (or `[^abc]`)
/// one character of a set or outside it, and `\` makes the next character plain. Everything
/// else, case included, matches itself.
///
/// Matching takes time linear in the text for a given pattern, at most (characters + 1) ×
/// (parts + 1) steps (a part being a `*`, `?`, set or run of plain characters), whatever the
/// pattern: a failed attempt goes back only to the
/// last `*` seen, never to earlier ones, which is enough for wildcards (a later `*` can take
/// whatever an earlier one would have). So a rule like `*a*a*a*a*b` cannot stall the daemon on
/// a long summary the way a backtracking matcher would.
public struct Glob: Sendable, Equatable, CustomStringConvertible {
    /// As written in the config.
    public let pattern: String
    private let parts: [Part]
    /// What any match must start and end with, and its least length in bytes: checked first, so
    /// most texts a rule does not match are turned away without walking the parts.
    private let head: [UInt8]
    private let tail: [UInt8]
    private let leastBytes: Int

    enum Part: Sendable, Equatable {
        /// Bytes that must come next, as UTF-8 (comparing bytes of valid UTF-8 compares
        /// characters: a literal never starts inside another character's bytes).
        case literal([UInt8])
        /// `?`: one character.
        case any
        /// `*`, runs of it merged into one.
        case star
        case set(CharacterSet)
    }

    /// `[...]`: ranges of scalars (a single character is a range of one), or their complement.
    struct CharacterSet: Sendable, Equatable {
        let ranges: [ClosedRange<UInt32>]
        let isNegated: Bool

        func contains(_ scalar: UInt32) -> Bool {
            ranges.contains { $0.contains(scalar) } != isNegated
        }
    }

    public init(parsing pattern: String) throws(GlobError) {
        self.pattern = pattern
        let parts = try Self.parts(of: Array(pattern.unicodeScalars))
        self.parts = parts
        func literal(_ part: Part?) -> [UInt8] {
            if case .literal(let bytes)? = part { bytes } else { [] }
        }
        head = literal(parts.first)
        tail = parts.count > 1 ? literal(parts.last) : []
        leastBytes = parts.reduce(0) { least, part in
            switch part {
            case .literal(let bytes): least + bytes.count
            case .any, .set: least + 1
            case .star: least
            }
        }
    }

    public var description: String { pattern }

    /// How many parts the matcher walks: the factor of its bound.
    var partCount: Int { parts.count }

    public func matches(_ text: String) -> Bool {
        var steps = 0
        return matches(text, steps: &steps)
    }

    /// `matches`, counting the steps it took, for the tests that hold it to its bound.
    func matches(_ text: String, steps: inout Int) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count >= leastBytes, Self.hasPrefix(bytes, head, at: 0),
                  Self.hasPrefix(bytes, tail, at: bytes.count - tail.count)
            else { return false }
            return match(bytes, steps: &steps)
        }
    }

    /// A set that reads like a word, e.g. the `[bot]` of `*[bot]`: it matches one of the letters
    /// b, o or t, which is seldom what was meant (the text `[bot]` is `\[bot\]`). Nil when the
    /// pattern has none.
    public var wordLikeSet: String? {
        for part in parts {
            guard case .set(let set) = part, !set.isNegated, set.ranges.count >= 2,
                  set.ranges.allSatisfy({ $0.count == 1 && Self.isWordScalar($0.lowerBound) })
            else { continue }
            return "[" + String(String.UnicodeScalarView(set.ranges.compactMap { Unicode.Scalar($0.lowerBound) })) + "]"
        }
        return nil
    }

    // MARK: - Matching

    private func match(_ text: UnsafeBufferPointer<UInt8>, steps: inout Int) -> Bool {
        var part = 0
        var position = 0
        // Where to resume after a mismatch: the part after the last `*`, and where in the text
        // that `*` stopped taking characters.
        var resumePart = -1
        var resumePosition = 0
        while part < parts.count || position < text.count {
            steps += 1
            if part < parts.count {
                switch parts[part] {
                case .star:
                    // A `*` last takes whatever is left.
                    if part + 1 == parts.count { return true }
                    resumePart = part + 1
                    resumePosition = position
                    part += 1
                    continue
                case .literal(let bytes):
                    if Self.hasPrefix(text, bytes, at: position) {
                        part += 1
                        position += bytes.count
                        continue
                    }
                case .any:
                    if position < text.count {
                        position = Self.scalarEnd(text, from: position)
                        part += 1
                        continue
                    }
                case .set(let set):
                    if position < text.count {
                        let (scalar, end) = Self.scalar(text, at: position)
                        if set.contains(scalar) {
                            position = end
                            part += 1
                            continue
                        }
                    }
                }
            }
            // A mismatch: the last `*` takes one more character, if there is one to take.
            guard resumePart >= 0, resumePosition < text.count else { return false }
            resumePosition = Self.scalarEnd(text, from: resumePosition)
            part = resumePart
            position = resumePosition
        }
        return true
    }

    private static func hasPrefix(_ text: UnsafeBufferPointer<UInt8>, _ bytes: [UInt8], at position: Int) -> Bool {
        guard text.count - position >= bytes.count else { return false }
        for (offset, byte) in bytes.enumerated() where text[position + offset] != byte {
            return false
        }
        return true
    }

    /// Where the character starting at `position` ends: past its continuation bytes.
    private static func scalarEnd(_ text: UnsafeBufferPointer<UInt8>, from position: Int) -> Int {
        var end = position + 1
        while end < text.count, text[end] & 0xC0 == 0x80 { end += 1 }
        return end
    }

    /// The scalar starting at `position` (a Swift string's UTF-8 is always valid), and its end.
    private static func scalar(_ text: UnsafeBufferPointer<UInt8>, at position: Int) -> (UInt32, Int) {
        let end = scalarEnd(text, from: position)
        let lead = UInt32(text[position])
        guard end > position + 1 else { return (lead, end) }
        var value = lead & (0xFF >> UInt32(end - position + 1))
        for index in (position + 1)..<end {
            value = value << 6 | UInt32(text[index] & 0x3F)
        }
        return (value, end)
    }

    // MARK: - Parsing

    private static func parts(of scalars: [Unicode.Scalar]) throws(GlobError) -> [Part] {
        var parts: [Part] = []
        var literal: [UInt8] = []
        func flush() {
            if !literal.isEmpty { parts.append(.literal(literal)) }
            literal = []
        }
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            switch scalar {
            case "*":
                flush()
                if parts.last != .star { parts.append(.star) }
            case "?":
                flush()
                parts.append(.any)
            case "[":
                flush()
                let (set, end) = try characterSet(scalars, from: index)
                parts.append(.set(set))
                index = end
            case "\\":
                guard index < scalars.count else { throw .trailingBackslash }
                literal += Array(String(scalars[index]).utf8)
                index += 1
            default:
                literal += Array(String(scalar).utf8)
            }
        }
        flush()
        return parts
    }

    /// The set that starts after a `[` at `start`, and the index after its `]`. A `]` first in
    /// the set, or a `-` first or last, stands for itself, as in the shell.
    private static func characterSet(_ scalars: [Unicode.Scalar], from start: Int) throws(GlobError) -> (CharacterSet, Int) {
        var index = start
        var isNegated = false
        if index < scalars.count, scalars[index] == "!" || scalars[index] == "^" {
            isNegated = true
            index += 1
        }
        var ranges: [ClosedRange<UInt32>] = []
        var isFirst = true
        while index < scalars.count {
            var low = scalars[index]
            index += 1
            if low == "]" && !isFirst {
                return (CharacterSet(ranges: ranges, isNegated: isNegated), index)
            }
            isFirst = false
            if low == "\\" {
                guard index < scalars.count else { throw .trailingBackslash }
                low = scalars[index]
                index += 1
            }
            // `a-z`, unless the `-` is the last thing before the closing `]`.
            if index + 1 < scalars.count, scalars[index] == "-", scalars[index + 1] != "]" {
                var high = scalars[index + 1]
                index += 2
                if high == "\\" {
                    guard index < scalars.count else { throw .trailingBackslash }
                    high = scalars[index]
                    index += 1
                }
                guard low.value <= high.value else { throw .reversedRange("\(low)-\(high)") }
                ranges.append(low.value...high.value)
            } else {
                ranges.append(low.value...low.value)
            }
        }
        throw .unclosedSet
    }

    private static func isWordScalar(_ value: UInt32) -> Bool {
        guard let scalar = Unicode.Scalar(value), scalar.isASCII else { return false }
        return ASCII.isLetter(UInt8(value)) || ASCII.isDigit(UInt8(value))
    }
}

public enum GlobError: Error, Equatable, Sendable, CustomStringConvertible {
    case unclosedSet
    case trailingBackslash
    case reversedRange(String)

    public var description: String {
        switch self {
        case .unclosedSet:
            "a [ opens a set of characters that no ] closes (write \\[ for the character itself)"
        case .trailingBackslash:
            "it ends with a \\ that escapes nothing (write \\\\ for the character itself)"
        case .reversedRange(let range):
            "the range \(range.displaySafe) goes backwards; write the lower character first"
        }
    }
}

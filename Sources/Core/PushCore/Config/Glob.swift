/// A shell-style wildcard pattern, matched against a whole string: `*` matches any run of
/// characters (`/` included), `?` any one character, `[abc]`, `[a-z]` and `[!abc]` (or `[^abc]`)
/// one character of a set or outside it, and `\` makes the next character plain. Everything
/// else, case included, matches itself.
///
/// Matching costs at most (characters + pattern characters) × (1 + longest run between two
/// `*`s / 64) word steps, plus, for each character outside ASCII, one step per set in the run
/// being sought (`matches(_:work:)` counts them): the runs between the `*`s are found one after
/// another, each at its leftmost place after the one before (enough for wildcards: a later `*`
/// can take whatever an earlier one would have), and each run in one pass over the text, all
/// its possible starts at once as the bits of words (shift-and), never by comparing it again at
/// each position. So neither `*a*a*a*a*b` nor `*aaaa…ab*` can stall the daemon on a long
/// summary, as a backtracking matcher (exponential) and a last-star one (text × pattern) would.
public struct Glob: Sendable, Equatable, CustomStringConvertible {
    /// As written in the config.
    public let pattern: String
    private let parts: [Part]
    /// The runs of parts between `*`s, in order; the first is held to the text's start unless
    /// the pattern starts with `*`, the last to its end unless it ends with `*`.
    private let runs: [Run]
    private let startsWithStar: Bool
    private let endsWithStar: Bool

    enum Part: Sendable, Equatable {
        /// One character that must come next.
        case scalar(UInt32)
        /// `?`: one character.
        case any
        /// `*`, runs of it merged into one.
        case star
        case set(CharacterSet)

        func matches(_ scalar: UInt32) -> Bool {
            switch self {
            case .scalar(let own): own == scalar
            case .any: true
            case .set(let set): set.contains(scalar)
            case .star: false
            }
        }
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
        startsWithStar = parts.first == .star
        endsWithStar = parts.last == .star
        runs = parts.split(separator: .star, omittingEmptySubsequences: true).map { Run(Array($0)) }
    }

    public var description: String { pattern }

    public func matches(_ text: String) -> Bool {
        var work = 0
        return matches(text, work: &work)
    }

    /// `matches`, counting its word steps, for the tests that hold it to its bound.
    func matches(_ text: String, work: inout Int) -> Bool {
        let scalars = text.unicodeScalars.map(\.value)
        return scalars.withUnsafeBufferPointer { match($0, work: &work) }
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

    private func match(_ text: UnsafeBufferPointer<UInt32>, work: inout Int) -> Bool {
        guard let firstRun = runs.first, let lastRun = runs.last else {
            // Only `*`s, or nothing at all.
            return startsWithStar || text.isEmpty
        }
        if runs.count == 1 && !startsWithStar && !endsWithStar {
            return firstRun.count == text.count && firstRun.matches(text, at: 0, work: &work)
        }
        var position = 0
        var end = text.count
        var middle = runs[...]
        if !startsWithStar {
            guard firstRun.matches(text, at: 0, work: &work) else { return false }
            position = firstRun.count
            middle = middle.dropFirst()
        }
        if !endsWithStar {
            guard lastRun.count <= end - position, lastRun.matches(text, at: end - lastRun.count, work: &work)
            else { return false }
            end -= lastRun.count
            middle = middle.dropLast()
        }
        for run in middle {
            guard let found = run.firstEnd(in: text, from: position, to: end, work: &work) else { return false }
            position = found
        }
        return true
    }

    /// Parts between two `*`s: each takes exactly one character, so a run of `count` parts takes
    /// `count` characters.
    struct Run: Sendable, Equatable {
        let parts: [Part]
        /// By character, the parts that take it: bit `i` (of word `i / 64`) for part `i`. Named
        /// are the run's own characters and the ASCII ones of its sets; a `?` takes every
        /// character (`anyMask`), and the sets are tried on the other characters as they come.
        private let named: [UInt32: [UInt64]]
        private let anyMask: [UInt64]
        private let sets: [(index: Int, set: CharacterSet)]

        var count: Int { parts.count }
        private var words: Int { anyMask.count }

        init(_ parts: [Part]) {
            self.parts = parts
            let words = (parts.count + 63) / 64
            var named: [UInt32: [UInt64]] = [:]
            var anyMask = [UInt64](repeating: 0, count: words)
            var sets: [(index: Int, set: CharacterSet)] = []
            for (index, part) in parts.enumerated() {
                switch part {
                case .scalar(let scalar): named[scalar, default: [UInt64](repeating: 0, count: words)][index / 64] |= 1 << UInt64(index % 64)
                case .any: anyMask[index / 64] |= 1 << UInt64(index % 64)
                case .set(let set):
                    // Its ASCII characters are looked up as named ones are; only the others try
                    // the set itself.
                    for ascii in UInt32(0)..<128 where set.contains(ascii) {
                        named[ascii, default: [UInt64](repeating: 0, count: words)][index / 64] |= 1 << UInt64(index % 64)
                    }
                    sets.append((index, set))
                case .star: break
                }
            }
            self.named = named
            self.anyMask = anyMask
            self.sets = sets
        }

        static func == (lhs: Run, rhs: Run) -> Bool { lhs.parts == rhs.parts }

        /// The run matches the text's characters from `start` (there are at least `count`).
        func matches(_ text: UnsafeBufferPointer<UInt32>, at start: Int, work: inout Int) -> Bool {
            guard text.count - start >= count else { return false }
            work += count
            for (offset, part) in parts.enumerated() where !part.matches(text[start + offset]) {
                return false
            }
            return true
        }

        /// Where the leftmost match of the run inside `text[from..<to]` ends; nil if none. Bit `i`
        /// of `state` says the last `i + 1` characters read match the run's first `i + 1` parts.
        func firstEnd(in text: UnsafeBufferPointer<UInt32>, from: Int, to: Int, work: inout Int) -> Int? {
            var state = [UInt64](repeating: 0, count: words)
            var mask = [UInt64](repeating: 0, count: words)
            let last = (count - 1) / 64
            let lastBit: UInt64 = 1 << UInt64((count - 1) % 64)
            let none = [UInt64](repeating: 0, count: words)
            var position = from
            while position < to {
                let scalar = text[position]
                position += 1
                work += words
                // Which parts take this character: then every start moves on by one.
                let own = named[scalar] ?? none
                if scalar >= 128 {
                    work += sets.count
                    for word in 0..<words { mask[word] = own[word] }
                    for (index, set) in sets where set.contains(scalar) {
                        mask[index / 64] |= 1 << UInt64(index % 64)
                    }
                }
                let ended = state.withUnsafeMutableBufferPointer { state in
                    anyMask.withUnsafeBufferPointer { any in
                        (scalar >= 128 ? mask : own).withUnsafeBufferPointer { takes in
                            var carry: UInt64 = 1
                            for word in 0..<state.count {
                                let next = state[word] >> 63
                                state[word] = (state[word] << 1 | carry) & (any[word] | takes[word])
                                carry = next
                            }
                            return state[last] & lastBit != 0
                        }
                    }
                }
                if ended { return position }
            }
            return nil
        }
    }
    // MARK: - Parsing

    private static func parts(of scalars: [Unicode.Scalar]) throws(GlobError) -> [Part] {
        var parts: [Part] = []
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            switch scalar {
            case "*":
                if parts.last != .star { parts.append(.star) }
            case "?":
                parts.append(.any)
            case "[":
                let (set, end) = try characterSet(scalars, from: index)
                parts.append(.set(set))
                index = end
            case "\\":
                guard index < scalars.count else { throw .trailingBackslash }
                parts.append(.scalar(scalars[index].value))
                index += 1
            default:
                parts.append(.scalar(scalar.value))
            }
        }
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

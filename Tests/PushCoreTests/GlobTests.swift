@testable import PushCore
import Testing

@Suite struct GlobTests {
    static func glob(_ pattern: String) throws -> Glob {
        try Glob(parsing: pattern)
    }

    @Test(arguments: [
        // Plain text matches itself, whole and case included.
        ("krz/gitbay", "krz/gitbay", true),
        ("krz/gitbay", "krz/gitbay-docs", false),
        ("krz/gitbay", "Krz/gitbay", false),
        ("", "", true),
        ("", "x", false),
        // `*` takes any run, `/` and nothing included.
        ("krz/*", "krz/gitbay", true),
        ("krz/*", "krz/", true),
        ("krz/*", "ops/gitbay", false),
        ("*gitbay", "krz/gitbay", true),
        ("*failed*", "build #88 failed on main", true),
        ("*failed*", "build #88 passed on main", false),
        ("*", "", true),
        ("**", "anything", true),
        ("a*b*c", "aXbYc", true),
        ("a*b*c", "aXbYcZ", false),
        ("a*b*c", "abcbc", true),
        // `?` takes one character, a multi-byte one too.
        ("c?c", "cmc", true),
        ("c?c", "cc", false),
        ("c?c", "cümc", false),
        ("c?c", "cüc", true),
        ("?", "😀", true),
        // Sets, ranges, negation, and `]` or `-` standing for themselves.
        ("build #[0-9]*", "build #88 failed", true),
        ("build #[0-9]*", "build #x failed", false),
        ("[!a-z]*", "Alba", true),
        ("[!a-z]*", "alba", false),
        ("[^a-z]*", "alba", false),
        ("[]]x", "]x", true),
        ("[a-]", "-", true),
        ("[-a]", "-", true),
        ("[ü]", "ü", true),
        ("[a-ü]", "é", true),
        // A backslash makes the next character plain: how the text "[bot]" is matched.
        (#"*\[bot\]"#, "dependabot[bot]", true),
        (#"*\[bot\]"#, "bob", false),
        (#"\*"#, "*", true),
        (#"\*"#, "x", false),
        (#"a\?"#, "a?", true),
        (#"[\]]"#, "]", true),
        // Without the backslash, [bot] is a set of three letters.
        ("*[bot]", "bob", true),
        ("*[bot]", "dependabot[bot]", false),
    ])
    func matches(_ pattern: String, _ text: String, _ expected: Bool) throws {
        #expect(try Self.glob(pattern).matches(text) == expected)
    }

    @Test(arguments: [
        ("[abc", GlobError.unclosedSet),
        ("x[", .unclosedSet),
        ("[]", .unclosedSet),
        ("[!]", .unclosedSet),
        (#"abc\"#, .trailingBackslash),
        (#"[a\"#, .trailingBackslash),
        ("[z-a]", .reversedRange("z-a")),
    ])
    func refuses(_ pattern: String, _ error: GlobError) {
        #expect(throws: error) { try Glob(parsing: pattern) }
    }

    @Test func errorsSayWhatToWrite() {
        #expect(GlobError.unclosedSet.description == #"a [ opens a set of characters that no ] closes (write \[ for the character itself)"#)
        #expect(GlobError.trailingBackslash.description == #"it ends with a \ that escapes nothing (write \\ for the character itself)"#)
        #expect(GlobError.reversedRange("z-a").description == "the range z-a goes backwards; write the lower character first")
    }

    /// A hostile pattern, a long text it does not match and one it does, and its longest run
    /// between two `*`s in characters (the words of its shift-and).
    struct Hostile: Sendable, CustomTestStringConvertible {
        let pattern: String
        let missed: String
        let matched: String
        let longestRun: Int
        let setsOutsideASCII: Int

        var testDescription: String { "\(pattern.prefix(12))… over \(missed.unicodeScalars.count) characters" }

        init(_ pattern: String, _ letter: String, _ length: Int, then ending: String, longestRun: Int, setsOutsideASCII: Int = 0) {
            self.pattern = pattern
            missed = String(repeating: letter, count: length)
            matched = String(repeating: letter, count: length) + ending
            self.longestRun = longestRun
            self.setsOutsideASCII = setsOutsideASCII
        }
    }

    /// `*a*a…b` makes a backtracking matcher take exponential time (every `*` could stop at every
    /// `a`), and a long run between two `*`s over a long text of its first letters makes a
    /// last-star matcher compare the run again at every position (text × pattern). Each stays
    /// within (characters + pattern characters) × (1 + longest run / 64 + sets tried outside
    /// ASCII) word steps, matching or not.
    @Test(arguments: [
        Hostile(String(repeating: "*a", count: 40) + "b", "a", 10_000, then: "b", longestRun: 1),
        Hostile(String(repeating: "*a", count: 200) + "b", "a", 2_000, then: "b", longestRun: 1),
        Hostile("*" + String(repeating: "q", count: 2_500) + "r*", "q", 60_000, then: "r", longestRun: 2_501),
        Hostile("*" + String(repeating: "?", count: 700) + "[r-s]*", "q", 30_000, then: "s", longestRun: 701),
        Hostile("*" + String(repeating: "é", count: 300) + "[ê-ë]z*", "é", 20_000, then: "ëz", longestRun: 302, setsOutsideASCII: 1),
    ])
    func aHostilePatternStaysWithinItsLinearBound(_ hostile: Hostile) throws {
        let glob = try Self.glob(hostile.pattern)
        let characters = hostile.matched.unicodeScalars.count + hostile.pattern.unicodeScalars.count
        let bound = characters * (1 + (hostile.longestRun + 63) / 64 + hostile.setsOutsideASCII)
        var work = 0
        #expect(!glob.matches(hostile.missed, work: &work))
        #expect(work <= bound, "\(work) steps, bound \(bound)")
        var matchingWork = 0
        #expect(glob.matches(hostile.matched, work: &matchingWork))
        #expect(matchingWork <= bound, "\(matchingWork) steps, bound \(bound)")
    }

    @Test func setsThatReadLikeWordsAreNamed() throws {
        #expect(try Self.glob("*[bot]").wordLikeSet == "[bot]")
        #expect(try Self.glob("krz/[gG]itbay").wordLikeSet == "[gG]")
        #expect(try Self.glob(#"*\[bot\]"#).wordLikeSet == nil)
        #expect(try Self.glob("[0-9]*").wordLikeSet == nil)
        #expect(try Self.glob("[!abc]").wordLikeSet == nil)
        #expect(try Self.glob("[x]").wordLikeSet == nil)
        #expect(try Self.glob("[-_]").wordLikeSet == nil)
    }
}

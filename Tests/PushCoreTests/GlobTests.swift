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

    /// The pattern that makes a backtracking matcher take exponential time: every `*` could
    /// stop at every `a`. This one stays within (characters + 1) × (parts + 1) steps.
    @Test(arguments: [(40, 10_000), (200, 2_000), (1, 50_000)])
    func aHostilePatternStaysWithinItsLinearBound(stars: Int, length: Int) throws {
        let pattern = try Self.glob(String(repeating: "*a", count: stars) + "b")
        let text = String(repeating: "a", count: length)
        var steps = 0
        #expect(!pattern.matches(text, steps: &steps))
        #expect(steps <= (length + 1) * (pattern.partCount + 1), "\(steps) steps")
        // The same bound when it does match.
        var matchingSteps = 0
        #expect(pattern.matches(text + "b", steps: &matchingSteps))
        #expect(matchingSteps <= (length + 2) * (pattern.partCount + 1), "\(matchingSteps) steps")
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

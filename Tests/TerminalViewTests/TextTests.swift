import PushCore
@testable import TerminalView
import Testing

/// What reaches the screen: cleaned, measured in columns, wrapped.
@Suite struct ScreenTextTests {
    @Test(arguments: [
        ("plain", "plain"),
        ("a\u{1B}[31mred\u{1B}[0m", "a[31mred[0m"),
        ("line\nbreak\ttab", "line break tab"),
        ("bell\u{07}\u{7F}\u{9B}c", "bellc"),
        ("\u{202E}evil\u{202C} \u{2066}iso\u{2069}", "evil iso"),
        ("zero\u{200B}width\u{200D}join", "zerowidthjoin"),
        ("sep\u{2028}arated\u{2029}", "sep arated "),
    ])
    func oneLineLosesControlsAndFormatCharacters(_ text: String, _ clean: String) {
        #expect(ScreenText.line(text) == clean)
    }

    @Test func linesSplitOnEveryLineBreakAndExpandTabs() {
        #expect(ScreenText.lines("a\r\nb\rc\nd\u{2028}e") == ["a", "b", "c", "d", "e"])
        #expect(ScreenText.lines("\tx\n12\ty\n\u{1B}]0;title\u{07}z") == ["    x", "12  y", "]0;titlez"])
        #expect(ScreenText.lines("") == [""])
    }

    @Test(arguments: [
        ("abc", 3), ("日本語", 6), ("e\u{301}", 1), ("👍", 2), ("한국", 4), ("ｆｕｌｌ", 8), ("✓✗·→", 4), ("", 0),
    ])
    func widthsAreTerminalColumns(_ text: String, _ width: Int) {
        #expect(ScreenText.width(of: text) == width)
    }

    @Test func truncationCountsColumnsAndMarksTheCut() {
        #expect(ScreenText.truncated("hello world", to: 8) == "hello w…")
        #expect(ScreenText.truncated("日本語です", to: 6) == "日本…")
        #expect(ScreenText.truncated("fits", to: 4) == "fits")
        #expect(ScreenText.truncated("x", to: 0) == "")
    }
}

@Suite struct WrappingTests {
    @Test func wordsFillLinesGreedily() {
        #expect(Wrapping.wrap("the quick brown fox jumps over", width: 10) == ["the quick", "brown fox", "jumps over"])
        #expect(Wrapping.wrap("a  b   c", width: 80) == ["a b c"])
        #expect(Wrapping.wrap("", width: 10) == [""])
    }

    @Test func aWordWiderThanTheLineIsBroken() {
        #expect(Wrapping.wrap("see https://gitbay.org/krz/gitbay/issues/12 now", width: 12)
            == ["see", "https://gitb", "ay.org/krz/g", "itbay/issues", "/12 now"])
    }

    @Test func wideCharactersCountTwice() {
        #expect(Wrapping.wrap("日本語 日本語", width: 7) == ["日本語", "日本語"])
        #expect(Wrapping.chunks("日本語です", width: 4) == ["日本", "語で", "す"])
    }

    @Test func chunksKeepSpaces() {
        #expect(Wrapping.chunks("    indented code", width: 8) == ["    inde", "nted cod", "e"])
    }
}

@Suite struct AgeTests {
    static let now = GitbayTime.seconds(since1970: "2026-09-20T12:00:00.000Z")!

    @Test func timestampsParse() {
        #expect(GitbayTime.seconds(since1970: "1970-01-01T00:00:00Z") == 0)
        #expect(GitbayTime.seconds(since1970: "2000-03-01T00:00:00.500Z") == 951_868_800.5)
        #expect(GitbayTime.seconds(since1970: "2026-09-20T12:00:00.000Z") == 1_789_905_600)
        for bad in ["", "2026-09-20", "2026-09-20T12:00:00", "2026-13-01T00:00:00Z", "2026-09-20T12:00:00+02:00", "x026-09-20T12:00:00Z"] {
            #expect(GitbayTime.seconds(since1970: bad) == nil, "\(bad)")
        }
    }

    @Test(arguments: [
        ("2026-09-20T11:59:30.000Z", "just now"),
        ("2026-09-20T11:59:00.000Z", "1 minute ago"),
        ("2026-09-20T11:15:00.000Z", "45 minutes ago"),
        ("2026-09-20T09:00:00.000Z", "3 hours ago"),
        ("2026-09-18T12:00:00.000Z", "2 days ago"),
        ("2026-01-02T10:00:00.000Z", "on 2026-01-02"),
        ("2026-09-21T12:00:00.000Z", "in the future (2026-09-21)"),
        ("yesterday\u{1B}[2J", "yesterday[2J"),
    ])
    func agesInWords(_ timestamp: String, _ words: String) {
        #expect(Age.describe(timestamp, now: Self.now) == words)
    }

    @Test func durations() {
        #expect([0, 45, 60, 72, 3600, 3725].map { Age.duration($0) } == ["0s", "45s", "1m", "1m12s", "1h0m", "1h2m"])
    }
}

@Suite struct BodyLayoutTests {
    static func text(_ body: String, format: String? = "md", width: Int = 30) -> [String] {
        BodyLayout.lines(body, format: format, width: width).map(\.text)
    }

    @Test func paragraphsReflowAndBlankLinesSeparateThem() {
        #expect(Self.text("one two\nthree four five six seven\n\n\n\nnext") == ["one two three four five six", "seven", "", "next"])
    }

    @Test func listItemsHangUnderTheirMarker() {
        #expect(Self.text("- first item that wraps across lines\n- second\n12. numbered one", width: 20) == [
            "- first item that", "  wraps across lines", "- second", "12. numbered one",
        ])
    }

    @Test func codeKeepsItsLinesAndIsOnlyCutWhereTooWide() {
        #expect(Self.text("text\n\n```\nlet x = 1\n\n  indented stays\n```\nafter", width: 12) == [
            "text", "", "let x = 1", "", "  indented s", "tays", "after",
        ])
        #expect(Self.text("para\n\n    code  line\n    more", width: 40) == ["para", "", "    code  line", "    more"])
    }

    @Test func headingsAndQuotes() {
        let lines = BodyLayout.lines("# Title\n> quoted text\n> goes on", format: "md", width: 40)
        #expect(lines.map(\.text) == ["Title", "│ quoted text goes on"])
        #expect(lines[0].spans.first?.style.bold == true)
        #expect(lines[1].spans.first?.style.dim == true)
    }

    @Test func orgBlocksHeadingsAndLists() {
        #expect(Self.text("* Heading\n- item\n#+BEGIN_SRC sh\necho  hi\n#+end_src\ntext", format: "org", width: 40) == [
            "Heading", "- item", "echo  hi", "text",
        ])
        // In Org a leading "*" is a heading, never a bullet.
        #expect(Self.text("** Sub", format: "org") == ["Sub"])
        #expect(Self.text("* bullet", format: "md") == ["* bullet"])
    }

    @Test func escapesInBodiesNeverReachTheScreen() {
        let lines = Self.text("evil \u{1B}]52;c;cGF5bG9hZA==\u{07} here\n```\n\u{1B}[2J\n```")
        #expect(lines.allSatisfy { !$0.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } })
    }
}

import PushCore
@testable import TerminalView
import Testing

/// Issue 24: bodies a hostile server may send (a server may send 1 MiB) laid out right, in one
/// pass (the time is `make bench`'s `layout` row): a mebibyte of tabs, one unbroken word of a
/// mebibyte in a body and in a system entry, wide characters among tabs. Each text is cut to
/// `ScreenText.textLimit` (64 KiB) first, and the view says so. On cdd6bf3 nothing was cut, and
/// tab expansion and long-word breaking measured the line again at every tab and every piece:
/// 5,000 tabs took 7.3 s, a mebibyte would take days.
@Suite struct HostileLayoutTests {
    static let mebibyte = 1 << 20
    static let width = 80

    static func body(_ text: String, width: Int = width) -> [String] {
        BodyLayout.lines(text, format: "md", width: width).map(\.text)
    }

    /// The dim last line of a body cut at 64 KiB, for `total` bytes.
    static func cutLine(_ total: Int) -> String {
        "… cut here: \((total - ScreenText.textLimit + 1023) / 1024) KiB more, to be read in the browser"
    }

    /// Whether `lines` are `text` broken greedily at `width` columns, as code (and a word wider
    /// than a line) must be: together they are the text, none is wider than the width, and each
    /// but the last is full, the next line's first character no longer fitting on it.
    static func areGreedyPieces(_ lines: some BidirectionalCollection<String>, of text: String, width: Int) -> Bool {
        guard lines.joined() == text else { return false }
        for (line, next) in zip(lines, lines.dropFirst()) {
            let used = ScreenText.width(of: line)
            guard used <= width, let first = next.first, used + ScreenText.width(of: first) > width else { return false }
        }
        return lines.last.map { ScreenText.width(of: $0) <= width } ?? false
    }

    @Test func aMebibyteOfTabsIsABlankLineAndTheCut() {
        let lines = Self.body(String(repeating: "\t", count: Self.mebibyte))
        #expect(lines == [Self.cutLine(Self.mebibyte)])
    }

    /// `\tx` over and over: one line of code, its tabs expanded to every fourth column, then cut
    /// into lines of the width.
    @Test func aMebibyteOfTabbedCodeIsExpandedAndBrokenAtTheWidth() {
        let lines = Self.body(String(repeating: "\tx", count: Self.mebibyte / 2))
        // 64 KiB is 32,768 of them: "    x", then three spaces to the next fourth column each time.
        let expanded = "    x" + String(repeating: "   x", count: ScreenText.textLimit / 2 - 1)
        #expect(lines.count == (5 + 4 * (ScreenText.textLimit / 2 - 1) + Self.width - 1) / Self.width + 1)
        #expect(Self.areGreedyPieces(lines.dropLast(), of: expanded, width: Self.width))
        #expect(lines.dropLast(2).allSatisfy { $0.count == Self.width })
        #expect(lines.last == Self.cutLine(Self.mebibyte))
    }

    /// Wide characters between tabs: the column counts them as two, so each tab still ends on a
    /// fourth column; the cut falls inside a character and moves back to its start.
    @Test func wideCharactersAmongTabsKeepTheColumns() {
        let text = "\t" + String(repeating: "日本\t", count: Self.mebibyte / 7)
        let lines = Self.body(text)
        // 64 KiB is the first tab and 9,362 of "日本\t" (7 bytes each), and one byte of the
        // next "日": the cut keeps none of it. Each "日本" starts on a fourth column, and takes
        // four: four spaces to the next.
        let kept = (ScreenText.textLimit - 1) / 7
        let expanded = "    " + String(repeating: "日本    ", count: kept)
        #expect(Self.areGreedyPieces(lines.dropLast(), of: expanded, width: Self.width))
        #expect(lines.last == Self.cutLine(text.utf8.count))
        // The same at an odd width: a wide character never straddles a line's end, so some
        // lines end a column short.
        let odd = Self.body(text, width: 79)
        #expect(Self.areGreedyPieces(odd.dropLast(), of: expanded, width: 79))
        #expect(odd.dropLast().contains { ScreenText.width(of: $0) == 78 })
    }

    @Test func oneMebibyteWordIsBrokenIntoFullLines() {
        let lines = Self.body(String(repeating: "a", count: Self.mebibyte))
        let full = ScreenText.textLimit / Self.width
        #expect(lines.count == full + 2)
        #expect(lines.prefix(full).allSatisfy { $0 == String(repeating: "a", count: Self.width) })
        #expect(lines[full] == String(repeating: "a", count: ScreenText.textLimit % Self.width))
        #expect(lines.last == Self.cutLine(Self.mebibyte))
    }

    /// A system entry is one line, wrapped with a hanging indent: a word of a mebibyte fills
    /// line after line, cut at 64 KiB with "…", and the entry's age follows it.
    @Test func oneMebibyteWordAsASystemEntryFillsLinesAndEndsInTheCut() {
        let word = String(repeating: "w", count: Self.mebibyte)
        let issue = ItemDetails.issue(IssueDetails(
            discussion: Discussion(
                number: 1, title: "t", state: "open", author: "a", createdAt: "2026-09-18T12:00:00.000Z", body: "b",
                comments: [ItemComment(id: 2, author: "system", body: word, bodyFormat: nil, createdAt: "2026-09-18T12:00:00.000Z", reactions: [])]),
            assignees: []))
        let lines = ItemLayout.lines(issue, width: Self.width, now: Items.now).map(\.text)
        let entry = Array(lines.drop { !$0.hasPrefix("· ") })
        // The entry is cut at 64 KiB: "· " (three bytes) and 65,533 w's, then "…". "· " and 78
        // of them on the first line, then "  " and 78 at a time, then the rest and its age.
        let rest = ScreenText.textLimit - 3 + 1 - 78
        #expect(entry.first == "· " + String(repeating: "w", count: 78))
        let middle = entry.dropFirst().prefix(rest / 78)
        #expect(middle.count == rest / 78)
        #expect(middle.allSatisfy { $0 == "  " + String(repeating: "w", count: 78) })
        #expect(entry.count == 1 + rest / 78 + 1)
        #expect(entry.last == "  " + String(repeating: "w", count: rest % 78 - 1) + "… · 2 days ago")
        #expect(entry.allSatisfy { ScreenText.width(of: $0) <= Self.width })
    }

    /// The cut is at a scalar's start, and a text within the limit is not cut at all.
    @Test func theCutFallsOnAScalarsStart() {
        let fits = String(repeating: "é", count: ScreenText.textLimit / 2)
        #expect(ScreenText.bounded(fits).cutBytes == 0)
        let over = "a" + fits
        let (kept, cut) = ScreenText.bounded(over)
        #expect(kept.utf8.count == ScreenText.textLimit - 1)
        #expect(cut == 2)
        #expect(ScreenText.line(over).hasSuffix("é…"))
    }
}

import PushCore
@testable import TerminalView
import Testing

/// Right-to-left text, as an Arabic or Hebrew catalog or a server would bring it: the terminal
/// draws a letter in one column and a vowel mark (a combining character) in none, and does the
/// reordering itself, so the view measures and wraps such text as it measures any other and
/// adds no direction mark of its own.
@Suite struct RightToLeftTests {
    @Test func lettersAreOneColumnAndVowelMarksNone() {
        #expect(ScreenText.width(of: "مرحبا") == 5)
        #expect(ScreenText.width(of: "مُرْحَبًا") == 5)
        #expect(ScreenText.width(of: "שלום") == 4)
        #expect(ScreenText.width(of: "שָׁלוֹם") == 4)
    }

    @Test func wrappingKeepsEveryLetterAndNoLinePassesTheWidth() {
        let words = Array(repeating: "مُرْحَبًا بالعالم שָׁלוֹם עולם", count: 12).joined(separator: " ")
        for width in [20, 31, 60] {
            let lines = BodyLayout.lines(words, format: "md", width: width).map(\.text)
            #expect(lines.allSatisfy { ScreenText.width(of: $0) <= width }, "\(lines)")
            #expect(lines.joined(separator: " ").split(separator: " ") == words.split(separator: " "), "\(lines)")
            #expect(!lines.joined().unicodeScalars.contains { (0x200E...0x200F).contains($0.value) || (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value) })
        }
    }
}

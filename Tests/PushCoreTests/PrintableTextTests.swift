import FoundationEssentials
import PushCore
import Testing

/// What gbnotifyctl prints passes through these (issue 24): text keeps its lines and tabs and
/// nothing else a terminal acts on; JSON keeps its meaning, with every such character escaped.
@Suite struct PrintableTextTests {
    @Test(arguments: [
        ("plain\ttext\nlines", "plain\ttext\nlines"),
        ("\u{1B}]52;c;SGk=\u{07}x", " ]52;c;SGk= x"),
        ("csi\u{9B}31m nel\u{85} del\u{7F} cr\r", "csi 31m nel  del  cr "),
        ("\u{202E}evil\u{202C} \u{2066}iso\u{2069} zero\u{200B}width \u{FEFF}bom", "evil iso zerowidth bom"),
        ("line\u{2028}para\u{2029}", "line\npara\n"),
    ])
    func textKeepsItsLinesAndLosesEveryControl(_ text: String, _ printable: String) {
        #expect(text.terminalSafe == printable)
        // One line, the separators and tabs too become spaces.
        #expect(!text.displaySafe.contains("\n") && !text.displaySafe.contains("\t"))
    }

    @Test func jsonIsEscapedInsideItsStringsAndKeepsItsLayout() throws {
        // Valid JSON as an encoder writes it: C1, DEL, format characters and separators raw.
        let raw = "{\n  \"a\" : \"\u{9B}\u{7F}\u{202E}\u{2028}\u{E0001}\\\"q\\\\\",\n  \"n\" : 1.50\n}"
        let printable = JSONText.printable(raw)
        #expect(printable == "{\n  \"a\" : \"\\u009b\\u007f\\u202e\\u2028\\udb40\\udc01\\\"q\\\\\",\n  \"n\" : 1.50\n}")
        #expect(printable.unicodeScalars.allSatisfy { $0.isASCII })
        // The same document to any reader.
        struct Shape: Decodable, Equatable { let a: String; let n: Double }
        #expect(try JSONDecoder().decode(Shape.self, from: Data(printable.utf8)) == (try JSONDecoder().decode(Shape.self, from: Data(raw.utf8))))
        // A raw C0 control in a string (not JSON, but a peer may send it) is escaped too;
        // controls outside strings are not JSON's: gone, while its whitespace stays.
        #expect(JSONText.printable("[\"\u{1B}[2J\"]") == #"["\u001b[2J"]"#)
        #expect(JSONText.printable("[1,\u{1B}\t2]\r\n") == "[1,\t2]\r\n")
    }

    /// A line cut to a limit reads only what the limit needs: what it gives is what cleaning
    /// the whole text and cutting it gives, for texts short and long, and a cut made before
    /// the cleaning (a text of marks and format characters longer than it reads) still ends in
    /// "…" and stays within the limit.
    @Test(arguments: [
        ("opened issue #12", 40),
        (String(repeating: "ab\u{7}", count: 30), 50),
        (String(repeating: "x", count: 333), 41),
        (String(repeating: "é\u{1B}", count: 5_000), 17),
        ("", 3),
    ])
    func aLineCutToALimitIsTheWholeTextCleanedAndCut(text: String, limit: Int) {
        #expect(text.displaySafe(truncatedTo: limit) == text.displaySafe.truncated(to: limit))
    }

    @Test func aCutBeforeTheCleaningIsStillMarked() {
        let hostile = String(repeating: "\u{202E}\u{200B}", count: 300_000) + "tail"
        let line = hostile.displaySafe(truncatedTo: 60)
        #expect(line == "…")
        let mixed = String(repeating: "a\u{200B}\u{200B}\u{200B}\u{200B}\u{200B}\u{200B}\u{200B}", count: 1_000)
        let cut = mixed.displaySafe(truncatedTo: 90)
        #expect(cut == String(repeating: "a", count: 89) + "…")
    }
}

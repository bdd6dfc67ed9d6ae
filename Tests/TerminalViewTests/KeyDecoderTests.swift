import TerminalView
import Testing

@Suite struct KeyDecoderTests {
    static func keys(_ text: String) -> [Key] {
        var decoder = KeyDecoder()
        return decoder.decode(Array(text.utf8)) + decoder.flush()
    }

    @Test(arguments: [
        ("\u{1B}[A", Key.up), ("\u{1B}[B", .down), ("\u{1B}[C", .right), ("\u{1B}[D", .left),
        ("\u{1B}OA", .up), ("\u{1B}OB", .down),
        ("\u{1B}[5~", .pageUp), ("\u{1B}[6~", .pageDown),
        ("\u{1B}[H", .home), ("\u{1B}[F", .end), ("\u{1B}[1~", .home), ("\u{1B}[4~", .end), ("\u{1B}OH", .home),
        ("\u{1B}[1;5A", .up), ("\r", .enter), ("\n", .enter), ("\u{7F}", .backspace), ("\u{08}", .backspace),
        ("\u{03}", .control("c")), ("\u{1A}", .control("z")), ("\u{0C}", .control("l")),
        ("q", .character("q")), (" ", .character(" ")), ("G", .character("G")), ("é", .character("é")),
        ("\u{1B}[15~", .unknown), ("\u{1B}[<0;10;5M", .unknown),
    ])
    func sequences(_ text: String, _ key: Key) {
        #expect(Self.keys(text) == [key])
    }

    @Test func severalKeysInOneRead() {
        #expect(Self.keys("jj\u{1B}[Bq") == [.character("j"), .character("j"), .down, .character("q")])
    }

    @Test func aSequenceSplitAcrossReadsWaitsForItsEnd() {
        var decoder = KeyDecoder()
        #expect(decoder.decode(Array("\u{1B}".utf8)) == [])
        #expect(decoder.isWaiting)
        #expect(decoder.decode(Array("[".utf8)) == [])
        #expect(decoder.decode(Array("6~k".utf8)) == [.pageDown, .character("k")])
        #expect(!decoder.isWaiting)
        #expect(decoder.decode([0xC3]) == [])
        #expect(decoder.decode([0xA9]) == [.character("é")])
    }

    @Test func aLoneEscapeIsTheEscapeKeyOnceNothingFollows() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]) == [])
        #expect(decoder.flush() == [.escape])
        #expect(!decoder.isWaiting)
        // ESC followed by a key at once (Alt+key) reads as Escape, then the key.
        #expect(Self.keys("\u{1B}q") == [.escape, .character("q")])
    }

    @Test func strayBytesAreSkipped() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x80, 0x00, 0xFF, 0x61]) == [.character("a")])
        // An endless sequence is given up on rather than held forever.
        #expect(decoder.decode(Array(("\u{1B}[" + String(repeating: "1", count: 40)).utf8)) == [.unknown])
    }
}

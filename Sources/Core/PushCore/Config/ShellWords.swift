/// Words as POSIX shell text, quoted the way a gitbay server reads the one command string it is
/// sent over SSH (it splits it by POSIX shell rules, without expansion): a bare word stays as it
/// is, anything else goes in single quotes, a `'` inside as `'\''`. The same text is what a
/// person pastes into a shell, so the command a warning tells them to run is quoted here too.
public enum ShellWords {
    /// `[A-Za-z0-9@%+=:,./_!-]+`: what the server takes as a word without quotes.
    static func isBare(_ byte: UInt8) -> Bool {
        ASCII.isLetter(byte) || ASCII.isDigit(byte) || "@%+=:,./_!-".utf8.contains(byte)
    }

    public static func quote(_ word: String) -> String {
        if !word.isEmpty && word.utf8.allSatisfy(isBare) { return word }
        // By bytes, not characters: a quote followed by a combining mark is one Character, and
        // must still be escaped.
        var quoted: [UInt8] = [UInt8(ascii: "'")]
        for byte in word.utf8 {
            if byte == UInt8(ascii: "'") { quoted += #"'\''"#.utf8 } else { quoted.append(byte) }
        }
        quoted.append(UInt8(ascii: "'"))
        return String(decoding: quoted, as: UTF8.self)
    }

    public static func join(_ words: [String]) -> String {
        words.map(quote).joined(separator: " ")
    }

    public enum SplitError: Error, Equatable, CustomStringConvertible {
        case unterminatedQuote
        case trailingBackslash

        public var description: String {
            switch self {
            case .unterminatedQuote: "a quote is not closed"
            case .trailingBackslash: "it ends in a backslash"
            }
        }
    }

    /// Splits POSIX shell text into words with no expansion: blanks separate words, a backslash
    /// quotes the next character (a backslash-newline is removed), single quotes keep everything
    /// up to the next `'`, and double quotes everything but `\"`, `\\`, `` \` ``, `\$` and a
    /// backslash-newline, which lose their backslash. What `join` wrote, this reads back.
    public static func split(_ text: String) throws(SplitError) -> [String] {
        var words: [String] = []
        var word: [UInt8] = []
        var inWord = false
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"):
                if inWord { words.append(String(decoding: word, as: UTF8.self)) }
                word = []
                inWord = false
            case UInt8(ascii: "\\"):
                guard let next = bytes.popFirst() else { throw .trailingBackslash }
                if next != UInt8(ascii: "\n") { word.append(next) }
                inWord = true
            case UInt8(ascii: "'"):
                guard let end = bytes.firstIndex(of: UInt8(ascii: "'")) else { throw .unterminatedQuote }
                word += bytes[..<end]
                bytes = bytes[(end + 1)...]
                inWord = true
            case UInt8(ascii: "\""):
                try readDoubleQuoted(&bytes, into: &word)
                inWord = true
            default:
                word.append(byte)
                inWord = true
            }
        }
        if inWord { words.append(String(decoding: word, as: UTF8.self)) }
        return words
    }

    private static func readDoubleQuoted(_ bytes: inout ArraySlice<UInt8>, into word: inout [UInt8]) throws(SplitError) {
        while let byte = bytes.popFirst() {
            switch byte {
            case UInt8(ascii: "\""):
                return
            case UInt8(ascii: "\\"):
                guard let next = bytes.popFirst() else { throw .unterminatedQuote }
                switch next {
                case UInt8(ascii: "\n"): break
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "`"), UInt8(ascii: "$"): word.append(next)
                default: word += [byte, next]
                }
            default:
                word.append(byte)
            }
        }
        throw .unterminatedQuote
    }
}

/// The TOML subset `GitbayCLIConfig` reads, over UTF-8 bytes.
struct TOMLReader {
    enum Value: Equatable {
        case string(String)
        case integer(Int64)
        case bool(Bool)
        case strings([String])
    }

    struct Entry {
        let value: Value
        let line: Int
    }

    struct Table {
        let name: String
        let line: Int
        var entries: [String: Entry] = [:]
    }

    struct Document {
        var topLevel: [String: Entry] = [:]
        var instances: [Table] = []
    }

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func document() throws(GitbayConfigError) -> Document {
        var document = Document()
        // Where key/value lines go: nil for the top level, else the index of the instance;
        // `[instances]` alone, a valid super-table header, takes no keys of its own.
        var table: Int?
        var inSuperTable = false
        var seenTables: Set<String> = []
        while true {
            skipBlanks()
            guard let byte = current else { return document }
            switch byte {
            case UInt8(ascii: "#"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                try endOfLine()
            case UInt8(ascii: "["):
                let headerLine = line
                index += 1
                if current == UInt8(ascii: "[") { throw error("arrays of tables ([[...]]) are not part of the gitbay CLI's config") }
                let path = try keyPath()
                guard current == UInt8(ascii: "]") else { throw error("a table header must end with ]") }
                index += 1
                try endOfLine()
                guard path.first == "instances", path.count <= 2 else {
                    throw GitbayConfigError(line: headerLine, "only [instances.NAME] tables belong in the gitbay CLI's config")
                }
                let key = path.joined(separator: "\u{0}")
                guard seenTables.insert(key).inserted else {
                    throw GitbayConfigError(line: headerLine, "the table [\(path.joined(separator: ".").displaySafe(truncatedTo: 80))] is defined twice")
                }
                if path.count == 1 {
                    inSuperTable = true
                    table = nil
                } else {
                    inSuperTable = false
                    document.instances.append(Table(name: path[1], line: headerLine))
                    table = document.instances.count - 1
                }
            default:
                let entryLine = line
                let keys = try keyPath()
                guard keys.count == 1 else { throw GitbayConfigError(line: entryLine, "dotted keys are not part of the gitbay CLI's config") }
                guard current == UInt8(ascii: "=") else { throw GitbayConfigError(line: entryLine, "expected = after the key") }
                index += 1
                skipBlanks()
                let value = try value()
                try endOfLine()
                if inSuperTable {
                    throw GitbayConfigError(line: entryLine, "keys belong in an [instances.NAME] table, not in [instances] itself")
                }
                let entry = Entry(value: value, line: entryLine)
                let duplicate: Bool
                if let table {
                    duplicate = document.instances[table].entries.updateValue(entry, forKey: keys[0]) != nil
                } else {
                    duplicate = document.topLevel.updateValue(entry, forKey: keys[0]) != nil
                }
                if duplicate {
                    throw GitbayConfigError(line: entryLine, "the key \(keys[0].displaySafe(truncatedTo: 64)) is set twice")
                }
            }
        }
    }

    // MARK: Pieces

    private func error(_ message: String) -> GitbayConfigError {
        GitbayConfigError(line: line, message)
    }

    private mutating func skipBlanks() {
        while current == UInt8(ascii: " ") || current == UInt8(ascii: "\t") { index += 1 }
    }

    /// Blanks, an optional comment, then the end of the line (or of the file).
    private mutating func endOfLine() throws(GitbayConfigError) {
        skipBlanks()
        if current == UInt8(ascii: "#") {
            while let byte = current, byte != UInt8(ascii: "\n") {
                // TOML allows no control character in a comment but the tab.
                guard byte >= 0x20 || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") && next == UInt8(ascii: "\n"), byte != 0x7F else {
                    throw error("a control character in a comment")
                }
                index += 1
            }
        }
        if current == UInt8(ascii: "\r") && next == UInt8(ascii: "\n") { index += 1 }
        guard let byte = current else { return }
        guard byte == UInt8(ascii: "\n") else { throw error("unexpected text after the value") }
        index += 1
        line += 1
    }

    private var next: UInt8? { index + 1 < bytes.count ? bytes[index + 1] : nil }

    /// `key` or `key.key...`, each bare or quoted, with blanks around the dots.
    private mutating func keyPath() throws(GitbayConfigError) -> [String] {
        var keys: [String] = []
        while true {
            skipBlanks()
            keys.append(try key())
            skipBlanks()
            guard current == UInt8(ascii: ".") else { return keys }
            index += 1
        }
    }

    private mutating func key() throws(GitbayConfigError) -> String {
        switch current {
        case UInt8(ascii: "\""): return try basicString()
        case UInt8(ascii: "'"): return try literalString()
        default:
            let start = index
            while let byte = current, ASCII.isLetter(byte) || ASCII.isDigit(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") {
                index += 1
            }
            guard index > start else { throw error("expected a key (letters, digits, _ and -, or a quoted string)") }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
    }

    private mutating func value() throws(GitbayConfigError) -> Value {
        guard let byte = current else { throw error("expected a value after =") }
        switch byte {
        case UInt8(ascii: "\""): return .string(try basicString())
        case UInt8(ascii: "'"): return .string(try literalString())
        case UInt8(ascii: "["): return .strings(try stringArray())
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            for (word, value) in [("true", true), ("false", false)] where bytes[index...].starts(with: word.utf8) {
                index += word.utf8.count
                return .bool(value)
            }
            throw error("expected a value: a string, an integer, true, false or an array of strings")
        case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .integer(try integer())
        case UInt8(ascii: "{"):
            throw error("inline tables are not part of the gitbay CLI's config")
        default:
            throw error("expected a value: a string, an integer, true, false or an array of strings")
        }
    }

    /// Decimal, an optional sign, `_` only between digits, no leading zero.
    private mutating func integer() throws(GitbayConfigError) -> Int64 {
        let start = index
        var negative = false
        if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") {
            negative = current == UInt8(ascii: "-")
            index += 1
        }
        var digits: [UInt8] = []
        var lastWasDigit = false
        while let byte = current {
            if ASCII.isDigit(byte) {
                digits.append(byte)
                lastWasDigit = true
            } else if byte == UInt8(ascii: "_") && lastWasDigit && next.map(ASCII.isDigit) == true {
                lastWasDigit = false
            } else {
                break
            }
            index += 1
        }
        if let byte = current, ASCII.isLetter(byte) || "._:+-".utf8.contains(byte) {
            index = start
            throw error("only decimal integers, strings, booleans and arrays of strings are part of the gitbay CLI's config")
        }
        guard !digits.isEmpty, digits.count == 1 || digits[0] != UInt8(ascii: "0"), let magnitude = ASCII.decimalValue(digits) else {
            throw error("not a decimal integer within range")
        }
        return negative ? -magnitude : magnitude
    }

    private mutating func stringArray() throws(GitbayConfigError) -> [String] {
        let unclosed = GitbayConfigError(line: line, "the array that starts here is not closed with ]")
        index += 1
        var values: [String] = []
        while true {
            try skipArraySpace()
            guard let byte = current else { throw unclosed }
            if byte == UInt8(ascii: "]") {
                index += 1
                return values
            }
            switch byte {
            case UInt8(ascii: "\""): values.append(try basicString())
            case UInt8(ascii: "'"): values.append(try literalString())
            default: throw error("an array here holds strings only")
            }
            try skipArraySpace()
            guard current != nil else { throw unclosed }
            if current == UInt8(ascii: ",") {
                index += 1
            } else if current != UInt8(ascii: "]") {
                throw error("expected , or ] in the array")
            }
        }
    }

    /// Blanks, newlines and comments, which an array may hold between its values.
    private mutating func skipArraySpace() throws(GitbayConfigError) {
        while true {
            skipBlanks()
            switch current {
            case UInt8(ascii: "#"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): try endOfLine()
            default: return
            }
            if current == nil { return }
        }
    }

    /// `'...'` on one line, taken as it is.
    private mutating func literalString() throws(GitbayConfigError) -> String {
        if bytes[index...].starts(with: "'''".utf8) { throw error("multi-line strings are not part of the gitbay CLI's config") }
        index += 1
        let start = index
        while let byte = current, byte != UInt8(ascii: "'") {
            try checkStringByte(byte)
            index += 1
        }
        guard current != nil else { throw error("a string is not closed") }
        defer { index += 1 }
        return try utf8(bytes[start..<index])
    }

    /// `"..."` on one line, with TOML's escapes.
    private mutating func basicString() throws(GitbayConfigError) -> String {
        if bytes[index...].starts(with: "\"\"\"".utf8) { throw error("multi-line strings are not part of the gitbay CLI's config") }
        index += 1
        var text: [UInt8] = []
        while let byte = current, byte != UInt8(ascii: "\"") {
            index += 1
            guard byte == UInt8(ascii: "\\") else {
                try checkStringByte(byte)
                text.append(byte)
                continue
            }
            guard let escaped = current else { break }
            index += 1
            switch escaped {
            case UInt8(ascii: "b"): text.append(0x08)
            case UInt8(ascii: "t"): text.append(0x09)
            case UInt8(ascii: "n"): text.append(0x0A)
            case UInt8(ascii: "f"): text.append(0x0C)
            case UInt8(ascii: "r"): text.append(0x0D)
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): text.append(escaped)
            case UInt8(ascii: "u"), UInt8(ascii: "U"):
                let count = escaped == UInt8(ascii: "u") ? 4 : 8
                guard index + count <= bytes.count, bytes[index..<(index + count)].allSatisfy(ASCII.isHexDigit),
                      let value = UInt32(String(decoding: bytes[index..<(index + count)], as: UTF8.self), radix: 16),
                      let scalar = Unicode.Scalar(value)
                else { throw error("a \\u or \\U escape that is not a Unicode scalar value") }
                index += count
                text += Array(String(Character(scalar)).utf8)
            default:
                throw error("an unknown escape in a string")
            }
        }
        guard current != nil else { throw error("a string is not closed") }
        index += 1
        return try utf8(text[...])
    }

    /// TOML allows no control character in a string but the tab, and no raw newline in a
    /// one-line string.
    private func checkStringByte(_ byte: UInt8) throws(GitbayConfigError) {
        if byte == UInt8(ascii: "\n") { throw error("a string is not closed on its line") }
        if byte < 0x20 && byte != UInt8(ascii: "\t") || byte == 0x7F { throw error("a control character in a string") }
    }

    private func utf8(_ slice: ArraySlice<UInt8>) throws(GitbayConfigError) -> String {
        guard let text = String(validating: slice, as: UTF8.self) else { throw error("a string that is not UTF-8") }
        return text
    }
}

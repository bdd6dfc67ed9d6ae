/// The syntax of the config file, without the meaning of any key or section: `key = value`
/// lines, `[section]` header lines, `#` and `;` comment lines, blank lines, surrounding
/// whitespace ignored. The format of mako's and dunst's config files.
enum ConfigKeyFile {
    static let maximumFileSize = 64 * 1024
    static let maximumLineLength = 4 * 1024

    /// One `key = value` line. `value` is trimmed but still holds any quotes: whether quotes
    /// surround a value or group words inside it depends on the key.
    struct Entry {
        let line: Int
        let key: String
        let value: String
    }

    /// A `[header]` line and the entries up to the next one. `header` is what the brackets
    /// hold, trimmed.
    struct Section {
        let line: Int
        let header: String
        var entries: [Entry] = []
    }

    /// The entries before the first header (the global keys), and the sections in file order.
    struct Document {
        var global: [Entry] = []
        var sections: [Section] = []
    }

    static func document(of text: String) throws(ConfigError) -> Document {
        guard text.utf8.count <= maximumFileSize else {
            throw ConfigError(line: nil, key: nil, reason: """
                the file is larger than \(maximumFileSize / 1024) KiB; a config file needs only a \
                few lines
                """)
        }
        // Some editors start a UTF-8 file with a byte order mark; it is not part of the first key.
        let body = text.hasPrefix("\u{FEFF}") ? Substring(text.dropFirst()) : Substring(text)
        var document = Document()
        // Split on the byte, not the Character: "\r\n" is one Character and would hide a line
        // ending inside a comment.
        let rawLines = body.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (index, rawLine) in rawLines.enumerated() {
            let number = index + 1
            guard rawLine.count <= maximumLineLength else {
                throw ConfigError(line: number, key: nil, reason: "the line is longer than \(maximumLineLength) bytes")
            }
            // Trimming also drops the "\r" of a file saved with Windows line endings.
            let line = String(Substring(rawLine)).trimmingWhitespace
            guard let first = line.first, first != "#", first != ";" else { continue }
            guard !line.unicodeScalars.contains(where: isForbiddenControl) else {
                throw ConfigError(line: number, key: nil, reason: """
                    the line contains a control character; write keys and values as plain text
                    """)
            }
            if first == "[" {
                document.sections.append(Section(line: number, header: try header(of: line, at: number)))
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigError(line: number, key: nil, reason: """
                    \(ConfigError.quoted(line)) is not a "key = value" line (or a comment starting \
                    with # or ;)
                    """)
            }
            let key = String(String(line[..<equals]).trimmingWhitespace)
            guard !key.isEmpty else {
                throw ConfigError(line: number, key: nil, reason: "the line has no key before \"=\"")
            }
            let value = String(String(line[line.index(after: equals)...]).trimmingWhitespace)
            let entry = Entry(line: number, key: key, value: value)
            if document.sections.isEmpty {
                document.global.append(entry)
            } else {
                document.sections[document.sections.count - 1].entries.append(entry)
            }
        }
        return document
    }

    /// What `[` ... `]` holds, trimmed: the whole line must be the brackets and what is inside.
    private static func header(of line: Substring, at number: Int) throws(ConfigError) -> String {
        guard line.hasSuffix("]"), line.count >= 2 else {
            throw ConfigError(line: number, key: nil, reason: """
                \(ConfigError.quoted(line)) opens a section header that does not end with ]; write \
                [rule NAME] or [account USER@HOST] alone on the line
                """)
        }
        let inside = String(String(line.dropFirst().dropLast()).trimmingWhitespace)
        guard !inside.isEmpty, !inside.contains("["), !inside.contains("]") else {
            throw ConfigError(line: number, key: nil, reason: """
                \(ConfigError.quoted(line)) is not a section header; write [rule NAME] or [account USER@HOST]
                """)
        }
        return inside
    }

    /// A control character other than the tab, which may separate words like a space.
    private static func isForbiddenControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar != "\t" && scalar.properties.generalCategory == .control
    }
}

/// Filling text into lines of a width, in terminal columns.
enum Wrapping {
    /// The words of `text` (one clean line) filled greedily into lines of at most `width`
    /// columns. A word longer than a line is broken across lines; runs of spaces between words
    /// collapse. Never returns no line: empty text is one empty line.
    static func wrap(_ text: String, width: Int) -> [String] {
        let width = max(width, 1)
        var lines: [String] = []
        var current = ""
        var currentWidth = 0
        for word in words(of: text, keepingEmpty: false) {
            let wordWidth = ScreenText.width(of: word)
            if currentWidth > 0 && currentWidth + 1 + wordWidth <= width {
                current += " " + word
                currentWidth += 1 + wordWidth
                continue
            }
            if currentWidth > 0 {
                lines.append(current)
                current = ""
                currentWidth = 0
            }
            if wordWidth <= width {
                current = String(word)
                currentWidth = wordWidth
            } else {
                var pieces = chunks(String(word), width: width)
                let last = pieces.removeLast()
                lines += pieces
                current = last
                currentWidth = ScreenText.width(of: last)
            }
        }
        lines.append(current)
        return lines
    }

    /// `text` cut into pieces of at most `width` columns (the first of at most `first`), spaces
    /// kept: for code, whose layout is its meaning, and for a word longer than a line. One pass,
    /// each character measured once. A character wider than the line still gets a piece.
    static func chunks(_ text: some StringProtocol, width: Int, first: Int? = nil) -> [String] {
        let width = max(width, 1)
        var limit = max(first ?? width, 1)
        if ScreenText.isPlainASCII(text.utf8) {
            // A column a byte: pieces by count, without a grapheme's look at each.
            let bytes = Array(text.utf8)
            var pieces: [String] = []
            var start = 0
            repeat {
                let end = min(start + limit, bytes.count)
                pieces.append(String(decoding: bytes[start..<end], as: UTF8.self))
                (start, limit) = (end, width)
            } while start < bytes.count
            return pieces
        }
        var pieces: [String] = []
        var start = text.startIndex
        var index = start
        var currentWidth = 0
        while index != text.endIndex {
            let next = ScreenText.width(of: text[index])
            if currentWidth + next > limit && currentWidth > 0 {
                pieces.append(String(text[start..<index]))
                start = index
                currentWidth = 0
                limit = width
            }
            currentWidth += next
            index = text.index(after: index)
        }
        pieces.append(String(text[start...]))
        return pieces
    }

    /// `text` split at each space: for ASCII by its bytes, else by its characters (a space a
    /// combining mark follows is no space).
    static func words(of text: String, keepingEmpty: Bool) -> [Substring] {
        guard ScreenText.isPlainASCII(text.utf8) else {
            return text.split(separator: " ", omittingEmptySubsequences: !keepingEmpty)
        }
        return text.utf8.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: !keepingEmpty).map { Substring($0) }
    }
}

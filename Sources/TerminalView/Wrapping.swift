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
        for word in text.split(separator: " ") {
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
        var pieces: [String] = []
        var current = ""
        var currentWidth = 0
        for character in text {
            let next = ScreenText.width(of: character)
            if currentWidth + next > limit && currentWidth > 0 {
                pieces.append(current)
                current = ""
                currentWidth = 0
                limit = width
            }
            current.append(character)
            currentWidth += next
        }
        pieces.append(current)
        return pieces
    }
}

/// An issue's, merge request's or comment's body, Markdown (`md`) or Org (`org`), laid out for a
/// width: paragraphs reflowed (a paragraph's line breaks are soft in both), list items with a
/// hanging indent, headings in bold, quotes marked, and code (fenced, Org source blocks, or
/// indented four spaces) kept line by line, broken only where it is wider than the screen.
/// Inline markup stays as written: it reads well enough as text.
enum BodyLayout {
    /// Past `ScreenText.textLimit` the body is cut before it is laid out, and a last line says so.
    static func lines(_ body: String, format: String?, width: Int) -> [StyledLine] {
        var builder = Builder(isOrg: format == "org", width: max(width, 8))
        let (kept, cutBytes) = ScreenText.bounded(body)
        for line in ScreenText.lines(kept) { builder.take(line) }
        var lines = builder.finish()
        if cutBytes > 0 {
            let words = "… cut here: \((cutBytes + 1023) / 1024) KiB more, to be read in the browser"
            lines += Wrapping.wrap(words, width: max(width, 8)).map { StyledLine($0, .dim) }
        }
        return lines
    }

    private struct Builder {
        let isOrg: Bool
        let width: Int
        var output: [StyledLine] = []
        /// The paragraph being gathered.
        struct Paragraph {
            /// What its first line starts with (a list marker, the quote bar) and what the lines
            /// after it start with.
            var first: String
            var rest: String
            var text: String
            var isQuote = false
        }

        var paragraph: Paragraph?
        /// Inside a fenced or source block: the line that closes it.
        var fence: String?

        mutating func take(_ line: String) {
            // Spaces are a byte, a scalar and a character each: counted as bytes.
            let indent = line.utf8.prefix { $0 == UInt8(ascii: " ") }.count
            let trimmed = line[line.utf8.index(line.startIndex, offsetBy: indent)...]
            if let closing = fence {
                if Self.closes(trimmed, closing, isOrg: isOrg) {
                    fence = nil
                } else {
                    code(line)
                }
                return
            }
            if let opening = Self.opensBlock(trimmed, isOrg: isOrg) {
                flush()
                fence = opening
                return
            }
            if trimmed.isEmpty {
                flush()
                if let last = output.last, last.width > 0 { output.append(StyledLine()) }
                return
            }
            if indent >= 4 && paragraph == nil {
                code(line)
                return
            }
            if let level = Self.headingLevel(trimmed, isOrg: isOrg) {
                flush()
                let text = trimmed.dropFirst(level).drop { $0 == " " }
                for piece in Wrapping.wrap(String(text), width: width) { output.append(StyledLine(piece, .bold)) }
                return
            }
            if let marker = Self.listMarker(trimmed, isOrg: isOrg) {
                flush()
                let lead = String(repeating: " ", count: indent)
                let text = String(trimmed.dropFirst(marker.count))
                paragraph = Paragraph(first: lead + marker, rest: lead + String(repeating: " ", count: marker.count), text: text)
                return
            }
            if !isOrg, trimmed.hasPrefix(">") {
                let text = String(trimmed.dropFirst().drop { $0 == " " })
                if paragraph?.isQuote == true {
                    paragraph?.text += " " + text
                } else {
                    flush()
                    paragraph = Paragraph(first: "│ ", rest: "│ ", text: text, isQuote: true)
                }
                return
            }
            if paragraph != nil && paragraph?.isQuote == false {
                paragraph?.text += " " + trimmed
            } else {
                flush()
                paragraph = Paragraph(first: "", rest: "", text: String(trimmed))
            }
        }

        mutating func finish() -> [StyledLine] {
            flush()
            while output.last?.width == 0 { output.removeLast() }
            return output
        }

        private mutating func flush() {
            guard let open = paragraph else { return }
            paragraph = nil
            let prefixWidth = ScreenText.width(of: open.first)
            let style = open.isQuote ? Style.dim : .plain
            for (index, piece) in Wrapping.wrap(open.text, width: width - prefixWidth).enumerated() {
                var line = StyledLine(index == 0 ? open.first : open.rest, style)
                line.append(piece, style)
                output.append(line)
            }
        }

        private mutating func code(_ line: String) {
            flush()
            for piece in Wrapping.chunks(line, width: width) { output.append(StyledLine(piece, .colored(.cyan))) }
        }

        /// The line that ends the block `line` opens, if it opens one: a Markdown fence of three
        /// or more backticks or tildes, an Org `#+begin_NAME`.
        private static func opensBlock(_ line: Substring, isOrg: Bool) -> String? {
            if isOrg {
                let lower = line.lowercased()
                guard lower.hasPrefix("#+begin_") else { return nil }
                let name = lower.dropFirst("#+begin_".count).prefix { $0 != " " }
                return "#+end_" + name
            }
            for mark in ["`", "~"] {
                let run = line.prefix { String($0) == mark }
                if run.count >= 3 { return String(run) }
            }
            return nil
        }

        private static func closes(_ line: Substring, _ closing: String, isOrg: Bool) -> Bool {
            if isOrg { return line.lowercased().hasPrefix(closing) }
            return line.hasPrefix(closing) && line.dropFirst(closing.count).allSatisfy { String($0) == String(closing.first!) || $0 == " " }
        }

        /// `#`..`######` then a space (Markdown), `*`.. then a space at the line's start (Org).
        private static func headingLevel(_ line: Substring, isOrg: Bool) -> Int? {
            let mark: Character = isOrg ? "*" : "#"
            let run = line.prefix { $0 == mark }.count
            guard run > 0, (isOrg || run <= 6), line.dropFirst(run).first == " " else { return nil }
            return run
        }

        /// `- `, `* ` or `+ ` (Org: `- `, `+ `), or digits and `.` or `)` then a space.
        private static func listMarker(_ line: Substring, isOrg: Bool) -> String? {
            let bullets: [Character] = isOrg ? ["-", "+"] : ["-", "*", "+"]
            if let first = line.first, bullets.contains(first), line.dropFirst().first == " " {
                return String(first) + " "
            }
            let digits = line.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 9 else { return nil }
            let rest = line.dropFirst(digits.count)
            guard let dot = rest.first, dot == "." || dot == ")", rest.dropFirst().first == " " else { return nil }
            return digits + String(dot) + " "
        }
    }
}

/// Text from a server, made safe and measurable for a terminal.
///
/// Everything drawn passes through here first: a control character (an escape sequence's ESC
/// included) would drive the terminal instead of being shown, and format characters (bidi
/// overrides and isolates, zero-width joiners and spaces) make what is shown differ from what
/// is there. Both go. Widths follow how terminals lay out text: two columns for East Asian wide
/// and emoji-presentation characters, none for combining marks.
enum ScreenText {
    /// The most of one text (a body, a comment, a title) that is laid out, in bytes of UTF-8:
    /// 64 KiB, some 800 lines of 80 columns, longer than the bodies people write, so nothing real
    /// is cut, while a hostile megabyte (a server may send 1 MiB) costs a relayout, at every
    /// resize, of a few milliseconds. What is cut stays on the server, and the view says so
    /// (`BodyLayout`, or "…" on a line).
    static let textLimit = 64 * 1024

    /// `text` cut to `textLimit` bytes, at a scalar's start, and how many bytes were cut.
    static func bounded(_ text: String) -> (kept: Substring, cutBytes: Int) {
        let utf8 = text.utf8
        guard utf8.count > textLimit else { return (text[...], 0) }
        var end = utf8.index(utf8.startIndex, offsetBy: textLimit)
        // Back to the start of the scalar the limit falls in: at most three bytes.
        while end.samePosition(in: text.unicodeScalars) == nil { end = utf8.index(before: end) }
        return (text[..<end], utf8.distance(from: end, to: utf8.endIndex))
    }

    /// One line: newlines and tabs become spaces, controls and format characters go. Cut to
    /// `textLimit`, with "…" marking the cut.
    static func line(_ text: String) -> String {
        let (kept, cutBytes) = bounded(text)
        let ending = cutBytes > 0 ? "…" : ""
        // Most text is printable ASCII, which stays as it is.
        if kept.utf8.allSatisfy({ (0x20..<0x7F).contains($0) }) { return String(kept) + ending }
        var result: [UInt8] = []
        result.reserveCapacity(kept.utf8.count)
        for scalar in kept.unicodeScalars {
            switch kind(of: scalar) {
            case .kept: UTF8.encode(scalar) { result.append($0) }
            case .lineBreak, .tab: result.append(UInt8(ascii: " "))
            case .dropped: continue
            }
        }
        return String(decoding: result, as: UTF8.self) + ending
    }

    /// Lines of a multi-line text (a body, a comment): split at `\n`, `\r\n`, `\r` and the
    /// Unicode line and paragraph separators, each line cleaned as `line`, tabs expanded to the
    /// next multiple of four columns so indentation survives.
    ///
    /// One pass: the column is kept as the line grows, each stretch between two tabs measured
    /// once when the next tab comes (a tab always ends a grapheme, so the stretches' widths add
    /// up to the line's). Measuring the whole line at every tab made a line of n tabs cost n².
    static func lines(_ text: some StringProtocol) -> [String] {
        var lines: [String] = []
        // The line so far as UTF-8, and where the stretch since its last tab starts.
        var current: [UInt8] = []
        var stretch = 0
        var column = 0
        var previous: Unicode.Scalar?
        for scalar in text.unicodeScalars {
            defer { previous = scalar }
            switch kind(of: scalar) {
            case .kept:
                UTF8.encode(scalar) { current.append($0) }
            case .lineBreak:
                if scalar == "\n" && previous == "\r" { continue }
                lines.append(String(decoding: current, as: UTF8.self))
                current.removeAll(keepingCapacity: true)
                (stretch, column) = (0, 0)
            case .tab:
                column += width(ofUTF8: current[stretch...])
                let pad = 4 - column % 4
                current.append(contentsOf: repeatElement(UInt8(ascii: " "), count: pad))
                column += pad
                stretch = current.count
            case .dropped:
                continue
            }
        }
        lines.append(String(decoding: current, as: UTF8.self))
        return lines
    }

    private enum Kind {
        case kept, lineBreak, tab, dropped
    }

    /// What a scalar is to the screen. ASCII is told apart by its value; only the rest needs
    /// Unicode's tables, whose lookup was most of the layout's time.
    private static func kind(of scalar: Unicode.Scalar) -> Kind {
        switch scalar.value {
        case 0x20..<0x7F: return .kept
        case 0x0A, 0x0D: return .lineBreak
        case 0x09: return .tab
        case 0..<0xA0: return .dropped  // the rest of C0, DEL, C1
        default:
            switch scalar.properties.generalCategory {
            case .lineSeparator, .paragraphSeparator: return .lineBreak
            case .control, .format: return .dropped
            default: return .kept
            }
        }
    }

    // MARK: - Widths

    /// Columns `text` takes on a terminal: for ASCII without a carriage return (which may join
    /// a newline in one grapheme), a column a byte.
    static func width(of text: some StringProtocol) -> Int {
        if isPlainASCII(text.utf8) { return text.utf8.count }
        return text.reduce(0) { $0 + width(of: $1) }
    }

    /// Columns the UTF-8 text in `bytes` takes.
    static func width(ofUTF8 bytes: ArraySlice<UInt8>) -> Int {
        if isPlainASCII(bytes) { return bytes.count }
        return width(of: String(decoding: bytes, as: UTF8.self))
    }

    /// ASCII without a carriage return: a column a byte, a character a byte.
    static func isPlainASCII(_ bytes: some Sequence<UInt8>) -> Bool {
        bytes.allSatisfy { $0 < 0x80 && $0 != 0x0D }
    }

    /// Columns one grapheme takes: 2 when any of its scalars is wide, 0 when all are combining
    /// marks (a cluster that starts with one), else 1.
    static func width(of character: Character) -> Int {
        if character.isASCII { return 1 }
        var zeroWidth = true
        for scalar in character.unicodeScalars {
            let properties = scalar.properties
            if properties.isEmojiPresentation || isWide(scalar.value) { return 2 }
            switch properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .format: continue
            default: zeroWidth = false
            }
        }
        return zeroWidth ? 0 : 1
    }

    /// The East Asian Wide and Fullwidth ranges of Unicode's EastAsianWidth.txt, as far as
    /// terminals (wcwidth) draw them two columns wide.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0,
        0x23F3...0x23F3, 0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F...0x267F,
        0x2693...0x2693, 0x26A1...0x26A1, 0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5,
        0x26CE...0x26CE, 0x26D4...0x26D4, 0x26EA...0x26EA, 0x26F2...0x26F3, 0x26F5...0x26F5,
        0x26FA...0x26FA, 0x26FD...0x26FD, 0x2705...0x2705, 0x270A...0x270B, 0x2728...0x2728,
        0x274C...0x274C, 0x274E...0x274E, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797,
        0x27B0...0x27B0, 0x27BF...0x27BF, 0x2B1B...0x2B1C, 0x2B50...0x2B50, 0x2B55...0x2B55,
        0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
        0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
        0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,
        0x1F004...0x1F004, 0x1F0CF...0x1F0CF, 0x1F18E...0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F251,
        0x1F300...0x1F64F, 0x1F680...0x1F6FF, 0x1F7E0...0x1F7EB, 0x1F90C...0x1F9FF, 0x1FA70...0x1FAFF,
        0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]

    private static func isWide(_ value: UInt32) -> Bool {
        guard value >= 0x1100 else { return false }
        var low = 0, high = wideRanges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            if value < wideRanges[middle].lowerBound {
                high = middle - 1
            } else if value > wideRanges[middle].upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }

    /// `text` cut to at most `columns`, with "…" marking a cut.
    static func truncated(_ text: String, to columns: Int) -> String {
        guard columns > 0 else { return "" }
        guard width(of: text) > columns else { return text }
        var result = ""
        var used = 0
        for character in text {
            let next = width(of: character)
            if used + next > columns - 1 { break }
            result.append(character)
            used += next
        }
        return result + "…"
    }
}

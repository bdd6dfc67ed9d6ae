/// Frames as bytes for a terminal (ANSI/VT100 sequences, which every terminal emulator a
/// desktop starts speaks), and lines as plain text for anything that is not a terminal.
public struct FrameRenderer: Sendable {
    /// False under `NO_COLOR`: bold, dim and reverse video stay, colours go.
    public let colors: Bool

    public init(colors: Bool) {
        self.colors = colors
    }

    /// The whole screen in one piece, each line drawn in its own row from the first column.
    /// Lines must be no wider than the screen (`StyledLine.fitted`): nothing is cleared after
    /// them, since erasing to the end of a full row would take its last character too.
    public func render(_ frame: [StyledLine], clearFirst: Bool = false) -> [UInt8] {
        var output = clearFirst ? "\u{1B}[0m\u{1B}[2J" : ""
        for (row, line) in frame.enumerated() {
            output += "\u{1B}[\(row + 1);1H"
            var current = Style.plain
            for span in line.spans {
                if span.style != current {
                    output += sgr(span.style)
                    current = span.style
                }
                output += span.text
            }
            if current != .plain { output += sgr(.plain) }
        }
        return Array(output.utf8)
    }

    /// Select Graphic Rendition: a reset, then the style's attributes.
    func sgr(_ style: Style) -> String {
        var codes = ["0"]
        if style.bold { codes.append("1") }
        if style.dim { codes.append("2") }
        if style.reverse { codes.append("7") }
        if colors, let color = style.color {
            let code = switch color {
            case .red: "31"
            case .green: "32"
            case .yellow: "33"
            case .blue: "34"
            case .magenta: "35"
            case .cyan: "36"
            case .gray: "90"
            }
            codes.append(code)
        }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }

    /// Lines as text: no escape sequences at all, trailing spaces trimmed, one newline each.
    public static func plain(_ lines: [StyledLine]) -> String {
        lines.map { line in
            var text = line.text
            while text.last == " " { text.removeLast() }
            return text + "\n"
        }.joined()
    }
}

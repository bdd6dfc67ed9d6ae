/// The colours the view uses: the eight basic ones terminals agree on, and gray.
public enum Color: Sendable, Hashable {
    case red, green, yellow, blue, magenta, cyan, gray
}

/// How a piece of text is drawn. Colours are dropped under `NO_COLOR`; the attributes stay,
/// since the selection and the headings must still be told apart.
public struct Style: Sendable, Hashable {
    public var color: Color?
    public var bold = false
    public var dim = false
    public var reverse = false

    public init(color: Color? = nil, bold: Bool = false, dim: Bool = false, reverse: Bool = false) {
        self.color = color
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
    }

    public static let plain = Style()
    static let bold = Style(bold: true)
    static let dim = Style(dim: true)

    static func colored(_ color: Color, bold: Bool = false) -> Style { Style(color: color, bold: bold) }
}

/// One line of the screen: pieces of text, each with its style, already cleaned of anything a
/// terminal would act on (`ScreenText`).
public struct StyledLine: Sendable, Equatable {
    public struct Span: Sendable, Equatable {
        public let text: String
        public let style: Style
    }

    public private(set) var spans: [Span] = []
    /// Columns taken.
    public private(set) var width = 0

    public init() {}

    /// A line of one piece of text; `text` is cleaned to one line.
    init(_ text: String, _ style: Style = .plain) {
        append(text, style)
    }

    /// The text without styles, as the not-a-terminal output prints it.
    public var text: String { spans.map(\.text).joined() }

    /// Adds `text`, cleaned to one line.
    mutating func append(_ text: String, _ style: Style = .plain) {
        let clean = ScreenText.line(text)
        guard !clean.isEmpty else { return }
        spans.append(Span(text: clean, style: style))
        width += ScreenText.width(of: clean)
    }

    mutating func append(_ line: StyledLine) {
        spans += line.spans
        width += line.width
    }

    static func + (lhs: StyledLine, rhs: StyledLine) -> StyledLine {
        var line = lhs
        line.append(rhs)
        return line
    }

    /// At most `columns` wide, with "…" marking a cut.
    func truncated(to columns: Int) -> StyledLine {
        guard width > columns else { return self }
        var result = StyledLine()
        guard columns > 0 else { return result }
        var style = Style.plain
        cutting: for span in spans {
            style = span.style
            var piece = ""
            var pieceWidth = 0
            for character in span.text {
                let next = ScreenText.width(of: character)
                if result.width + pieceWidth + next > columns - 1 {
                    result.append(piece, style)
                    break cutting
                }
                piece.append(character)
                pieceWidth += next
            }
            result.append(piece, style)
        }
        result.append("…", style)
        return result
    }

    /// Exactly `columns` wide: cut, or padded with spaces in `style` (a selected row's reverse
    /// video reaches the edge).
    func fitted(to columns: Int, padding style: Style = .plain) -> StyledLine {
        var line = truncated(to: columns)
        if line.width < columns { line.append(String(repeating: " ", count: columns - line.width), style) }
        return line
    }

    /// The same text, every span in `style` too (for the selection).
    func restyled(_ change: (inout Style) -> Void) -> StyledLine {
        var result = StyledLine()
        for span in spans {
            var style = span.style
            change(&style)
            result.append(span.text, style)
        }
        return result
    }
}

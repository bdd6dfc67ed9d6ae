/// Text handling for strings that come from outside and end up in front of a user.
extension String {
    /// The string without leading and trailing whitespace (Unicode's definition, newlines included).
    var trimmingWhitespace: Substring {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return self[first...last]
    }

    /// At most `limit` characters, with "…" marking a cut, so one answer cannot flood a log line
    /// or a notification.
    public func truncated(to limit: Int) -> String {
        guard count > limit else { return self }
        return String(prefix(Swift.max(limit - 1, 0))) + "…"
    }

    /// The string as one harmless line: control characters (newlines and terminal escapes
    /// included) and the line and paragraph separators become spaces, and format characters
    /// (bidi overrides and isolates, zero-width spaces and joiners, the byte-order mark) are
    /// dropped, so server text can neither break a line nor make what is shown read differently
    /// from what it is.
    public var displaySafe: String { cleaned(keepingLines: false) }

    /// `displaySafe.truncated(to: limit)` in time bounded by `limit`, not by the text: only the
    /// first `limit × 8` scalars are read (more than `limit` characters take, unless each is
    /// piled with marks), and a cut there is marked "…" as any other. A 1 MiB summary costs a
    /// notification or a menu label what a short one does.
    public func displaySafe(truncatedTo limit: Int) -> String {
        let bound = limit * 8
        let head = unicodeScalars.prefix(bound + 1)
        guard head.count > bound else { return String(String.UnicodeScalarView(head)).displaySafe.truncated(to: limit) }
        // Cut: marked, whatever the cleaning left of what was read.
        let cleaned = String(String.UnicodeScalarView(head.dropLast())).displaySafe
        return String(cleaned.prefix(Swift.max(limit - 1, 0))) + "…"
    }

    /// The string as lines for a terminal or a pipe: as `displaySafe`, but a newline (and a line
    /// or paragraph separator, as one) and a tab stay, for output that is meant to have lines.
    /// No C0 or C1 control (ESC, CSI, DEL, a carriage return), no bidi or format character is
    /// left: what gbnotifyctl prints (`Console`) passes through here.
    public var terminalSafe: String { cleaned(keepingLines: true) }

    private func cleaned(keepingLines: Bool) -> String {
        var result = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control where keepingLines && (scalar == "\n" || scalar == "\t"): result.append(scalar)
            case .control: result.append(" ")
            case .lineSeparator, .paragraphSeparator: result.append(keepingLines ? "\n" : " ")
            case .format: continue
            default: result.append(scalar)
            }
        }
        return String(result)
    }
}

extension Int {
    /// The count and the noun, plural but for one: `1 comment`, `3 comments`.
    public func counted(_ noun: String) -> String {
        "\(self) \(noun)\(self == 1 ? "" : "s")"
    }
}

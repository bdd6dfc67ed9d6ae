import PushCore

/// An item laid out as the lines of the view, for a width: what it is, its state and people,
/// then (for a merge request or build) what decides its fate, then the body and every comment
/// and system entry in order. Pure: the same item, width and time give the same lines.
enum ItemLayout {
    /// - Parameter now: seconds since the epoch, for ages ("3 hours ago").
    static func lines(_ details: ItemDetails, width: Int, now: Double) -> [StyledLine] {
        let context = Context(width: max(width, 20), now: now)
        switch details {
        case .issue(let issue): return issueLines(issue, context)
        case .mergeRequest(let mr): return MergeRequestLayout.lines(mr, context)
        case .build(let build): return BuildLayout.lines(build, context)
        }
    }

    struct Context {
        let width: Int
        let now: Double

        func age(_ timestamp: String) -> String { Age.describe(timestamp, now: now) }
    }

    private static func issueLines(_ issue: IssueDetails, _ context: Context) -> [StyledLine] {
        let discussion = issue.discussion
        var lines = heading(
            discussion, noun: Localized.text("issue #{number}", note: "The terminal view, under an issue's title. {number}: its number.", ["number": "\(discussion.number)"]),
            context)
        lines += people(
            [
                (Localized.text("Labels", note: "The terminal view: the heading of an item's labels."), discussion.labels),
                (Localized.text("Assignees", note: "The terminal view: the heading of an issue's assignees."), issue.assignees),
            ],
            milestone: discussion.milestone, context)
        lines += reactions(discussion.reactions, context)
        return lines + conversation(discussion, context)
    }

    // MARK: - What issues and merge requests share

    /// The title (wrapped, bold), then `issue #12 · open · by cmc · 2 days ago`.
    static func heading(_ discussion: Discussion, noun: String, extra: [StyledLine] = [], _ context: Context) -> [StyledLine] {
        var lines = wrapped(discussion.title, .bold, context.width)
        var summary = StyledLine(noun + " · ", .dim)
        summary.append(state(discussion.state))
        for part in extra { summary.append(" · ", .dim); summary.append(part) }
        summary.append(" · ", .dim)
        summary.append(Localized.text("by {author}", note: "The terminal view, under an item's title. {author}: who opened it.", ["author": discussion.author]))
        summary.append(" · " + context.age(discussion.createdAt), .dim)
        lines += wrapped(summary, context.width)
        return lines
    }

    /// `Labels: bug, api · Assignees: alba · Milestone: v1`, the empty ones left out.
    static func people(_ lists: [(String, [String])], milestone: String?, _ context: Context) -> [StyledLine] {
        var parts = lists.filter { !$0.1.isEmpty }.map { ($0.0, $0.1.joined(separator: ", ")) }
        if let milestone, !milestone.isEmpty { parts.append((Localized.text("Milestone", note: "The terminal view: the heading of an item's milestone."), milestone)) }
        guard !parts.isEmpty else { return [] }
        var line = StyledLine()
        for (index, (label, value)) in parts.enumerated() {
            if index > 0 { line.append(" · ", .dim) }
            line.append(label + ": ", .dim)
            line.append(value)
        }
        return wrapped(line, context.width)
    }

    /// `+1 ×3 (you) · eyes ×1`, or nothing when there are none.
    static func reactions(_ reactions: [Reaction], indent: String = "", _ context: Context) -> [StyledLine] {
        guard !reactions.isEmpty else { return [] }
        var line = StyledLine(indent)
        for (index, reaction) in reactions.enumerated() {
            if index > 0 { line.append(" · ", .dim) }
            line.append("\(reaction.reaction) ×\(reaction.count)", .colored(.yellow))
            if reaction.me { line.append(" " + Localized.text("(you)", note: "The terminal view, after a reaction the user made too."), .dim) }
        }
        return wrapped(line, context.width, hanging: indent.count)
    }

    /// The body, then a rule with the count of comments, then each in order.
    static func conversation(_ discussion: Discussion, _ context: Context) -> [StyledLine] {
        var lines = [StyledLine()]
        if discussion.body.isEmpty {
            lines.append(StyledLine(Localized.text("No description.", note: "The terminal view: an item without a body."), .dim))
        } else {
            lines += BodyLayout.lines(discussion.body, format: discussion.bodyFormat, width: context.width)
        }
        guard !discussion.comments.isEmpty else { return lines }
        let count = discussion.comments.count(where: { !$0.isSystem })
        let events = discussion.comments.count - count
        var title = Localized.plural("{count} comment", "{count} comments", count: count, note: "The terminal view: the rule above an item's comments.")
        if events > 0 {
            title += ", " + Localized.plural("{count} event", "{count} events", count: events, note: "The terminal view, after the count of comments: the system's entries.")
        }
        lines += [StyledLine(), rule(title, context.width)]
        for comment in discussion.comments {
            if comment.isSystem {
                var entry = StyledLine("· " + comment.body, .dim)
                entry.append(" · " + context.age(comment.createdAt), .dim)
                lines += wrapped(entry, context.width, hanging: 2)
                continue
            }
            lines.append(StyledLine())
            var header = StyledLine(comment.author, .colored(.blue, bold: true))
            header.append(" · " + context.age(comment.createdAt), .dim)
            lines.append(header.truncated(to: context.width))
            let body = BodyLayout.lines(comment.body, format: comment.bodyFormat, width: context.width - 2)
            lines += body.map { StyledLine("  ") + $0 }
            lines += reactions(comment.reactions, indent: "  ", context)
        }
        return lines
    }

    // MARK: - Pieces

    /// An item's or a build's state, in the colour that says good, bad or neither.
    static func state(_ state: String) -> StyledLine {
        let color: Color = switch state {
        case "open", "success": .green
        case "closed", "failure", "error": .red
        case "merged": .magenta
        case "source_gone", "pending", "running": .yellow
        default: .gray
        }
        let words = switch state {
        case "open": Localized.text("open", context: "state", note: "The terminal view: an issue's or merge request's state.")
        case "closed": Localized.text("closed", context: "state", note: "The terminal view: an issue's or merge request's state.")
        case "merged": Localized.text("merged", context: "state", note: "The terminal view: a merge request's state.")
        case "success": Localized.text("success", context: "state", note: "The terminal view: a build's or check's state.")
        case "failure": Localized.text("failure", context: "state", note: "The terminal view: a build's or check's state.")
        case "running": Localized.text("running", context: "state", note: "The terminal view: a build's state.")
        case "pending": Localized.text("pending", context: "state", note: "The terminal view: a build's or check's state.")
        // A state this build does not know: as gitbay wrote it.
        default: state.replacing("_", with: " ")
        }
        return StyledLine(words, .colored(color, bold: true))
    }

    /// `── 3 comments ─────────` across the width.
    static func rule(_ title: String, _ width: Int) -> StyledLine {
        let text = "── \(title) "
        return StyledLine(text + String(repeating: "─", count: max(width - ScreenText.width(of: text), 0)), .dim)
            .truncated(to: width)
    }

    /// A heading of a section: bold.
    static func section(_ title: String) -> StyledLine {
        StyledLine(title, .bold)
    }

    /// Text in one style, word-wrapped to the width.
    static func wrapped(_ text: String, _ style: Style, _ width: Int, indent: String = "") -> [StyledLine] {
        Wrapping.wrap(ScreenText.line(text), width: width - indent.count).map { StyledLine(indent + $0, style) }
    }

    /// A styled line word-wrapped to the width: the styles carried over at each break, the
    /// lines after the first indented by `hanging` columns. A word that does not fit where it
    /// would go starts the next line; one wider than any line (a long URL, a hostile run of one
    /// character) starts where it is, after its space, and fills line after line.
    static func wrapped(_ line: StyledLine, _ width: Int, hanging: Int = 0) -> [StyledLine] {
        guard line.width > width else { return [line] }
        let indent = String(repeating: " ", count: min(hanging, width / 2))
        var lines: [StyledLine] = []
        var current = StyledLine()
        /// Where the current line's own text starts: after the indent, on every line but the first.
        var start = 0
        for span in line.spans {
            for (index, word) in Wrapping.words(of: span.text, keepingEmpty: true).enumerated() {
                let wordWidth = ScreenText.width(of: word)
                let spaced = index > 0 ? 1 : 0
                if current.width + spaced + wordWidth <= width {
                    current.append((index > 0 ? " " : "") + word, span.style)
                    continue
                }
                let fitsALine = wordWidth <= width - indent.count
                if current.width > start && (fitsALine || current.width + spaced + 1 > width) {
                    lines.append(current)
                    current = StyledLine(indent)
                    start = indent.count
                } else if spaced > 0 && current.width > start {
                    current.append(" ", span.style)
                }
                // As much as fits, line after line: chunked once.
                let pieces = Wrapping.chunks(word, width: width - indent.count, first: width - current.width)
                for piece in pieces.dropLast() {
                    current.append(piece, span.style)
                    lines.append(current)
                    current = StyledLine(indent)
                    start = indent.count
                }
                current.append(pieces[pieces.count - 1], span.style)
            }
        }
        if current.width > start || lines.isEmpty { lines.append(current) }
        return lines
    }
}

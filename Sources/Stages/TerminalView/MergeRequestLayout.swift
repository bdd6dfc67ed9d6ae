import PushCore

/// A merge request: what an issue shows, plus where it goes, what is left before it can merge
/// (the gates, in the server's words), its checks and reviews (stale ones marked), its commits.
enum MergeRequestLayout {
    typealias Context = ItemLayout.Context

    static func lines(_ mr: MergeRequestDetails, _ context: Context) -> [StyledLine] {
        let discussion = mr.discussion
        let draft = mr.draft ? [StyledLine("draft", .colored(.yellow, bold: true))] : []
        var lines = ItemLayout.heading(discussion, noun: "merge request !\(discussion.number)", extra: draft, context)
        lines += branches(mr, context)
        lines += ItemLayout.people(
            [("Labels", discussion.labels), ("Review requested", mr.reviewRequests)], milestone: discussion.milestone, context)
        lines += outcome(mr, context)
        lines += ItemLayout.reactions(discussion.reactions, context)
        lines += gates(mr, context)
        lines += checks(mr, context)
        lines += reviews(mr, context)
        lines += commits(mr, context)
        return lines + ItemLayout.conversation(discussion, context)
    }

    /// `fix-empty-repo → main at 4f1c2a9e`, and its place in a stack.
    private static func branches(_ mr: MergeRequestDetails, _ context: Context) -> [StyledLine] {
        var line = StyledLine(mr.source.isEmpty ? "(source gone)" : mr.source, .colored(.cyan))
        line.append(" → ", .dim)
        line.append(mr.targetRef ?? "?", .colored(.cyan))
        if let sha = mr.headSHA { line.append(" at " + shortSHA(sha), .dim) }
        var lines = ItemLayout.wrapped(line, context.width)
        if let base = mr.stackedOn {
            lines += ItemLayout.wrapped("Stacked on !\(base.number) \(base.title)", .plain, context.width)
        }
        if !mr.stacked.isEmpty {
            let above = mr.stacked.map { "!\($0.number) \($0.title)" }.joined(separator: ", ")
            lines += ItemLayout.wrapped("Stacked above it: \(above)", .plain, context.width)
        }
        return lines
    }

    /// Merged, closed, superseded, queued: whichever apply.
    private static func outcome(_ mr: MergeRequestDetails, _ context: Context) -> [StyledLine] {
        var parts: [String] = []
        if let by = mr.mergedBy { parts.append("Merged by \(by)" + (mr.mergedAt.map { " " + context.age($0) } ?? "")) }
        if let by = mr.closedBy { parts.append("Closed by \(by)" + (mr.closedAt.map { " " + context.age($0) } ?? "")) }
        if let number = mr.supersededBy { parts.append("Superseded by !\(number)") }
        if let queue = mr.queued {
            var text = "In the merge queue (\(queue.strategy)), queued by \(queue.by)"
            if let at = queue.queuedAt { text += " " + context.age(at) }
            if let reason = queue.reason, !reason.isEmpty { text += ": \(reason)" }
            parts.append(text)
        }
        return parts.flatMap { ItemLayout.wrapped($0, .plain, context.width) }
    }

    /// The gates: ready to merge, or each unmet one.
    private static func gates(_ mr: MergeRequestDetails, _ context: Context) -> [StyledLine] {
        guard let gates = mr.gates else { return [] }
        var lines = [StyledLine()]
        var title = ItemLayout.section("Merge gates: ")
        if gates.unmet.isEmpty {
            title.append("✓ ready to merge", .colored(.green, bold: true))
            lines += ItemLayout.wrapped(title, context.width)
        } else {
            title.append("✗ " + gates.unmet.count.counted("unmet gate"), .colored(.red, bold: true))
            lines += ItemLayout.wrapped(title, context.width)
            for gate in gates.unmet {
                var line = StyledLine("  ✗ ", .colored(.red))
                line.append(gate)
                lines += ItemLayout.wrapped(line, context.width, hanging: 4)
            }
        }
        var facts: [String] = []
        if let required = gates.approvalsRequired {
            facts.append("approvals \(gates.approvals.count)/\(required)" + (gates.approvals.isEmpty ? "" : " (\(gates.approvals.joined(separator: ", ")))"))
        }
        if !gates.changesRequested.isEmpty { facts.append("changes requested by \(gates.changesRequested.joined(separator: ", "))") }
        for outstanding in gates.ownersOutstanding {
            facts.append("owners \(outstanding.owners.joined(separator: ", ")) of \(outstanding.files.joined(separator: ", "))")
        }
        if gates.resolvedRequired == true, let open = gates.openThreads { facts.append("open threads \(open)") }
        if !gates.checksMissing.isEmpty { facts.append("missing checks \(gates.checksMissing.joined(separator: ", "))") }
        if gates.fastForward == false { facts.append("not a fast-forward") }
        if !facts.isEmpty { lines += ItemLayout.wrapped(facts.joined(separator: " · "), .dim, context.width, indent: "  ") }
        return lines
    }

    private static func checks(_ mr: MergeRequestDetails, _ context: Context) -> [StyledLine] {
        guard !mr.checks.isEmpty else { return [] }
        var title = ItemLayout.section("Checks")
        if let combined = mr.checksCombined {
            title.append(": ", .bold)
            title.append(ItemLayout.state(combined))
        }
        let nameWidth = min(mr.checks.map { ScreenText.width(of: ScreenText.line($0.context)) }.max() ?? 0, context.width / 2)
        var lines = [StyledLine(), title.truncated(to: context.width)]
        for check in mr.checks {
            let (mark, color) = mark(forCheck: check.state)
            var line = StyledLine("  " + mark + " ", .colored(color))
            let name = ScreenText.truncated(ScreenText.line(check.context), to: nameWidth)
            line.append(name + String(repeating: " ", count: nameWidth - ScreenText.width(of: name)) + "  ")
            line.append(check.state, .colored(color))
            if let duration = check.duration, !duration.isEmpty { line.append("  " + duration, .dim) }
            lines.append(line.truncated(to: context.width))
        }
        return lines
    }

    private static func reviews(_ mr: MergeRequestDetails, _ context: Context) -> [StyledLine] {
        guard !mr.reviews.isEmpty else { return [] }
        var lines = [StyledLine(), ItemLayout.section("Reviews").truncated(to: context.width)]
        for review in mr.reviews {
            let (mark, color, words): (String, Color, String) = switch review.verdict {
            case "approve": ("✓", .green, "approved")
            case "request_changes": ("✗", .red, "requested changes")
            case "comment": ("·", .gray, "commented")
            default: ("?", .gray, review.verdict)
            }
            var line = StyledLine("  \(mark) ", .colored(color))
            line.append(review.reviewer, .bold)
            line.append(" " + words, .colored(color))
            if let at = review.createdAt { line.append(" · " + context.age(at), .dim) }
            if review.stale { line.append(" · stale: of an older head", .colored(.yellow)) }
            if !review.counts && !review.stale { line.append(" · does not count", .dim) }
            lines += ItemLayout.wrapped(line, context.width, hanging: 4)
        }
        if let threads = mr.unresolvedThreads, threads > 0 {
            lines += ItemLayout.wrapped(threads.counted("unresolved diff thread"), .colored(.yellow), context.width, indent: "  ")
        }
        return lines
    }

    private static func commits(_ mr: MergeRequestDetails, _ context: Context) -> [StyledLine] {
        guard !mr.commits.isEmpty else { return [] }
        var lines = [StyledLine(), ItemLayout.section("Commits (\(mr.commits.count))").truncated(to: context.width)]
        for commit in mr.commits {
            var line = StyledLine("  " + shortSHA(commit.sha) + " ", .colored(.yellow))
            line.append(commit.subject)
            lines.append(line.truncated(to: context.width))
        }
        return lines
    }

    static func mark(forCheck state: String) -> (String, Color) {
        switch state {
        case "success": ("✓", .green)
        case "failure", "error": ("✗", .red)
        case "pending": ("…", .yellow)
        case "skipped": ("-", .gray)
        default: ("?", .gray)
        }
    }

    static func shortSHA(_ sha: String) -> String { String(ScreenText.line(sha).prefix(8)) }
}

import PushCore

/// A merge request: what an issue shows, plus where it goes, what is left before it can merge
/// (the gates, in the server's words), its checks and reviews (stale ones marked), its commits.
enum MergeRequestLayout {
    typealias Context = ItemLayout.Context

    static func lines(_ mr: MergeRequestDetails, _ context: Context) -> [StyledLine] {
        let discussion = mr.discussion
        let draft = mr.draft ? [StyledLine(Localized.text("draft", note: "The terminal view: a merge request that is a draft."), .colored(.yellow, bold: true))] : []
        var lines = ItemLayout.heading(discussion, noun: Localized.text(
                "merge request !{number}", note: "The terminal view, under a merge request's title. {number}: its number.", ["number": "\(discussion.number)"]), extra: draft, context)
        lines += branches(mr, context)
        lines += ItemLayout.people(
            [
                (Localized.text("Labels", note: "The terminal view: the heading of an item's labels."), discussion.labels),
                (Localized.text("Review requested", note: "The terminal view: the heading of who is asked to review."), mr.reviewRequests),
            ], milestone: discussion.milestone, context)
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
        var line = StyledLine(mr.source.isEmpty ? Localized.text("(source gone)", note: "The terminal view: a merge request whose source branch is gone.") : mr.source, .colored(.cyan))
        line.append(" → ", .dim)
        line.append(mr.targetRef ?? "?", .colored(.cyan))
        if let sha = mr.headSHA {
            line.append(
                " " + Localized.text("at {commit}", note: "The terminal view: the commit a build or merge request is at. {commit}: its short hash.",
                                     ["commit": shortSHA(sha)]),
                .dim)
        }
        var lines = ItemLayout.wrapped(line, context.width)
        if let base = mr.stackedOn {
            lines += ItemLayout.wrapped(
                Localized.text(
                    "Stacked on !{number} {title}", note: "The terminal view: the merge request this one is stacked on. {number}: its number; {title}: its title.",
                    ["number": String(base.number), "title": base.title]),
                .plain, context.width)
        }
        if !mr.stacked.isEmpty {
            let above = mr.stacked.map { "!\($0.number) \($0.title)" }.joined(separator: ", ")
            lines += ItemLayout.wrapped(
                Localized.text(
                    "Stacked above it: {requests}", note: "The terminal view: the merge requests stacked on this one. {requests}: as !12 Title, !13 Title.",
                    ["requests": above]),
                .plain, context.width)
        }
        return lines
    }

    /// Merged, closed, superseded, queued: whichever apply.
    private static func outcome(_ mr: MergeRequestDetails, _ context: Context) -> [StyledLine] {
        var parts: [String] = []
        // An age ("3 hours ago", a message of its own) follows each: every language at hand
        // puts it last.
        if let by = mr.mergedBy {
            parts.append(
                Localized.text("Merged by {user}", note: "The terminal view: who merged the merge request; an age such as 3 hours ago may follow. {user}: a user name.", ["user": by])
                    + (mr.mergedAt.map { " " + context.age($0) } ?? ""))
        }
        if let by = mr.closedBy {
            parts.append(
                Localized.text("Closed by {user}", note: "The terminal view: who closed the merge request; an age such as 3 hours ago may follow. {user}: a user name.", ["user": by])
                    + (mr.closedAt.map { " " + context.age($0) } ?? ""))
        }
        if let number = mr.supersededBy {
            parts.append(
                Localized.text("Superseded by !{number}", note: "The terminal view: the merge request that replaces this one. {number}: its number.", ["number": String(number)]))
        }
        if let queue = mr.queued {
            var text = Localized.text(
                "In the merge queue ({strategy}), queued by {user}",
                note: "The terminal view; an age such as 3 hours ago may follow. {strategy}: gitbay's word for how it merges, as merge or rebase (stays English); {user}: a user name.",
                ["strategy": queue.strategy, "user": queue.by])
            if let at = queue.queuedAt { text += " " + context.age(at) }
            if let reason = queue.reason, !reason.isEmpty {
                text = Localized.text(
                    "{queue}: {reason}", note: "The terminal view: a merge queue's entry and why it waits. {queue}: the message In the merge queue…; {reason}: gitbay's words.",
                    ["queue": text, "reason": reason])
            }
            parts.append(text)
        }
        return parts.flatMap { ItemLayout.wrapped($0, .plain, context.width) }
    }

    /// The gates: ready to merge, or each unmet one.
    private static func gates(_ mr: MergeRequestDetails, _ context: Context) -> [StyledLine] {
        guard let gates = mr.gates else { return [] }
        var lines = [StyledLine()]
        var title = ItemLayout.section(Localized.text("Merge gates:", note: "The terminal view: the heading of what is left before a merge.") + " ")
        if gates.unmet.isEmpty {
            title.append("✓ " + Localized.text("ready to merge", note: "The terminal view, after \"Merge gates:\"."), .colored(.green, bold: true))
            lines += ItemLayout.wrapped(title, context.width)
        } else {
            title.append(
                "✗ " + Localized.plural("{count} unmet gate", "{count} unmet gates", count: gates.unmet.count, note: "The terminal view, after \"Merge gates:\"."),
                .colored(.red, bold: true))
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
        var title = ItemLayout.section(Localized.text("Checks", note: "The terminal view: the heading of a merge request's checks."))
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
        var lines = [StyledLine(), ItemLayout.section(Localized.text("Reviews", note: "The terminal view: the heading of a merge request's reviews.")).truncated(to: context.width)]
        for review in mr.reviews {
            let (mark, color, words): (String, Color, String) = switch review.verdict {
            case "approve": ("✓", .green, Localized.text("approved", note: "The terminal view, after a reviewer's name."))
            case "request_changes": ("✗", .red, Localized.text("requested changes", note: "The terminal view, after a reviewer's name."))
            case "comment": ("·", .gray, Localized.text("commented", note: "The terminal view, after a reviewer's name."))
            default: ("?", .gray, review.verdict)
            }
            var line = StyledLine("  \(mark) ", .colored(color))
            line.append(review.reviewer, .bold)
            line.append(" " + words, .colored(color))
            if let at = review.createdAt { line.append(" · " + context.age(at), .dim) }
            if review.stale {
                line.append(" · " + Localized.text("stale: of an older head", note: "The terminal view: a review of an older version."), .colored(.yellow))
            }
            if !review.counts && !review.stale {
                line.append(" · " + Localized.text("does not count", note: "The terminal view: a review that does not count towards approval."), .dim)
            }
            lines += ItemLayout.wrapped(line, context.width, hanging: 4)
        }
        if let threads = mr.unresolvedThreads, threads > 0 {
            lines += ItemLayout.wrapped(
                Localized.plural(
                    "{count} unresolved diff thread", "{count} unresolved diff threads", count: threads, note: "The terminal view, under a merge request's reviews."),
                .colored(.yellow), context.width, indent: "  ")
        }
        return lines
    }

    private static func commits(_ mr: MergeRequestDetails, _ context: Context) -> [StyledLine] {
        guard !mr.commits.isEmpty else { return [] }
        var lines = [StyledLine(), ItemLayout.section(
            Localized.text("Commits ({count})", note: "The terminal view: the heading of a merge request's commits. {count}: how many.", ["count": "\(mr.commits.count)"])).truncated(to: context.width)]
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

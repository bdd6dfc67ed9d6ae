import PushCore

/// A build: job, status, ref and commit, timing, and its steps with the failed one marked and
/// its reason (the steps before it passed, the ones after never ran).
enum BuildLayout {
    static func lines(_ build: BuildDetails, _ context: ItemLayout.Context) -> [StyledLine] {
        var lines = ItemLayout.wrapped(
            Localized.text(
                "Build #{number} · {job}", note: "The terminal view: a build's title. {number}: its number; {job}: the job's name.",
                ["number": "\(build.number)", "job": build.job]),
            .bold, context.width)
        var summary = StyledLine(
            Localized.text("build #{number}", note: "The terminal view, under a build's title. {number}: its number.", ["number": "\(build.number)"]) + " · ",
            .dim)
        summary.append(ItemLayout.state(build.status))
        summary.append(" · ", .dim)
        summary.append(build.ref, .colored(.cyan))
        summary.append(
            " " + Localized.text("at {commit}", note: "The terminal view: the commit a build or merge request is at. {commit}: its short hash.",
                                 ["commit": MergeRequestLayout.shortSHA(build.sha)]),
            .dim)
        lines += ItemLayout.wrapped(summary, context.width)
        var timing = Localized.text(
            "started {age}", note: "The terminal view, a build's page. {age}: as \"3 hours ago\", the message of that name.", ["age": context.age(build.createdAt)])
        if let finished = build.finishedAt {
            timing += " · " + Localized.text(
                "finished {age}", note: "The terminal view, a build's page. {age}: as \"3 hours ago\", the message of that name.", ["age": context.age(finished)])
        }
        if let seconds = build.durationSeconds {
            timing += " · " + Localized.text(
                "took {duration}", note: "The terminal view, a build's page. {duration}: as 1m12s.", ["duration": Age.duration(seconds)])
        }
        lines += ItemLayout.wrapped(timing, .dim, context.width)

        lines += [StyledLine(), ItemLayout.section(
            Localized.text("Steps ({count})", note: "The terminal view: the heading of a build's steps. {count}: how many.", ["count": "\(build.steps.count)"])).truncated(to: context.width)]
        let numberWidth = String(build.steps.count).count
        for (index, step) in build.steps.enumerated() {
            let number = index + 1
            let (mark, color, note) = stepMark(number, build)
            var line = StyledLine("  " + mark + " ", .colored(color))
            line.append(String(repeating: " ", count: numberWidth - String(number).count) + "\(number)  ", .dim)
            line.append(step, number == build.failedStep ? .colored(.red, bold: true) : .plain)
            if let failed = build.failedStep, number > failed { line.append("  " + Localized.text("(not run)", note: "The terminal view: a build's step after the failed one."), .dim) }
            lines += ItemLayout.wrapped(line, context.width, hanging: numberWidth + 6)
            if let note { lines += ItemLayout.wrapped(note, .colored(color), context.width, indent: "      ") }
        }
        if build.steps.isEmpty { lines.append(StyledLine("  " + Localized.text("(no steps)", note: "The terminal view: a build without steps."), .dim)) }
        if let step = build.failedStep, !(1...max(build.steps.count, 1)).contains(step) || build.steps.isEmpty {
            // A step number that names none of the steps: said, not dropped.
            lines += ItemLayout.wrapped(
                Localized.text("step {number} failed", note: "The terminal view, a build's page. {number}: the step's number.", ["number": "\(step)"])
                    + (build.failedReason.map { ": \($0)" } ?? ""),
                .colored(.red), context.width, indent: "  ")
        }
        return lines
    }

    /// The mark of step `number` (1-based): passed, failed (with the reason), not run, or, while
    /// the build has no result, unknown.
    private static func stepMark(_ number: Int, _ build: BuildDetails) -> (String, Color, String?) {
        if let failed = build.failedStep {
            if number < failed { return ("✓", .green, nil) }
            if number == failed { return (
                    "✗", .red,
                    Localized.text(
                        "failed: {reason}", note: "The terminal view, under a build's failed step. {reason}: the server's words, or the message \"no reason given\".",
                        ["reason": build.failedReason ?? Localized.text("no reason given", note: "The terminal view: a failed step the server gave no reason for.")])) }
            return ("·", .gray, nil)
        }
        switch build.status {
        case "success": return ("✓", .green, nil)
        case "cancelled": return ("·", .gray, nil)
        default: return ("…", .yellow, nil)
        }
    }
}

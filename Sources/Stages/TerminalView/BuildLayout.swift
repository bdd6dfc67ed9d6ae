import PushCore

/// A build: job, status, ref and commit, timing, and its steps with the failed one marked and
/// its reason (the steps before it passed, the ones after never ran).
enum BuildLayout {
    static func lines(_ build: BuildDetails, _ context: ItemLayout.Context) -> [StyledLine] {
        var lines = ItemLayout.wrapped("Build #\(build.number) · \(build.job)", .bold, context.width)
        var summary = StyledLine("build #\(build.number) · ", .dim)
        summary.append(ItemLayout.state(build.status))
        summary.append(" · ", .dim)
        summary.append(build.ref, .colored(.cyan))
        summary.append(" at " + MergeRequestLayout.shortSHA(build.sha), .dim)
        lines += ItemLayout.wrapped(summary, context.width)
        var timing = "started " + context.age(build.createdAt)
        if let finished = build.finishedAt { timing += " · finished " + context.age(finished) }
        if let seconds = build.durationSeconds { timing += " · took " + Age.duration(seconds) }
        lines += ItemLayout.wrapped(timing, .dim, context.width)

        lines += [StyledLine(), ItemLayout.section("Steps (\(build.steps.count))").truncated(to: context.width)]
        let numberWidth = String(build.steps.count).count
        for (index, step) in build.steps.enumerated() {
            let number = index + 1
            let (mark, color, note) = stepMark(number, build)
            var line = StyledLine("  " + mark + " ", .colored(color))
            line.append(String(repeating: " ", count: numberWidth - String(number).count) + "\(number)  ", .dim)
            line.append(step, number == build.failedStep ? .colored(.red, bold: true) : .plain)
            if let failed = build.failedStep, number > failed { line.append("  (not run)", .dim) }
            lines += ItemLayout.wrapped(line, context.width, hanging: numberWidth + 6)
            if let note { lines += ItemLayout.wrapped(note, .colored(color), context.width, indent: "      ") }
        }
        if build.steps.isEmpty { lines.append(StyledLine("  (no steps)", .dim)) }
        if let step = build.failedStep, !(1...max(build.steps.count, 1)).contains(step) || build.steps.isEmpty {
            // A step number that names none of the steps: said, not dropped.
            lines += ItemLayout.wrapped(
                "step \(step) failed" + (build.failedReason.map { ": \($0)" } ?? ""), .colored(.red), context.width, indent: "  ")
        }
        return lines
    }

    /// The mark of step `number` (1-based): passed, failed (with the reason), not run, or, while
    /// the build has no result, unknown.
    private static func stepMark(_ number: Int, _ build: BuildDetails) -> (String, Color, String?) {
        if let failed = build.failedStep {
            if number < failed { return ("✓", .green, nil) }
            if number == failed { return ("✗", .red, "failed: " + (build.failedReason ?? "no reason given")) }
            return ("·", .gray, nil)
        }
        switch build.status {
        case "success": return ("✓", .green, nil)
        case "cancelled": return ("·", .gray, nil)
        default: return ("…", .yellow, nil)
        }
    }
}

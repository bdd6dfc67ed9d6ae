import PushCore

/// A problem, drawn where the item or inbox would be: what happened and what to do.
enum ProblemLayout {
    static func lines(_ problem: ReadProblem, width: Int) -> [StyledLine] {
        var lines = [StyledLine("✗ " + problem.headline, .colored(.red, bold: true)), StyledLine()]
        lines += ItemLayout.wrapped(problem.detail, .plain, width)
        if let fix = problem.fix {
            lines.append(StyledLine())
            lines += ItemLayout.wrapped(StyledLine(Localized.text("What to do:", note: "The terminal view, before what to do about a problem.") + " ", .bold) + StyledLine(fix), width)
        }
        return lines
    }
}

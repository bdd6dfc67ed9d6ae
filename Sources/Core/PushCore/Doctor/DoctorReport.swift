import FoundationEssentials

/// One thing `gbnotifyctl doctor` looked at: what it found and, when that is not fine, what to
/// do about it.
public struct DoctorFinding: Sendable, Equatable, Encodable {
    public enum Verdict: String, Sendable, Encodable {
        case ok
        /// Something doctor cannot tell, said so that nobody mistakes silence for "fine".
        case note
        /// Works, but less well than it could; does not fail doctor.
        case warning
        /// Stands between the user and their notifications; doctor exits 1.
        case failure
    }

    /// What was checked, such as `notification server` or `account cmc@gitbay.org`.
    public let check: String
    public let verdict: Verdict
    /// What doctor found, without a closing full stop.
    public let finding: String
    /// What to do about it, as one sentence; nil when there is nothing to do.
    public let fix: String?

    public init(_ check: String, _ verdict: Verdict, _ finding: String, fix: String? = nil) {
        // Findings quote servers, keyring items and files: one harmless line, bounded.
        self.check = check.displaySafe(truncatedTo: 120)
        self.verdict = verdict
        self.finding = finding.displaySafe(truncatedTo: 600)
        self.fix = fix.map { $0.displaySafe(truncatedTo: 400) }
    }

    /// Written out by hand only so that an absent fix is `null` rather than a missing key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(check, forKey: .check)
        try container.encode(verdict, forKey: .verdict)
        try container.encode(finding, forKey: .finding)
        try container.encode(fix, forKey: .fix)
    }

    private enum CodingKeys: String, CodingKey {
        case check, verdict, finding, fix
    }
}

/// Everything `gbnotifyctl doctor` found, as the lines it prints, its JSON and its exit status.
public struct DoctorReport: Sendable, Equatable {
    public let findings: [DoctorFinding]

    public init(_ findings: [DoctorFinding]) {
        self.findings = findings
    }

    /// False when any finding is a failure; warnings and notes do not count.
    public var passed: Bool { !findings.contains { $0.verdict == .failure } }

    /// 0 when every check passed, 1 when any failed.
    public var exitStatus: Int32 { passed ? 0 : 1 }

    /// One line per finding, `VERDICT  CHECK: FINDING. Fix: FIX.`, then a one-line verdict.
    ///
    ///     ok       session bus: reachable
    ///     FAIL     notification server: nothing owns org.freedesktop.Notifications ... Fix: ...
    public func renderText() -> String {
        var lines = findings.map { finding in
            let label = Self.label(finding.verdict)
            var line = label + String(repeating: " ", count: max(9 - label.count, 1))
                + Localized.text(
                    "{check}: {finding}", note: "A line of gbnotifyctl doctor after its verdict. {check}: what was checked; {finding}: what doctor found.",
                    ["check": finding.check, "finding": finding.finding])
            if let fix = finding.fix {
                line += Localized.text(
                    ". Fix: {fix}", note: "Ends a line of gbnotifyctl doctor with what to do. {fix}: what to do (for now in English).", ["fix": fix])
            }
            return line
        }
        lines.append("")
        lines.append(summary)
        return lines.joined(separator: "\n") + "\n"
    }

    /// `{"passed": true, "findings": [{"check": ..., "verdict": "ok", "finding": ..., "fix": null}]}`
    public func renderJSON() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Strings and enums only: encoding cannot fail.
        let data = (try? encoder.encode(JSONShape(passed: passed, findings: findings))) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private struct JSONShape: Encodable {
        let passed: Bool
        let findings: [DoctorFinding]
    }

    private var summary: String {
        let failures = findings.count { $0.verdict == .failure }
        let warnings = findings.count { $0.verdict == .warning }
        switch (failures, warnings) {
        case (0, 0): return Localized.text("All checks passed.", note: "gbnotifyctl doctor's last line.")
        case (0, _):
            return Localized.plural(
                "All checks passed, with {count} warning.", "All checks passed, with {count} warnings.", count: warnings,
                note: "gbnotifyctl doctor's last line.")
        case (_, 0):
            return Localized.plural("{count} check failed.", "{count} checks failed.", count: failures, note: "gbnotifyctl doctor's last line.")
        default:
            return Localized.plural(
                "{count} check failed, with {warnings}.", "{count} checks failed, with {warnings}.", count: failures,
                note: "gbnotifyctl doctor's last line. {warnings}: \"2 warnings\", as the message of that name says it.",
                [
                    "warnings": Localized.plural(
                        "{count} warning", "{count} warnings", count: warnings, note: "Part of gbnotifyctl doctor's last line.")
                ])
        }
    }

    private static func label(_ verdict: DoctorFinding.Verdict) -> String {
        switch verdict {
        case .ok: Localized.text("ok", note: "gbnotifyctl doctor: a check's verdict, at most 8 characters.")
        case .note: Localized.text("note", note: "gbnotifyctl doctor: a check's verdict, at most 8 characters.")
        case .warning: Localized.text("warning", note: "gbnotifyctl doctor: a check's verdict, at most 8 characters.")
        case .failure: Localized.text("FAIL", note: "gbnotifyctl doctor: a check's verdict, in capitals where the script has them, at most 8 characters.")
        }
    }
}

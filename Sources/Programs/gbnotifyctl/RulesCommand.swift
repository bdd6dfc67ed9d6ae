import CommandKit
import FoundationEssentials
import LocalTime
import PushCore
import Settings

struct RulesCommand: Command {
    static let configuration = CommandConfiguration(
        name: "rules",
        abstract: "Check the config's [rule NAME] sections against real notices.",
        subcommands: [RulesCheck.self]
    )
}

/// `gbnotifyctl rules check [ACCOUNT]`: for the newest rows of each account's inbox, the rule that
/// matches and what it does, as gbnotifyd would decide.
struct RulesCheck: Command {
    static let configuration = CommandConfiguration(
        name: "check",
        abstract: "Show which rule each account's newest notices match, and what it does to them.",
        positionals: [SharedPositionals.account.optional],
        discussion: """
            Reads the config file as gbnotifyd does (a bad section, key, pattern or value is an
            error naming its line, section and key, and the exit status is 1), then the newest
            notices of every account (or one), read ones included, from its own instance, and
            prints for each the rule that matched first (or 'no rule') and what it does: popup
            with its urgency and sound, silent (badge and inbox, no popup) or none (not shown).
            A paused account (enabled = false) and one whose popups are held (a snooze, quiet
            hours) say so. Nothing is marked read.
            """,
        options: [rows]
    )
    static let rows = Option("--rows", .required("N"), help: "How many of each account's newest notices, 1 to 200 (default 20).")

    let account: String?
    let rows: Int

    init(parsing arguments: inout Arguments) throws(UsageError) {
        if let text = try arguments.value(of: Self.rows) {
            guard let rows = Int(text), GitbayCommand.listLimitRange.contains(rows) else {
                throw UsageError(
                    Localized.text(
                        "{option} takes a number from 1 to 200", note: "A usage error of gbnotifyctl. {option}: the option, as --rows (stays as it is).",
                        ["option": Self.rows.name]))
            }
            self.rows = rows
        } else {
            rows = 20
        }
        account = arguments.optionalPositional(SharedPositionals.account.optional)
    }

    func run() async throws -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        let read = Setup.settings(environment: environment)
        if let problem = read.problem {
            Console.error("gbnotifyctl: \(problem)")
            return ExitStatus.failure
        }
        let config = read.config
        for warning in config.warnings {
            Console.error(
                Localized.text(
                    "gbnotifyctl: warning: config {path}: {warning}", note: "A warning of gbnotifyctl rules check about the config. {path}: the config file; {warning}: what, in English.",
                    ["path": read.pathWords, "warning": "\(warning)"]))
        }
        print(Self.heading(config, path: read.pathWords))
        let source = AccountItems(settings: ViewSettings(read, environment: environment))
        let (record, warning) = try Setup.stateDirectory().loadNoise()
        if let warning { Console.error(Localized.text("gbnotifyctl: warning: {warning}", note: "A warning of gbnotifyctl. {warning}: what, in English.", ["warning": "\(warning)"])) }
        let holds = HoldRules(quietHours: config.quietHours, snoozes: record.snoozes, zone: SystemZone.offsets)
        let now = SystemZone.now()
        var complete = true
        for account in try await source.accounts(named: self.account) {
            var heading = account.reference
            if !config.settings(for: account).isEnabled {
                heading += Localized.text(
                    " · paused (enabled = false): not polled, nothing shown",
                    note: "Ends an account's heading in gbnotifyctl rules check. enabled = false is the config's line and stays as it is.")
            }
            if let hold = holds.hold(for: account, at: now) {
                heading += Localized.text(
                    " · {hold}, popups held", note: "Ends an account's heading in gbnotifyctl rules check. {hold}: the snooze or quiet hours (the message of that name).",
                    ["hold": hold.spoken(at: now, zone: holds.zone)])
            }
            print("")
            print(heading)
            do throws(ReadProblem) {
                let rows = try await source.latestRows(of: account, count: rows)
                print(Self.table(rows.map { ($0, config.rules.evaluate($0, of: account)) }))
            } catch {
                print(
                    Localized.text(
                        "  cannot read the inbox: {problem}", note: "gbnotifyctl rules check, under an account's heading. {problem}: what went wrong.",
                        ["problem": "\(error)"]))
                complete = false
            }
        }
        return complete ? ExitStatus.success : ExitStatus.failure
    }

    static func heading(_ config: Config, path: String) -> String {
        let names = config.rules.rules.map(\.name)
        let rules = names.isEmpty
            ? Localized.text(
                "No rules in {path}: every notice pops up", note: "gbnotifyctl rules's first line. {path}: the config file.", ["path": path])
            : Localized.plural(
                "{count} rule in {path}, first match wins: {names}", "{count} rules in {path}, first match wins: {names}",
                count: names.count, note: "gbnotifyctl rules's first line. {path}: the config file; {names}: the rules' names, as written there.",
                ["path": path, "names": names.joined(separator: ", ")])
        return rules
            + (config.quietHours.map {
                Localized.text(
                    "; quiet hours {hours}", note: "Ends gbnotifyctl rules's first line. {hours}: the quiet hours, as 22:00-07:30.",
                    ["hours": "\($0)"])
            } ?? "")
    }

    /// One line a row: kind, path, actor and summary, and what the rules make of it.
    static func table(_ decided: [(InboxItem, RuleDecision)]) -> String {
        guard !decided.isEmpty else { return Localized.text("  no notices", note: "gbnotifyctl rules check, under an account's heading.") }
        let kinds = decided.map { $0.0.kind?.rawValue ?? "?" }
        let paths = decided.map { $0.0.path.displaySafe(truncatedTo: 60) }
        let texts = decided.map { "\($0.0.actor) \($0.0.summary)".displaySafe(truncatedTo: 50) }
        func padded(_ text: String, to width: Int) -> String {
            text + String(repeating: " ", count: max(width - text.count, 0))
        }
        let widths = [kinds, paths, texts].map { $0.map(\.count).max() ?? 0 }
        return decided.indices.map { index in
            let decision = decided[index].1
            return "  " + padded(kinds[index], to: widths[0]) + "  " + padded(paths[index], to: widths[1]) + "  "
                + padded(texts[index], to: widths[2]) + "  -> "
                + Localized.text(
                    "{rule}: {decision}", note: "gbnotifyctl rules check: which rule a notice matched and what it does. {rule}: the rule's name; {decision}: what it does.",
                    ["rule": decision.rule ?? Localized.text("no rule", note: "gbnotifyctl rules check: stands for {rule} when no rule matched."), "decision": "\(decision)"])
        }.joined(separator: "\n")
    }
}

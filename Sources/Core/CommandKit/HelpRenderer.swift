/// Renders `--help` text from a command's configuration, so help cannot drift from the parser's
/// table of subcommands.
public enum HelpRenderer {
    public static func usageLine(_ command: any Command.Type, path: String) -> String {
        let config = command.configuration
        if !config.subcommands.isEmpty { return "Usage: \(path) <command> [options]" }
        let synopsis = config.synopsis
        return synopsis.isEmpty ? "Usage: \(path)" : "Usage: \(path) \(synopsis)"
    }

    /// The options `--help` lists: the command's own, `--version` for the tool itself, `--help`.
    static func listedOptions(_ command: any Command.Type, isRoot: Bool) -> [(String, String)] {
        command.configuration.options.map { ($0.label, $0.help) }
            + (isRoot ? [(Option.version.label, Option.version.help)] : [])
            + [("-h, " + Option.help.label, Option.help.help)]
    }

    public static func render(_ command: any Command.Type, path: String, isRoot: Bool) -> String {
        let config = command.configuration
        var lines = [usageLine(command, path: path), "", config.abstract]
        if !config.discussion.isEmpty {
            lines += ["", config.discussion]
        }
        if !config.subcommands.isEmpty {
            lines += ["", "Commands:"]
            lines += table(config.listedSubcommands.map { ($0.configuration.name, $0.configuration.abstract) })
        }
        lines += ["", "Options:"]
        lines += table(listedOptions(command, isRoot: isRoot))
        if !config.subcommands.isEmpty {
            lines += ["", "See '\(path) <command> --help' for a command's own options."]
        }
        return lines.joined(separator: "\n")
    }

    private static func table(_ rows: [(String, String)]) -> [String] {
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { name, text in
            "  " + name + String(repeating: " ", count: width - name.count + 3) + text
        }
    }
}

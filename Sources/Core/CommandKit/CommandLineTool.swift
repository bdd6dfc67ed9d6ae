/// Exit statuses shared by both executables.
public enum ExitStatus {
    public static let success: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 2
}

/// Where a parsed command line leads: a command to run, help to print, or a usage error.
public enum Invocation {
    case run(any Command)
    case help(String)
    case version
    /// A completion script or a part of the manual page, rendered from the declarations.
    case generated(String)
    case usageError(UsageError, usage: String)
}

/// Walks a command line down the subcommand tree and parses the leaf.
public enum CommandLineTool {
    public static func parse(_ words: [String], root: any Command.Type, toolName: String) -> Invocation {
        var path = [toolName]
        var command = root
        var remaining = words
        while let next = remaining.first,
              let sub = command.configuration.subcommands.first(where: { $0.configuration.name == next }) {
            remaining.removeFirst()
            path.append(next)
            command = sub
        }
        let helpPath = path.joined(separator: " ")
        if remaining.contains("--help") || remaining.contains("-h") || (remaining.first == "help" && command.configuration.subcommands.count > 0) {
            return .help(HelpRenderer.render(command, path: helpPath, isRoot: command == root))
        }
        if command == root, remaining == ["--version"] {
            return .version
        }
        if command == root, remaining.count == 2, let text = generated(remaining[0], remaining[1], root: root, toolName: toolName) {
            return .generated(text)
        }
        var arguments = Arguments(remaining)
        do {
            let parsed = try command.init(parsing: &arguments)
            try arguments.finish()
            return .run(parsed)
        } catch {
            return .usageError(error, usage: HelpRenderer.usageLine(command, path: helpPath))
        }
    }

    /// The tool's own `--generate-completion-script SHELL` and `--generate-manual PART`, which
    /// swift-argument-parser's tools also answer; neither is listed in `--help`.
    private static func generated(_ option: String, _ argument: String, root: any Command.Type, toolName: String) -> String? {
        switch option {
        case "--generate-completion-script": CompletionScripts.render(argument, root: root, toolName: toolName)
        case "--generate-manual": ManualPage.render(argument, root: root, toolName: toolName)
        default: nil
        }
    }

    /// Parses, runs, and reports; returns the exit status. `print` and `printError` are
    /// injected so tests can capture both streams; `usageWords` says usage errors.
    public static func main(
        _ words: [String], root: any Command.Type, toolName: String, version: String, usageWords: UsageWords = .english,
        print: (String) -> Void, printError: (String) -> Void
    ) async -> Int32 {
        switch parse(words, root: root, toolName: toolName) {
        case .help(let text):
            print(text)
            return ExitStatus.success
        case .version:
            print("\(toolName) \(version)")
            return ExitStatus.success
        case .generated(let text):
            print(String(text.dropLast()))
            return ExitStatus.success
        case .usageError(let error, let usage):
            printError("\(toolName): \(usageWords.problem(error))\n\(usage)\n\(usageWords.seeHelp("\(toolName) --help"))")
            return ExitStatus.usage
        case .run(let command):
            do {
                return try await command.run()
            } catch {
                printError("\(toolName): \(error)")
                return ExitStatus.failure
            }
        }
    }
}

private func == (lhs: any Command.Type, rhs: any Command.Type) -> Bool {
    ObjectIdentifier(lhs) == ObjectIdentifier(rhs)
}

/// What a command says about itself: the text of its `--help`.
public struct CommandConfiguration: Sendable {
    public var name: String
    /// One line, shown in the parent's list of subcommands.
    public var abstract: String
    /// The positional words, in order; with `options` and `standardInput` they make the usage line.
    public var positionals: [Positional]
    /// What the command reads on standard input, shown as `< NAME` in the usage line.
    public var standardInput: String?
    /// Paragraphs shown under the synopsis.
    public var discussion: String
    /// `--help` (and `--version`, for the tool itself) are added by the renderers.
    public var options: [Option]
    public var subcommands: [any Command.Type]
    /// Left out of the parent's list: a command the tool runs for itself, not one for users.
    public var isHidden: Bool

    public init(
        name: String, abstract: String, positionals: [Positional] = [], standardInput: String? = nil,
        discussion: String = "", options: [Option] = [], subcommands: [any Command.Type] = [], isHidden: Bool = false
    ) {
        self.name = name
        self.abstract = abstract
        self.positionals = positionals
        self.standardInput = standardInput
        self.discussion = discussion
        self.options = options
        self.subcommands = subcommands
        self.isHidden = isHidden
    }

    /// The words after the command's name in its usage line, derived from the declarations:
    /// `URL [--ssh [USER@HOST[:PORT]]] [--token-name NAME] [--allow-http]`. Optional positionals
    /// nest (`[ACCOUNT [ITEM]]`); an option a positional's name already shows (`(--all | ITEM)`)
    /// is not repeated.
    public var synopsis: String {
        var words: [String] = []
        var open = 0
        for positional in positionals {
            if positional.isOptional {
                words.append("[" + positional.name)
                open += 1
            } else {
                words.append(positional.name)
            }
        }
        if open > 0 { words[words.count - 1] += String(repeating: "]", count: open) }
        if let standardInput { words.append("< \(standardInput)") }
        for option in options where !positionals.contains(where: { $0.name.contains(option.name) }) {
            words.append("[\(option.label)]" + (option.repeats ? "..." : ""))
        }
        return words.joined(separator: " ")
    }

    /// The subcommands a user is told of.
    public var listedSubcommands: [any Command.Type] {
        subcommands.filter { !$0.configuration.isHidden }
    }
}

/// A command is a small type: it parses its own arguments in `init` and does its work in `run`.
///
/// A command with subcommands and nothing of its own to do keeps the default `init` and `run`,
/// which reject being called bare.
public protocol Command: Sendable {
    static var configuration: CommandConfiguration { get }
    init(parsing arguments: inout Arguments) throws(UsageError)
    /// Returns the process exit status.
    func run() async throws -> Int32
}

extension Command {
    public init(parsing arguments: inout Arguments) throws(UsageError) {
        let names = Self.configuration.listedSubcommands.map { $0.configuration.name }
        if let word = arguments.peekPositional {
            throw UsageError(.unknownCommand(word, expected: names))
        }
        throw UsageError(.missingCommand(expected: names))
    }

    public func run() async throws -> Int32 { 2 }
}

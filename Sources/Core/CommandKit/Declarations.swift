/// What a shell may offer for a word. The renderers map each to their shell's own completer; none
/// of them reads the keyring (a Tab key must never pop up an unlock prompt), so accounts, items
/// and repositories are described, not listed.
public enum Completion: Sendable, Equatable {
    case nothing
    case url
    case account
    case item
    case repository
    case sshRemote
    case file
    case choices([String])
}

/// One option of a command, declared once: the command's parser reads it through `Arguments`,
/// and its help, usage line, shell completions and manual synopsis are rendered from it.
public struct Option: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        /// A flag: `--json`.
        case none
        /// `--name VALUE` or `--name=VALUE`; the associated text names the value in help.
        case required(String)
        /// `--name`, `--name VALUE` or `--name=VALUE`.
        case optional(String)
    }

    public let name: String
    public let value: Value
    /// One line for `--help`, starting with a capital and ending with a full stop.
    public let help: String
    public let completion: Completion
    /// May be given more than once (`[--url NAME=URL]...`).
    public let repeats: Bool

    public init(_ name: String, _ value: Value = .none, help: String, completion: Completion = .nothing, repeats: Bool = false) {
        precondition(name.hasPrefix("--"), "an option's name starts with --")
        self.name = name
        self.value = value
        self.help = help
        self.completion = completion
        self.repeats = repeats
    }

    /// The two every tool has, which `CommandLineTool` answers itself: `--version` on the tool
    /// alone, `--help` (or `-h`) on every command.
    public static let version = Option("--version", help: "Print the version.")
    public static let help = Option("--help", help: "Show this help.")

    /// True when a value must follow: `--name VALUE`.
    public var takesValue: Bool {
        if case .required = value { true } else { false }
    }

    /// As the options table of `--help` shows it: `--ssh [USER@HOST[:PORT]]`.
    public var label: String {
        switch value {
        case .none: name
        case .required(let value): "\(name) \(value)"
        case .optional(let value): "\(name) [\(value)]"
        }
    }
}

/// One positional word of a command, declared once beside its options.
public struct Positional: Sendable {
    /// The word in the usage line: `URL`, `ACCOUNT`, or a choice such as `USER@HOST | URL`.
    public let name: String
    /// What it is, for a shell's completion menu: "instance URL".
    public let help: String
    public let completion: Completion
    public let isOptional: Bool
    /// Takes every remaining word (`snooze until 18:00`).
    public let takesRest: Bool

    public init(_ name: String, help: String, completion: Completion = .nothing, isOptional: Bool = false, takesRest: Bool = false) {
        self.name = name
        self.help = help
        self.completion = completion
        self.isOptional = isOptional
        self.takesRest = takesRest
    }

    /// The same word where it may be left out.
    public var optional: Positional {
        Positional(name, help: help, completion: completion, isOptional: true, takesRest: takesRest)
    }
}

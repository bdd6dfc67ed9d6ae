/// What a command says about itself: the text of its `--help`.
public struct CommandConfiguration: Sendable {
    public var name: String
    /// One line, shown in the parent's list of subcommands.
    public var abstract: String
    /// The synopsis after the tool name, e.g. `account add URL [--allow-http]`.
    public var usage: String
    /// Paragraphs shown under the synopsis.
    public var discussion: String
    /// `(flag, explanation)` pairs; `--help` is added by the renderer.
    public var options: [(String, String)]
    public var subcommands: [any Command.Type]
    /// Left out of the parent's list: a command the tool runs for itself, not one for users.
    public var isHidden: Bool

    public init(
        name: String, abstract: String, usage: String = "", discussion: String = "",
        options: [(String, String)] = [], subcommands: [any Command.Type] = [], isHidden: Bool = false
    ) {
        self.name = name
        self.abstract = abstract
        self.usage = usage
        self.discussion = discussion
        self.options = options
        self.subcommands = subcommands
        self.isHidden = isHidden
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
            throw UsageError("unknown command '\(word)'; expected one of: \(names.joined(separator: ", "))")
        }
        throw UsageError("missing command; expected one of: \(names.joined(separator: ", "))")
    }

    public func run() async throws -> Int32 { 2 }
}

/// The words of a command line, consumed front to back by a command's parser.
///
/// Options may appear anywhere among positionals, as `--name value` or `--name=value`;
/// `--` ends option parsing. Whatever a parser leaves behind is an error, so a typo is
/// never silently ignored.
public struct Arguments: Sendable {
    private var words: [String]
    private var positionalsOnly = false

    public init(_ words: [String]) {
        if let end = words.firstIndex(of: "--") {
            self.words = Array(words[..<end])
            trailing = Array(words[words.index(after: end)...])
        } else {
            self.words = words
            trailing = []
        }
    }

    /// Words after `--`: always positionals.
    private var trailing: [String]

    public var isEmpty: Bool { words.isEmpty && trailing.isEmpty }

    /// The next word, if it is not an option: how a command group picks its subcommand.
    public var peekPositional: String? {
        if let first = words.first(where: { !$0.hasPrefix("-") || $0 == "-" }) { return first }
        return trailing.first
    }

    /// Removes the flag wherever it stands; true if it was there.
    public mutating func flag(_ option: Option) -> Bool {
        precondition(option.value == .none, "\(option.name) takes a value")
        guard let index = words.firstIndex(of: option.name) else { return false }
        words.remove(at: index)
        return true
    }

    /// Removes `--name VALUE` or `--name=VALUE`; nil if absent.
    public mutating func value(of option: Option) throws(UsageError) -> String? {
        guard case .required = option.value else { preconditionFailure("\(option.name) takes no required value") }
        let name = option.name
        if let index = words.firstIndex(of: name) {
            let valueIndex = words.index(after: index)
            guard valueIndex < words.endIndex, !words[valueIndex].hasPrefix("--") else {
                throw UsageError(.needsValue(option: name))
            }
            let value = words[valueIndex]
            words.removeSubrange(index...valueIndex)
            return value
        }
        let prefix = name + "="
        if let index = words.firstIndex(where: { $0.hasPrefix(prefix) }) {
            let value = String(words[index].dropFirst(prefix.count))
            words.remove(at: index)
            return value
        }
        return nil
    }

    /// Removes an option with an optional value: `--name=VALUE`, or `--name VALUE` when
    /// `isValue` takes the next word. Nil when absent; `.some(nil)` when given without a value.
    public mutating func optionalValue(of option: Option, isValue: (String) -> Bool) -> String?? {
        guard case .optional = option.value else { preconditionFailure("\(option.name) has no optional value") }
        let name = option.name
        if let index = words.firstIndex(of: name) {
            let valueIndex = words.index(after: index)
            if valueIndex < words.endIndex, !words[valueIndex].hasPrefix("-"), isValue(words[valueIndex]) {
                let value = words[valueIndex]
                words.removeSubrange(index...valueIndex)
                return .some(value)
            }
            words.remove(at: index)
            return .some(nil)
        }
        let prefix = name + "="
        if let index = words.firstIndex(where: { $0.hasPrefix(prefix) }) {
            return .some(String(words.remove(at: index).dropFirst(prefix.count)))
        }
        return nil
    }

    /// Every `--name VALUE` or `--name=VALUE` of a repeated option, in order; empty when absent.
    public mutating func values(of option: Option) throws(UsageError) -> [String] {
        precondition(option.repeats, "\(option.name) is not declared as repeated")
        var values: [String] = []
        while let value = try value(of: option) { values.append(value) }
        return values
    }

    /// Removes and returns the next positional word; its name appears in the error when it is missing.
    public mutating func positional(_ positional: Positional) throws(UsageError) -> String {
        precondition(!positional.isOptional, "\(positional.name) is optional")
        guard let value = nextPositional() else { throw UsageError(.missing(positional.name)) }
        return value
    }

    /// The next positional word, nil when there is none: an optional positional's, or one that
    /// an option may stand in for (`(--all | ITEM)`).
    public mutating func optionalPositional(_ positional: Positional) -> String? {
        nextPositional()
    }

    /// Every remaining positional word, for a positional that takes the rest.
    public mutating func rest(_ positional: Positional) -> [String] {
        precondition(positional.takesRest, "\(positional.name) does not take the rest")
        var values: [String] = []
        while let word = nextPositional() { values.append(word) }
        return values
    }

    private mutating func nextPositional() -> String? {
        if let index = words.firstIndex(where: { !$0.hasPrefix("-") || $0 == "-" }) {
            return words.remove(at: index)
        }
        return trailing.isEmpty ? nil : trailing.removeFirst()
    }

    /// Throws for anything left over: an unknown option or a surplus positional.
    public func finish() throws(UsageError) {
        if let option = words.first(where: { $0.hasPrefix("-") && $0 != "-" }) {
            throw UsageError(.unknownOption(option))
        }
        if let extra = (words + trailing).first {
            throw UsageError(.unexpectedArgument(extra))
        }
    }
}

/// A command line that does not fit the command: printed with the usage line, exit status 2.
/// CommandKit's own are values, so that a program can word them in its user's language
/// (`UsageWords`); `description` is the English.
public struct UsageError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Problem: Equatable, Sendable {
        case needsValue(option: String)
        /// A positional argument, by its name (`ACCOUNT`).
        case missing(String)
        case unknownOption(String)
        case unexpectedArgument(String)
        case unknownCommand(String, expected: [String])
        case missingCommand(expected: [String])
        /// A command's own words, already in its user's language.
        case said(String)
    }

    public let problem: Problem

    public init(_ message: String) { problem = .said(message) }
    public init(_ problem: Problem) { self.problem = problem }

    public var description: String {
        switch problem {
        case .needsValue(let option): "\(option) needs a value"
        case .missing(let name): "missing \(name)"
        case .unknownOption(let option): "unknown option '\(option)'"
        case .unexpectedArgument(let word): "unexpected argument '\(word)'"
        case .unknownCommand(let word, let expected): "unknown command '\(word)'; expected one of: \(expected.joined(separator: ", "))"
        case .missingCommand(let expected): "missing command; expected one of: \(expected.joined(separator: ", "))"
        case .said(let message): message
        }
    }
}

/// How a program words its usage errors and the line that points to `--help`: in English,
/// unless it hands its own to `CommandLineTool.main`.
public struct UsageWords: Sendable {
    public let problem: @Sendable (UsageError) -> String
    /// The last line, given the help command (`gbnotifyctl --help`).
    public let seeHelp: @Sendable (String) -> String

    public init(problem: @escaping @Sendable (UsageError) -> String, seeHelp: @escaping @Sendable (String) -> String) {
        self.problem = problem
        self.seeHelp = seeHelp
    }

    public static let english = UsageWords(problem: \.description, seeHelp: { "See '\($0)'." })
}

/// One key of the config file, as its parser, the manual page gbnotifyd.conf(5) and the
/// README's table know it: each key is declared once, in `Config.Key`, `ConfigSections.AccountKey`
/// and `ConfigSections.RuleKey`'s `declaration`, and the manual's headers and the README's table
/// are checked against these (ConfigKeysDocumentationTests).
struct ConfigKey: Sendable, Equatable {
    /// How its value is written.
    enum Form: Sendable, Equatable {
        /// A word standing for the value: `seconds`, `path`, `boolean`.
        case placeholder(String)
        /// One of these words.
        case choice([String])
        /// A word standing for the value, or one literal word: `name | none`.
        case placeholderOr(String, literal: String)
        /// A value of parts, placeholders between literal separators: `hh:mm-hh:mm` is
        /// `["hh", ":", "mm-hh", ":", "mm"]`, the odd ones literal.
        case parts([String])
    }

    let name: String
    let form: Form
    /// What an absent key means, in a few words.
    let defaultValue: String
    /// What it does, in one line.
    let summary: String
    /// The numbers a numeric key takes; its parser reads the bounds from here.
    let range: ClosedRange<Int>?

    init(_ name: String, _ form: Form, default defaultValue: String, range: ClosedRange<Int>? = nil, _ summary: String) {
        self.name = name
        self.form = form
        self.defaultValue = defaultValue
        self.range = range
        self.summary = summary
    }

    static func choice<Choice: RawRepresentable & CaseIterable>(_: Choice.Type) -> Form where Choice.RawValue == String {
        .choice(Choice.allCases.map(\.rawValue))
    }

    /// The `.TP` header the manual gives the key: `.BI "poll\-interval = " seconds`.
    var manualHeader: String {
        let name = "\"\(Self.roff(name)) = \""
        switch form {
        case .placeholder(let word):
            return ".BI \(name) \(Self.roff(word))"
        case .choice(let words):
            return ".BR \(name) " + words.map(Self.roff).joined(separator: " \" | \" ")
        case .placeholderOr(let word, let literal):
            return ".BI \(name) \(Self.roff(word)) \" \\fR|\\fP \(Self.roff(literal))\""
        case .parts(let parts):
            return ".BI \(name) " + parts.map(Self.roff).joined(separator: " ")
        }
    }

    /// The value as the README writes it: `seconds`, `browser` \| `terminal`.
    var markdownValue: String {
        switch form {
        case .placeholder(let word): word
        case .choice(let words): words.joined(separator: " \\| ")
        case .placeholderOr(let word, let literal): "\(word) \\| \(literal)"
        case .parts(let parts): parts.joined()
        }
    }

    private static func roff(_ text: String) -> String {
        text.replacing("\\", with: "\\e").replacing("-", with: "\\-")
    }
}

/// The config file's keys by where they may stand.
enum ConfigKeys {
    static var global: [ConfigKey] { Config.Key.allCases.map(\.declaration) }
    static var account: [ConfigKey] { ConfigSections.AccountKey.allCases.map(\.declaration) }
    static var rule: [ConfigKey] { ConfigSections.RuleKey.allCases.map(\.declaration) }

    /// The README's table of keys: one row a key, the sections it may stand in.
    static var markdownTable: String {
        var rows = ["| key | value | default | where | what it does |", "|---|---|---|---|---|"]
        var seen: Set<String> = []
        for key in global + account + rule where seen.insert(key.name).inserted {
            let places = [
                global.contains { $0.name == key.name } ? "top" : nil,
                account.contains { $0.name == key.name } ? "`[account]`" : nil,
                rule.contains { $0.name == key.name } ? "`[rule]`" : nil,
            ].compactMap { $0 }
            rows.append("| `\(key.name)` | \(key.markdownValue) | \(key.defaultValue) | \(places.joined(separator: ", ")) | \(key.summary) |")
        }
        return rows.joined(separator: "\n")
    }
}

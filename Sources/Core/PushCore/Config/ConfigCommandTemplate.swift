/// An argv template such as `gbnotifyctl show {account} {path}`: the command a terminal runs to
/// show a clicked item.
///
/// The template is split into words once, when the config is read; a placeholder is then
/// replaced inside its word, so a value is never split again and always stays (part of) one
/// argv element. The first word, the program, must be fixed text: a program name taken from a
/// notice (`{repo}` is `owner/name`, a relative path) would run whatever lies at that path.
public struct CommandTemplate: Equatable, Sendable {
    public enum Placeholder: String, CaseIterable, Sendable {
        /// The account as the command line names it: `USER@HOST` (`Account.reference`).
        case account
        /// The item's web path, `OWNER/REPO/issues/N` (or `mrs`, `builds`).
        case path
        /// `issue`, `mr` or `build`: the gitbay CLI noun.
        case noun
        /// `OWNER/REPO`.
        case repo
        /// The issue, merge request or build number.
        case number
        /// The instance's host, without scheme or port.
        case host
        /// The account's username.
        case user
    }

    enum Piece: Equatable, Sendable {
        case text(String)
        case placeholder(Placeholder)
    }

    /// One list of pieces per argv element.
    let words: [[Piece]]

    /// The program that stands for gbnotify's own terminal view: as a template's first word it
    /// runs the `gbnotifyctl` the caller found for it (see `ClickLaunch.viewerProgram`).
    public static let viewerName = "gbnotifyctl"

    /// `gbnotifyctl show {account} {path}`: gbnotify's own view of the item, read from the
    /// account's own instance with its token.
    public static let standard = CommandTemplate(words: [
        [.text(viewerName)], [.text("show")], [.placeholder(.account)], [.placeholder(.path)],
    ])

    /// The program, the first word: always fixed text.
    public var program: String { Self.text(of: words[0]) }

    /// The template as the config writes it: `gbnotifyctl show {account} {path}`, a word with
    /// a space in double quotes.
    public var text: String {
        words.map { word in
            let text = Self.text(of: word)
            return text.contains(" ") ? "\"\(text)\"" : text
        }.joined(separator: " ")
    }

    private static func text(of word: [Piece]) -> String {
        word.map { piece in
            switch piece {
            case .text(let text): text
            case .placeholder(let placeholder): "{\(placeholder.rawValue)}"
            }
        }.joined()
    }

    /// The argv for one item of one account; `viewer` is what the program name `gbnotifyctl`
    /// becomes.
    public func expanded(for destination: NotificationDestination, account: Account, viewer: String) -> [String] {
        var argv = words.map { pieces in
            pieces.map { piece in
                switch piece {
                case .text(let text): text
                case .placeholder(.noun): destination.kind.cliNoun
                case .placeholder(.repo): destination.repository
                case .placeholder(.number): String(destination.number)
                case .placeholder(.host): account.instance.host
                case .placeholder(.user): account.username
                case .placeholder(.account): account.reference
                case .placeholder(.path): destination.path
                }
            }.joined()
        }
        if words[0] == [.text(Self.viewerName)] { argv[0] = viewer }
        return argv
    }
}

extension ConfigValue {
    /// The value as a template: words as `words()` splits them, each with `{name}` placeholders.
    /// A brace that is not part of a known placeholder is an error rather than text, so a typo
    /// such as `{repos}` or `{repo` cannot reach the command line unnoticed.
    func commandTemplate() throws(ConfigError) -> CommandTemplate {
        let placeholderList = CommandTemplate.Placeholder.allCases.map { "{\($0.rawValue)}" }.joined(separator: ", ")
        var template: [[CommandTemplate.Piece]] = []
        for word in try words() {
            var pieces: [CommandTemplate.Piece] = []
            var rest = Substring(word)
            while let brace = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
                if brace > rest.startIndex { pieces.append(.text(String(rest[..<brace]))) }
                guard rest[brace] == "{" else {
                    throw error("\"}\" closes no placeholder; the placeholders are \(placeholderList)")
                }
                guard let close = rest[brace...].firstIndex(of: "}") else {
                    throw error("""
                        \(ConfigError.quoted(rest[brace...])) has no closing "}"; the placeholders \
                        are \(placeholderList)
                        """)
                }
                let name = rest[rest.index(after: brace)..<close]
                guard let placeholder = CommandTemplate.Placeholder(rawValue: String(name)) else {
                    throw error("""
                        \(ConfigError.quoted(rest[brace...close])) is not a placeholder; the \
                        placeholders are \(placeholderList)
                        """)
                }
                pieces.append(.placeholder(placeholder))
                rest = rest[rest.index(after: close)...]
            }
            if !rest.isEmpty { pieces.append(.text(String(rest))) }
            template.append(pieces)
        }
        guard template[0].allSatisfy({ if case .text = $0 { true } else { false } }) else {
            throw error("""
                the program (the first word) must be fixed text, not a placeholder; a value from a \
                notice must never choose what runs
                """)
        }
        return CommandTemplate(words: template)
    }
}

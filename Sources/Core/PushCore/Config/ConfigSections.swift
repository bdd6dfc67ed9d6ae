/// The config file's sections, after its global keys:
///
///     [account cmc@gitbay.org]      # one account's own keys
///     poll-interval = 120
///     open-with = terminal
///     enabled = false               # paused: not polled, nothing shown
///     show = silent                 # the rule effects, as this account's defaults
///
///     [rule failed-builds]          # first match wins, in file order
///     kind = build
///     summary = *failed*
///     show = popup
///     urgency = normal
///     sound = message-new-instant
///
/// A rule's filters (`account`, `repo`, `kind`, `actor`, `summary`) must all hold for it to
/// match; one it does not set holds for every notice. Its effects (`show`, `urgency`, `sound`)
/// decide for the notices it matches; one it does not set comes from the account's section,
/// else the global `sound`, else popup, normal, no sound.
enum ConfigSections {
    enum Kind: String {
        case account
        case rule
    }

    enum AccountKey: CaseIterable {
        case pollInterval, openWith, enabled
        case show, urgency, sound

        var declaration: ConfigKey {
            switch self {
            case .pollInterval: Config.Key.pollInterval.declaration
            case .openWith: Config.Key.openWith.declaration
            case .enabled: ConfigKey("enabled", .placeholder("boolean"), default: "`true`", "`false` pauses the account: not polled, nothing shown.")
            case .show: RuleKey.show.declaration
            case .urgency: RuleKey.urgency.declaration
            case .sound: RuleKey.sound.declaration
            }
        }
    }

    enum RuleKey: CaseIterable {
        case account, repo, kind, actor, summary
        case show, urgency, sound

        var declaration: ConfigKey {
            switch self {
            case .account: ConfigKey("account", .parts(["user", "@", "host"]), default: "every account", "Only that account's notices.")
            case .repo: ConfigKey("repo", .placeholder("pattern"), default: "every repository", "The repository, `OWNER/REPO`, as a wildcard pattern.")
            case .kind: ConfigKey("kind", ConfigKey.choice(ItemKind.self), default: "every kind", "Only notices of that kind.")
            case .actor: ConfigKey("actor", .placeholder("pattern"), default: "anyone", "Who acted, as a wildcard pattern.")
            case .summary: ConfigKey("summary", .placeholder("pattern"), default: "any", "The notice's summary, as a wildcard pattern.")
            case .show: ConfigKey("show", ConfigKey.choice(Show.self), default: "`popup`", "A notification, only the badge and tray, or nothing.")
            case .urgency: ConfigKey("urgency", ConfigKey.choice(RuleUrgency.self), default: "`normal`", "The notification's urgency.")
            case .sound: Config.Key.sound.declaration
            }
        }
    }

    /// A rule's name: what `rules check` prints and errors name.
    static let maximumNameLength = 64

    /// The sections a key that is not global belongs in, in words; nil when none takes it.
    static func sections(taking key: String) -> String? {
        switch (RuleKey.named(key) != nil, AccountKey.named(key) != nil) {
        case (true, true): "a [rule NAME] or [account USER@HOST] section"
        case (true, false): "a [rule NAME] section"
        case (false, true): "an [account USER@HOST] section"
        case (false, false): nil
        }
    }
}

/// One `[account USER@HOST]` section.
public struct AccountSection: Sendable, Equatable {
    /// `USER@HOST` as the header wrote it.
    public let name: String
    public let line: Int
    /// The account it is for, as a `RuleSubject.account` key.
    let key: String
    public let pollIntervalSeconds: Int?
    public let openWith: Config.OpenWith?
    /// `enabled = false` pauses the account: the daemon neither polls it nor shows anything.
    public let isEnabled: Bool?
    public let effects: RuleEffects

    /// Whether this section is `account`'s.
    public func isFor(_ account: Account) -> Bool {
        key == RuleSubject.key(user: account.username, host: account.instance.displayName + account.instance.path)
    }
}

/// What the config gives one account: its own section's keys over the global ones.
public struct AccountSettings: Sendable, Equatable {
    public let pollIntervalSeconds: Int
    public let openWith: Config.OpenWith
    public let isEnabled: Bool

    public init(pollIntervalSeconds: Int, openWith: Config.OpenWith, isEnabled: Bool) {
        self.pollIntervalSeconds = pollIntervalSeconds
        self.openWith = openWith
        self.isEnabled = isEnabled
    }
}

extension Config {
    /// `account`'s settings: its `[account ...]` section's keys where it has them, the global
    /// keys elsewhere.
    public func settings(for account: Account) -> AccountSettings {
        let section = accountSections.first { $0.isFor(account) }
        return AccountSettings(
            pollIntervalSeconds: section?.pollIntervalSeconds ?? pollIntervalSeconds,
            openWith: section?.openWith ?? openWith, isEnabled: section?.isEnabled ?? true)
    }

    mutating func readSections(_ sections: [ConfigKeyFile.Section], globalKeys: Set<String>) throws(ConfigError) {
        var firstLineOfSection: [String: Int] = [:]
        var rules: [Rule] = []
        var accountEffects: [String: RuleEffects] = [:]
        for section in sections {
            let words = section.header.split(maxSplits: 1, whereSeparator: { $0 == " " || $0 == "\t" })
            let name = words.count == 2 ? String(String(words[1]).trimmingWhitespace) : ""
            let kind = words.first.flatMap { ConfigSections.Kind(rawValue: String($0)) }
            let reader = SectionReader(section: section, name: name, globalKeys: globalKeys)
            switch kind {
            case .account?:
                let key = try reader.accountKey(name, key: nil)
                try Self.checkUnique("account \(key)", section, &firstLineOfSection)
                let account = try reader.accountSection(key: key)
                accountSections.append(account)
                accountEffects[key] = account.effects
            case .rule?:
                try reader.checkRuleName()
                try Self.checkUnique("rule \(name)", section, &firstLineOfSection)
                let (rule, ruleWarnings) = try reader.rule()
                rules.append(rule)
                warnings += ruleWarnings
            case nil:
                throw ConfigError(line: section.line, key: nil, reason: """
                    \(ConfigError.quoted("[\(section.header)]")) is not a known section; the sections are \
                    [account USER@HOST] and [rule NAME], and the global keys come before the first of them
                    """)
            }
        }
        self.rules = RuleSet(rules: rules, accountEffects: accountEffects, sound: sound)
    }

    private static func checkUnique(
        _ identity: String, _ section: ConfigKeyFile.Section, _ seen: inout [String: Int]
    ) throws(ConfigError) {
        if let earlier = seen[identity] {
            throw ConfigError(line: section.line, section: section.header, key: nil, reason: """
                a second section of this name (the first is on line \(earlier)); keep one of the two
                """)
        }
        seen[identity] = section.line
    }
}

/// Reads one section's entries into what it means, every error naming its line, section and key.
private struct SectionReader {
    let section: ConfigKeyFile.Section
    /// What follows the kind in the header: `cmc@gitbay.org`, `bots`.
    let name: String
    let globalKeys: Set<String>

    func error(_ reason: String, line: Int? = nil, key: String? = nil) -> ConfigError {
        ConfigError(line: line ?? section.line, section: section.header, key: key, reason: reason)
    }

    func value(_ entry: ConfigKeyFile.Entry) -> ConfigValue {
        ConfigValue(line: entry.line, section: section.header, key: entry.key, raw: entry.value)
    }

    /// `USER@HOST` (as `gbnotifyctl account list` prints it) as an account key; `key` names the
    /// line's key when it is a value rather than the header.
    func accountKey(_ text: String, key: String?, line: Int? = nil) throws(ConfigError) -> String {
        guard !text.contains("://"), case .userAtHost(let user, let host)? = try? AccountReference(parsing: text) else {
            throw error(
                "\(ConfigError.quoted(text)) names no account; write USER@HOST, as 'gbnotifyctl account list' prints it",
                line: line, key: key)
        }
        return RuleSubject.key(user: user, host: host)
    }

    func checkRuleName() throws(ConfigError) {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= ConfigSections.maximumNameLength, bytes.allSatisfy(ASCII.isNameCharacter) else {
            throw error("""
                a rule needs a name of 1 to \(ConfigSections.maximumNameLength) letters, digits, '.', '_' or '-', \
                such as [rule bots]
                """)
        }
    }

    /// Each entry's key, known to the section and not repeated.
    private func entries<Key: DeclaredConfigKey>(_: Key.Type, kind: ConfigSections.Kind) throws(ConfigError) -> [(Key, ConfigValue)] {
        var firstLine: [Key: Int] = [:]
        var entries: [(Key, ConfigValue)] = []
        for entry in section.entries {
            guard let key = Key.named(entry.key) else {
                throw unknown(entry, kind: kind, keys: Key.allCases.map(\.declaration.name))
            }
            if let earlier = firstLine[key] {
                throw error("set a second time in this section (first on line \(earlier)); keep one of the two lines",
                            line: entry.line, key: entry.key)
            }
            firstLine[key] = entry.line
            entries.append((key, value(entry)))
        }
        return entries
    }

    private func unknown(_ entry: ConfigKeyFile.Entry, kind: ConfigSections.Kind, keys: [String]) -> ConfigError {
        let key = entry.key.displaySafe(truncatedTo: 40)
        let isGlobal = globalKeys.contains(entry.key)
        switch kind {
        case .rule where ConfigSections.AccountKey.named(entry.key) != nil:
            return error(isGlobal
                ? "belongs at the top, for every account, or in an [account USER@HOST] section for one; not in a rule"
                : "belongs in an [account USER@HOST] section, not in a rule", line: entry.line, key: key)
        case .account where ConfigSections.RuleKey.named(entry.key) != nil:
            return error("""
                filters notices, which is what a [rule NAME] section does; write the rule with \
                account = \(name.displaySafe(truncatedTo: 80)) in it
                """, line: entry.line, key: key)
        case _ where isGlobal:
            return error("is a global key: move the line above the first section", line: entry.line, key: key)
        case .rule:
            return error("not a key of a [rule NAME] section; its keys are \(keys.joined(separator: ", "))", line: entry.line, key: key)
        case .account:
            return error("not a key of an [account USER@HOST] section; its keys are \(keys.joined(separator: ", "))", line: entry.line, key: key)
        }
    }

    func accountSection(key: String) throws(ConfigError) -> AccountSection {
        var pollInterval: Int?
        var openWith: Config.OpenWith?
        var enabled: Bool?
        var effects = RuleEffects()
        for (key, value) in try entries(ConfigSections.AccountKey.self, kind: .account) {
            switch key {
            case .pollInterval: pollInterval = try value.seconds(in: Config.Key.pollInterval.bounds)
            case .openWith: openWith = try value.choice(Config.OpenWith.self)
            case .enabled: enabled = try value.boolean()
            case .show: effects.show = try value.choice(Show.self)
            case .urgency: effects.urgency = try value.urgency()
            case .sound: effects.sound = try value.sound()
            }
        }
        return AccountSection(
            name: name, line: section.line, key: key, pollIntervalSeconds: pollInterval, openWith: openWith,
            isEnabled: enabled, effects: effects)
    }

    func rule() throws(ConfigError) -> (Rule, warnings: [String]) {
        var account: String?
        var repo, actor, summary: Glob?
        var kind: ItemKind?
        var effects = RuleEffects()
        var warnings: [String] = []
        for (key, value) in try entries(ConfigSections.RuleKey.self, kind: .rule) {
            switch key {
            case .account: account = try accountKey(try value.text(), key: value.key, line: value.line)
            case .repo: repo = try value.glob(warnings: &warnings)
            case .kind: kind = try value.choice(ItemKind.self)
            case .actor: actor = try value.glob(warnings: &warnings)
            case .summary: summary = try value.glob(warnings: &warnings)
            case .show: effects.show = try value.choice(Show.self)
            case .urgency: effects.urgency = try value.urgency()
            case .sound: effects.sound = try value.sound()
            }
        }
        let rule = Rule(
            name: name, line: section.line, account: account, repo: repo, kind: kind, actor: actor, summary: summary,
            effects: effects)
        return (rule, warnings)
    }
}

extension ConfigValue {
    /// A wildcard pattern (`Glob`); a set that reads like a word (`[bot]`) is accepted with a
    /// warning, since it is seldom meant.
    func glob(warnings: inout [String]) throws(ConfigError) -> Glob {
        let text = try text()
        let glob: Glob
        do {
            glob = try Glob(parsing: text)
        } catch {
            throw self.error("\(ConfigError.quoted(text)) is not a usable pattern: \(error)")
        }
        if let set = glob.wordLikeSet {
            let letters = set.dropFirst().dropLast().map(String.init)
            let listed = letters.dropLast().joined(separator: ", ") + " or " + letters.last!
            warnings.append("""
                \(self.error("\(set) matches one character, \(listed), not the text \(set); to match the text, write \\\(set.dropLast())\\]").description)
                """)
        }
        return glob
    }

    /// `HH:MM-HH:MM`.
    func quietHours() throws(ConfigError) -> QuietHours {
        let text = try text()
        do {
            return try QuietHours(parsing: text)
        } catch {
            throw self.error("\(ConfigError.quoted(text)) \(error)")
        }
    }

    /// `low` or `normal`; `critical` is refused with the reason.
    func urgency() throws(ConfigError) -> RuleUrgency {
        if (try? text()) == "critical" {
            throw error("critical is not offered: it would break through the desktop's do-not-disturb; use low or normal")
        }
        return try choice(RuleUrgency.self)
    }

    /// `none`, or a sound name: 1 to 64 of letters, digits, `.`, `_` and `-`, as the freedesktop
    /// sound naming spec's names are (`message-new-instant`, `bell`).
    func sound() throws(ConfigError) -> Sound {
        let text = try text()
        if text == "none" { return .none }
        let bytes = text.utf8
        guard bytes.count <= 64, bytes.allSatisfy(ASCII.isNameCharacter) else {
            throw error("""
                \(ConfigError.quoted(text)) is not a sound name; use a name of the freedesktop sound theme, \
                such as message-new-instant or bell, or none
                """)
        }
        return .named(text)
    }
}

/// A section's keys, each with its declaration; found by the name a config line gives.
protocol DeclaredConfigKey: CaseIterable, Hashable {
    var declaration: ConfigKey { get }
}

extension DeclaredConfigKey {
    static func named(_ name: String) -> Self? {
        allCases.first { $0.declaration.name == name }
    }
}

extension Config.Key: DeclaredConfigKey {}
extension ConfigSections.AccountKey: DeclaredConfigKey {}
extension ConfigSections.RuleKey: DeclaredConfigKey {}

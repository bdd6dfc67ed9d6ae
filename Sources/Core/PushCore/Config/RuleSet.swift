/// What pops up: the config's `[rule NAME]` sections, in file order, the first that matches a
/// notice deciding for it, over the defaults of its `[account USER@HOST]` section and the
/// global `sound`. (mako's criteria and dunst's rules have the same shape: a named section of
/// filters that must all hold, and the effects they have; here only the first match applies, so
/// a rule's meaning never depends on the rules after it.)
///
/// A rule never touches the server's unread state: a silent or hidden notice is still unread,
/// still in the badge (and, when silent, on the tray and in the inbox).
public struct RuleSet: Sendable, Equatable {
    public private(set) var rules: [Rule]
    /// The rules' filters, in the same order, where they are tried: a class reference each, so
    /// trying a rule costs no copy of it.
    private var filters: [RuleFilters]
    /// `[account ...]` sections' effects, by `RuleSubject.account` key: what a notice of that
    /// account gets where no rule says.
    var accountEffects: [String: RuleEffects]
    /// The global `sound`.
    var sound: String?

    public static let none = RuleSet(rules: [], accountEffects: [:], sound: nil)

    init(rules: [Rule], accountEffects: [String: RuleEffects], sound: String?) {
        self.rules = rules
        filters = rules.map(\.filters)
        self.accountEffects = accountEffects
        self.sound = sound
    }

    /// What happens to `notice` of `account`: the rule that decided (nil when none matched),
    /// whether and how it shows, and its sound.
    public func evaluate(_ notice: InboxItem, of account: Account) -> RuleDecision {
        let subject = RuleSubject(notice, account: account)
        let rule = filters.firstIndex { $0.matches(subject) }.map { rules[$0] }
        let accountDefaults = accountEffects[subject.account] ?? RuleEffects()
        let effects = (rule?.effects ?? RuleEffects()).over(accountDefaults)
        return RuleDecision(
            rule: rule?.name, show: effects.show ?? .popup, urgency: effects.urgency ?? .normal,
            sound: (effects.sound ?? sound.map(Sound.named) ?? Sound.none).name)
    }
}

/// What the rules decided for one notice: plain values for the desktop stage.
public struct RuleDecision: Sendable, Equatable, CustomStringConvertible {
    /// The `[rule NAME]` that matched; nil when none did (the account's and global defaults).
    public let rule: String?
    public let show: Show
    /// Never critical: the desktop's do-not-disturb always holds.
    public let urgency: RuleUrgency
    /// The freedesktop sound name to send as `sound-name`; nil for none (`suppress-sound`).
    public let sound: String?

    public init(rule: String?, show: Show, urgency: RuleUrgency, sound: String?) {
        self.rule = rule
        self.show = show
        self.urgency = urgency
        self.sound = sound
    }

    /// What one notification of several notices does (a repository's group, shown as one):
    /// it pops up if any of them would, at the highest urgency and with the sound of the first
    /// (newest) of those that pop up; else silent if any is silent; else none. Nil for no
    /// decisions.
    public static func loudest(of decisions: [RuleDecision]) -> RuleDecision? {
        guard let first = decisions.first else { return nil }
        let popups = decisions.filter { $0.show == .popup }
        guard let newest = popups.first else {
            return decisions.first { $0.show == .silent } ?? first
        }
        let urgency: RuleUrgency = popups.contains { $0.urgency == .normal } ? .normal : .low
        return RuleDecision(rule: newest.rule, show: .popup, urgency: urgency, sound: newest.sound)
    }

    /// `popup, urgency normal, sound message-new-instant`, as `gbnotifyctl rules check` says it.
    public var description: String {
        switch show {
        case .none: Localized.text("none (not shown)", note: "gbnotifyctl rules check: what a rule does to a notice. none is the config's value and stays as it is.")
        case .silent:
            Localized.text(
                "silent (badge and inbox, no popup)", note: "gbnotifyctl rules check: what a rule does to a notice. silent is the config's value and stays as it is.")
        case .popup:
            sound.map {
                Localized.text(
                    "popup, urgency {urgency}, sound {sound}",
                    note: "gbnotifyctl rules check: what a rule does to a notice. popup is the config's value and stays as it is; {urgency}: low or normal, as in the config; {sound}: the sound's name.",
                    ["urgency": urgency.rawValue, "sound": $0])
            }
                ?? Localized.text(
                    "popup, urgency {urgency}, no sound",
                    note: "gbnotifyctl rules check: what a rule does to a notice. popup is the config's value and stays as it is; {urgency}: low or normal, as in the config.",
                    ["urgency": urgency.rawValue])
        }
    }
}

/// `show =`: what a notice does on the screen.
public enum Show: String, Sendable, CaseIterable {
    /// A notification, as always.
    case popup
    /// In the badge, the tray and the inbox, but no notification.
    case silent
    /// Nowhere on the screen (still unread on the server, and counted by the badge).
    case none
}

/// `urgency =`: only ever as high as normal, so nothing of ours outshouts do-not-disturb.
public enum RuleUrgency: String, Sendable, CaseIterable {
    case low
    case normal

    public var notificationUrgency: NotificationContent.Urgency {
        switch self {
        case .low: .low
        case .normal: .normal
        }
    }
}

/// `sound =`: a name from the freedesktop sound naming spec, or `none`.
public enum Sound: Sendable, Equatable {
    case named(String)
    case none

    var name: String? {
        if case .named(let name) = self { name } else { nil }
    }
}

/// The effects of a rule or an account section; nil where it says nothing, leaving the decision
/// to the next layer (rule, then account, then global).
public struct RuleEffects: Sendable, Equatable {
    public var show: Show?
    public var urgency: RuleUrgency?
    public var sound: Sound?

    public init(show: Show? = nil, urgency: RuleUrgency? = nil, sound: Sound? = nil) {
        self.show = show
        self.urgency = urgency
        self.sound = sound
    }

    func over(_ lower: RuleEffects) -> RuleEffects {
        RuleEffects(show: show ?? lower.show, urgency: urgency ?? lower.urgency, sound: sound ?? lower.sound)
    }
}

/// One `[rule NAME]` section: filters that must all hold (a missing one holds for every notice)
/// and the effects it has.
public struct Rule: Sendable, Equatable {
    public let name: String
    /// Where its section starts, for `rules check` and errors.
    public let line: Int
    let filters: RuleFilters
    public let effects: RuleEffects

    init(
        name: String, line: Int, account: String?, repo: Glob?, kind: ItemKind?, actor: Glob?, summary: Glob?,
        effects: RuleEffects
    ) {
        self.name = name
        self.line = line
        filters = RuleFilters(account: account, repo: repo, kind: kind, actor: actor, summary: summary)
        self.effects = effects
    }
}

/// What a rule matches: immutable, and shared by reference between the rule and its `RuleSet`.
final class RuleFilters: Sendable, Equatable {
    /// `account = USER@HOST`, as a `RuleSubject.account` key.
    let account: String?
    let repo: Glob?
    let kind: ItemKind?
    let actor: Glob?
    let summary: Glob?

    init(account: String?, repo: Glob?, kind: ItemKind?, actor: Glob?, summary: Glob?) {
        self.account = account
        self.repo = repo
        self.kind = kind
        self.actor = actor
        self.summary = summary
    }

    static func == (lhs: RuleFilters, rhs: RuleFilters) -> Bool {
        (lhs.account, lhs.kind) == (rhs.account, rhs.kind) && (lhs.repo, lhs.actor, lhs.summary) == (rhs.repo, rhs.actor, rhs.summary)
    }

    /// Cheapest filters first: most notices fail a rule on its first filter. Each is used in
    /// place (optional chaining), not bound to a copy.
    func matches(_ subject: RuleSubject) -> Bool {
        if account != nil && account != subject.account { return false }
        if kind != nil && kind != subject.kind { return false }
        if repo?.matches(subject.repo) == false { return false }
        if actor?.matches(subject.actor) == false { return false }
        if summary?.matches(subject.summary) == false { return false }
        return true
    }
}

/// A notice as the filters see it, worked out once for all the rules.
struct RuleSubject {
    /// `USER@host`, the host part lowercased as `AccountReference` compares it.
    let account: String
    /// The repository of the notice's path (what its notification shows), else the row's
    /// `repo` text.
    let repo: String
    let kind: ItemKind?
    let actor: String
    let summary: String

    init(_ notice: InboxItem, account: Account) {
        self.account = Self.key(user: account.username, host: account.instance.displayName + account.instance.path)
        repo = Self.matched(NoticeGroup.repository(of: notice) ?? notice.repo)
        kind = notice.kind
        actor = Self.matched(notice.actor)
        summary = Self.matched(notice.summary)
    }

    /// How many characters of a field the rules see: its first 1,024, more than a notification
    /// shows of it (`NotificationContent.maximumBodyLength`), so that a rule's cost per notice
    /// is bounded by the rule (`Glob`'s bound) and not by what an instance sends (a summary may
    /// be a whole response body long).
    static let maximumMatchedLength = 1024

    private static func matched(_ text: String) -> String {
        text.utf8.count <= maximumMatchedLength
            ? text : String(String.UnicodeScalarView(text.unicodeScalars.prefix(maximumMatchedLength)))
    }

    static func key(user: some StringProtocol, host: some StringProtocol) -> String {
        "\(user)@\(host.lowercased())"
    }
}

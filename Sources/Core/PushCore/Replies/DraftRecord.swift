/// The replies that could not be posted, kept in the state directory (`drafts.json`) so that
/// nothing the user typed is lost: offered again by `gbnotifyctl reply` for the same item.
public struct DraftRecord: Codable, Equatable, Sendable {
    public static let currentVersion = 1
    /// A record past this many drafts is not ours, and a draft beyond it is refused (and its
    /// text printed) rather than another dropped.
    public static let maximumDrafts = 50
    /// The longest text a draft holds: more than gitbay takes, so that a reply typed into a
    /// popup past gitbay's limit is kept to be shortened, not lost. A record with a longer one
    /// is not ours.
    public static let maximumTextBytes = CommentText.maximumBytes + 16 * 1024

    public struct Draft: Codable, Equatable, Sendable {
        public let account: Account
        /// `OWNER/REPO/(issues|mrs)/N`.
        public let path: String
        public let text: String
        /// Seconds since the Unix epoch.
        public let savedAt: Int64
        /// Why it was kept, in English: what an older gbnotify reads.
        public let reason: String
        /// Why it was kept, as a value; nil in a draft an older gbnotify kept.
        public let failure: AnswerFailure?

        public init(account: Account, path: String, text: String, savedAt: Int64, failure: AnswerFailure) {
            self.account = account
            self.path = path
            self.text = text
            self.savedAt = savedAt
            self.failure = failure
            reason = failure.description
        }

        /// Why it was kept, in the session's language where the draft says it as a value.
        public var spokenReason: String {
            failure?.spoken ?? reason
        }
    }

    public var version = currentVersion
    /// Oldest first; one per (account, item): a newer text for the same item replaces the older.
    public private(set) var drafts: [Draft] = []

    public init() {}

    public var isUsable: Bool {
        version == Self.currentVersion && drafts.count <= Self.maximumDrafts
            && drafts.allSatisfy { NotificationDestination(path: $0.path) != nil && $0.text.utf8.count <= Self.maximumTextBytes }
    }

    /// Keeps `draft`, replacing the one of the same account and item. False when the record is
    /// full and nothing was kept.
    public mutating func keep(_ draft: Draft) -> Bool {
        let isNew = !drafts.contains { $0.account == draft.account && $0.path == draft.path }
        guard !isNew || drafts.count < Self.maximumDrafts else { return false }
        drafts.removeAll { $0.account == draft.account && $0.path == draft.path }
        drafts.append(draft)
        return true
    }

    /// The draft of `account` for `path`, if one is kept.
    public func draft(of account: Account, for path: String) -> Draft? {
        drafts.first { $0.account == account && $0.path == path }
    }

    /// The paths of the items `account` has a draft kept for.
    public func paths(of account: Account) -> Set<String> {
        Set(drafts.filter { $0.account == account }.map(\.path))
    }

    /// Drops the draft of `account` for `path` (it was posted, or given up).
    public mutating func drop(of account: Account, for path: String) {
        drafts.removeAll { $0.account == account && $0.path == path }
    }
}

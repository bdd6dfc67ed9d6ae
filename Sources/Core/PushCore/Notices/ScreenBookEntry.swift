/// The book's records: what an entry is about, the entry itself, and what is kept of them in
/// the state directory (`notifications.json`), with the bounds they are read back within.
extension ScreenBook {
    public enum Subject: Sendable, Equatable, Codable {
        /// The notices of one repository (`NoticeGroup`).
        case group(NoticeGroup)
        case summary(NoticeSummary)
        /// The server rejected the account's token: polling stopped until it has a new one.
        case tokenRejected
        /// The repository was muted from its notification, which this replaced for a while,
        /// offering to undo it until `until` (seconds since the Unix epoch), kept with it so that
        /// a restart does not lengthen the window; nil from a daemon that kept no time: over.
        case muted(repository: String, until: Int64?)
        /// What became of an answer from a notification (a reaction, a reply), said until
        /// `until` (seconds since the Unix epoch; a reaction's Undo is offered until then), or
        /// until dismissed when nil (a failure, which the user must read).
        case said(AnswerSaid, until: Int64?)
    }

    public struct Entry: Sendable, Equatable, Codable {
        /// The book's own name for the entry, kept while the server's id changes.
        public let id: UInt64
        public let account: Account
        public internal(set) var subject: Subject
        /// The notification server's id while it is on screen; nil while it waits to be shown.
        public internal(set) var serverID: UInt32?
        /// What is on screen (if anything) is older than `subject`.
        public internal(set) var needsShowing: Bool
        /// Shown by an earlier gbnotifyd and taken over by this one: its clicks reach this one
        /// only as the signals a server broadcasts.
        public internal(set) var isAdopted: Bool

        init(id: UInt64, account: Account, subject: Subject, serverID: UInt32?, needsShowing: Bool, isAdopted: Bool) {
            self.id = id
            self.account = account
            self.subject = subject
            self.serverID = serverID
            self.needsShowing = needsShowing
            self.isAdopted = isAdopted
        }

        private enum CodingKeys: String, CodingKey {
            case id, account, subject, serverID, needsShowing, isAdopted
        }

        /// Read back from `notifications.json`: the id within `maximumEntryID` (so the next one
        /// never overflows), a server id positive as the notification specification's are.
        public init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: CodingKeys.self)
            id = try fields.decodeID(UInt64.self, forKey: .id, maximum: ScreenBook.maximumEntryID)
            account = try fields.decode(Account.self, forKey: .account)
            subject = try fields.decode(Subject.self, forKey: .subject)
            serverID = try fields.decodeIDIfPresent(UInt32.self, forKey: .serverID)
            needsShowing = try fields.decode(Bool.self, forKey: .needsShowing)
            isAdopted = try fields.decode(Bool.self, forKey: .isAdopted)
        }
    }

    /// The largest entry id read back: 2^53, an integer every JSON reader keeps exactly, and
    /// more notifications than a daemon shows in any lifetime. The next id after it still fits.
    public static let maximumEntryID: UInt64 = 1 << 53

    /// What is kept in the state directory, so that a restarted daemon (kill -9 included) takes
    /// its notifications over instead of adding new ones beside them.
    public struct Saved: Sendable, Equatable, Codable {
        public static let currentVersion = 1
        public var version = currentVersion
        /// The unique bus name of the notification server the ids belong to: another owner
        /// (a restarted server) never showed them.
        public var serverOwner: String
        public var entries: [Entry]

        init(serverOwner: String, entries: [Entry]) {
            self.serverOwner = serverOwner
            self.entries = entries
        }

        private enum CodingKeys: String, CodingKey {
            case version, serverOwner, entries
        }

        /// Each entry once, by its id and by its server id, as the book keeps them; a muted
        /// repository named as `OWNER/REPO`, as only a group's can be (it becomes an argument of
        /// `repo unwatch` on Undo).
        public init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: CodingKeys.self)
            version = try fields.decode(Int.self, forKey: .version)
            serverOwner = try fields.decode(String.self, forKey: .serverOwner)
            entries = try fields.decode([Entry].self, forKey: .entries)
            let serverIDs = entries.compactMap(\.serverID)
            guard Set(entries.map(\.id)).count == entries.count, Set(serverIDs).count == serverIDs.count else {
                throw DecodingError.dataCorruptedError(forKey: .entries, in: fields, debugDescription: "an entry twice")
            }
            for entry in entries {
                switch entry.subject {
                case .muted(let repository, _):
                    guard NotificationDestination.repository(parsing: repository) != nil else {
                        throw DecodingError.dataCorruptedError(forKey: .entries, in: fields, debugDescription: "a muted repository that is none")
                    }
                case .said(let said, _):
                    // It becomes an argument of `issue|mr react --remove` on Undo.
                    guard let destination = NotificationDestination(path: said.path), destination.kind != .build else {
                        throw DecodingError.dataCorruptedError(forKey: .entries, in: fields, debugDescription: "an answer on no item")
                    }
                case .group, .summary, .tokenRejected:
                    continue
                }
            }
        }
    }
}

extension ScreenBook.Subject {
    public var group: NoticeGroup? {
        if case .group(let group) = self { group } else { nil }
    }

    public var summary: NoticeSummary? {
        if case .summary(let summary) = self { summary } else { nil }
    }

    /// When a notification said for a while goes (a "Muted" one, a reaction's or a reply's);
    /// nil for the others, and for one said until dismissed.
    public var saidUntil: Int64? {
        switch self {
        case .muted(_, let until), .said(_, let until): until
        case .group, .summary, .tokenRejected: nil
        }
    }
}

extension ScreenBook {
    /// Whether `entry` still offers Undo at `now` (seconds since the Unix epoch): a "Muted"
    /// notification, or a reaction's, within its time.
    public static func offersUndo(_ entry: Entry, at now: Int64) -> Bool {
        switch entry.subject {
        case .muted(_, let until?), .said(.reacted, let until?): now < until
        default: false
        }
    }
}

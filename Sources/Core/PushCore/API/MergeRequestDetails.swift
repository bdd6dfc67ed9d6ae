/// `mr show`: the issue-like fields, and what a merge request adds. `gates` come only while it
/// is open (or its source is gone), stacking only while it is open.
public struct MergeRequestDetails: Sendable, Equatable, Decodable {
    public struct StackEntry: Sendable, Equatable, Decodable {
        public let number: Int64
        public let title: String

        public init(number: Int64, title: String) {
            self.number = number
            self.title = title
        }
    }

    /// In the merge queue.
    public struct Queue: Sendable, Equatable, Decodable {
        public let by: String
        public let strategy: String
        public let reason: String?
        public let queuedAt: String?

        public init(by: String, strategy: String, reason: String? = nil, queuedAt: String? = nil) {
            self.by = by
            self.strategy = strategy
            self.reason = reason
            self.queuedAt = queuedAt
        }

        private enum CodingKeys: String, CodingKey {
            case by, strategy, reason
            case queuedAt = "queued_at"
        }
    }

    public struct Check: Sendable, Equatable, Decodable {
        public let context: String
        /// `pending`, `success`, `failure`, `error` or `skipped`.
        public let state: String
        public let url: String?
        public let updatedAt: String?
        /// As the server words it: `1m12s`.
        public let duration: String?

        public init(context: String, state: String, url: String? = nil, updatedAt: String? = nil, duration: String? = nil) {
            self.context = context
            self.state = state
            self.url = url
            self.updatedAt = updatedAt
            self.duration = duration
        }

        private enum CodingKeys: String, CodingKey {
            case context, state, url, duration
            case updatedAt = "updated_at"
        }
    }

    public struct Commit: Sendable, Equatable, Decodable {
        public let sha: String
        public let subject: String

        public init(sha: String, subject: String) {
            self.sha = sha
            self.subject = subject
        }
    }

    public struct Review: Sendable, Equatable, Decodable {
        public let reviewer: String
        /// `approve`, `request_changes` or `comment`.
        public let verdict: String
        /// The review was of an older head.
        public let stale: Bool
        /// Whether it counts for the gates.
        public let counts: Bool
        public let createdAt: String?

        public init(reviewer: String, verdict: String, stale: Bool, counts: Bool, createdAt: String? = nil) {
            self.reviewer = reviewer
            self.verdict = verdict
            self.stale = stale
            self.counts = counts
            self.createdAt = createdAt
        }

        private enum CodingKeys: String, CodingKey {
            case reviewer, verdict, stale, counts
            case createdAt = "created_at"
        }

        public init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: CodingKeys.self)
            reviewer = try fields.decode(String.self, forKey: .reviewer)
            verdict = try fields.decode(String.self, forKey: .verdict)
            stale = try fields.decodeIfPresent(Bool.self, forKey: .stale) ?? false
            counts = try fields.decodeIfPresent(Bool.self, forKey: .counts) ?? true
            createdAt = try fields.decodeIfPresent(String.self, forKey: .createdAt)
        }
    }

    /// What stands between the merge request and a merge; `unmet` says it in the server's words.
    public struct Gates: Sendable, Equatable, Decodable {
        public struct OwnersOutstanding: Sendable, Equatable, Decodable {
            public let files: [String]
            public let owners: [String]

            public init(files: [String], owners: [String]) {
                self.files = files
                self.owners = owners
            }
        }

        public let draft: Bool?
        public let approvalsRequired: Int?
        public let approvals: [String]
        public let changesRequested: [String]
        public let codeownersRequired: Bool?
        public let ownersOutstanding: [OwnersOutstanding]
        public let resolvedRequired: Bool?
        public let openThreads: Int?
        public let checksRequired: Bool?
        /// The combined state of the required checks.
        public let checks: String?
        public let checksMissing: [String]
        public let fastForward: Bool?
        public let unmet: [String]

        public init(
            draft: Bool? = nil, approvalsRequired: Int? = nil, approvals: [String] = [], changesRequested: [String] = [],
            codeownersRequired: Bool? = nil, ownersOutstanding: [OwnersOutstanding] = [], resolvedRequired: Bool? = nil,
            openThreads: Int? = nil, checksRequired: Bool? = nil, checks: String? = nil, checksMissing: [String] = [],
            fastForward: Bool? = nil, unmet: [String] = []
        ) {
            self.draft = draft
            self.approvalsRequired = approvalsRequired
            self.approvals = approvals
            self.changesRequested = changesRequested
            self.codeownersRequired = codeownersRequired
            self.ownersOutstanding = ownersOutstanding
            self.resolvedRequired = resolvedRequired
            self.openThreads = openThreads
            self.checksRequired = checksRequired
            self.checks = checks
            self.checksMissing = checksMissing
            self.fastForward = fastForward
            self.unmet = unmet
        }

        private enum CodingKeys: String, CodingKey {
            case draft, approvals, checks, unmet
            case approvalsRequired = "approvals_required"
            case changesRequested = "changes_requested"
            case codeownersRequired = "codeowners_required"
            case ownersOutstanding = "owners_outstanding"
            case resolvedRequired = "resolved_required"
            case openThreads = "open_threads"
            case checksRequired = "checks_required"
            case checksMissing = "checks_missing"
            case fastForward = "fast_forward"
        }

        public init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: CodingKeys.self)
            draft = try fields.decodeIfPresent(Bool.self, forKey: .draft)
            approvalsRequired = try fields.decodeIfPresent(Int.self, forKey: .approvalsRequired)
            approvals = try fields.decodeIfPresent([String].self, forKey: .approvals) ?? []
            changesRequested = try fields.decodeIfPresent([String].self, forKey: .changesRequested) ?? []
            codeownersRequired = try fields.decodeIfPresent(Bool.self, forKey: .codeownersRequired)
            ownersOutstanding = try fields.decodeIfPresent([OwnersOutstanding].self, forKey: .ownersOutstanding) ?? []
            resolvedRequired = try fields.decodeIfPresent(Bool.self, forKey: .resolvedRequired)
            openThreads = try fields.decodeIfPresent(Int.self, forKey: .openThreads)
            checksRequired = try fields.decodeIfPresent(Bool.self, forKey: .checksRequired)
            checks = try fields.decodeIfPresent(String.self, forKey: .checks)
            checksMissing = try fields.decodeIfPresent([String].self, forKey: .checksMissing) ?? []
            fastForward = try fields.decodeIfPresent(Bool.self, forKey: .fastForward)
            unmet = try fields.decodeIfPresent([String].self, forKey: .unmet) ?? []
        }
    }

    public let discussion: Discussion
    public let draft: Bool
    /// `branch`, `owner/name:branch` from a fork, or empty.
    public let source: String
    public let targetRef: String?
    public let headSHA: String?
    public let reviewRequests: [String]
    public let stackedOn: StackEntry?
    public let stacked: [StackEntry]
    public let mergedAt: String?
    public let mergedBy: String?
    public let closedAt: String?
    public let closedBy: String?
    public let supersededBy: Int64?
    public let queued: Queue?
    public let checks: [Check]
    /// `failure`, `pending` or `success`; absent with no checks.
    public let checksCombined: String?
    /// Diff threads not resolved (their comments are not in `comments`).
    public let unresolvedThreads: Int?
    public let commits: [Commit]
    public let reviews: [Review]
    public let gates: Gates?

    public init(
        discussion: Discussion, draft: Bool = false, source: String = "", targetRef: String? = nil,
        headSHA: String? = nil, reviewRequests: [String] = [], stackedOn: StackEntry? = nil, stacked: [StackEntry] = [],
        mergedAt: String? = nil, mergedBy: String? = nil, closedAt: String? = nil, closedBy: String? = nil,
        supersededBy: Int64? = nil, queued: Queue? = nil, checks: [Check] = [], checksCombined: String? = nil,
        unresolvedThreads: Int? = nil, commits: [Commit] = [], reviews: [Review] = [], gates: Gates? = nil
    ) {
        self.discussion = discussion
        self.draft = draft
        self.source = source
        self.targetRef = targetRef
        self.headSHA = headSHA
        self.reviewRequests = reviewRequests
        self.stackedOn = stackedOn
        self.stacked = stacked
        self.mergedAt = mergedAt
        self.mergedBy = mergedBy
        self.closedAt = closedAt
        self.closedBy = closedBy
        self.supersededBy = supersededBy
        self.queued = queued
        self.checks = checks
        self.checksCombined = checksCombined
        self.unresolvedThreads = unresolvedThreads
        self.commits = commits
        self.reviews = reviews
        self.gates = gates
    }

    private enum CodingKeys: String, CodingKey {
        case draft, source, stacked, queued, checks, commits, reviews, gates
        case targetRef = "target_ref"
        case headSHA = "head_sha"
        case reviewRequests = "review_requests"
        case stackedOn = "stacked_on"
        case mergedAt = "merged_at"
        case mergedBy = "merged_by"
        case closedAt = "closed_at"
        case closedBy = "closed_by"
        case supersededBy = "superseded_by"
        case checksCombined = "checks_combined"
        case unresolvedThreads = "unresolved_threads"
    }

    public init(from decoder: any Decoder) throws {
        discussion = try Discussion(from: decoder.container(keyedBy: Discussion.CodingKeys.self))
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        draft = try fields.decodeIfPresent(Bool.self, forKey: .draft) ?? false
        source = try fields.decodeIfPresent(String.self, forKey: .source) ?? ""
        targetRef = try fields.decodeIfPresent(String.self, forKey: .targetRef)
        headSHA = try fields.decodeIfPresent(String.self, forKey: .headSHA)
        reviewRequests = try fields.decodeIfPresent([String].self, forKey: .reviewRequests) ?? []
        stackedOn = try fields.decodeIfPresent(StackEntry.self, forKey: .stackedOn)
        stacked = try fields.decodeIfPresent([StackEntry].self, forKey: .stacked) ?? []
        mergedAt = try fields.decodeIfPresent(String.self, forKey: .mergedAt)
        mergedBy = try fields.decodeIfPresent(String.self, forKey: .mergedBy)
        closedAt = try fields.decodeIfPresent(String.self, forKey: .closedAt)
        closedBy = try fields.decodeIfPresent(String.self, forKey: .closedBy)
        supersededBy = try fields.decodeIfPresent(Int64.self, forKey: .supersededBy)
        queued = try fields.decodeIfPresent(Queue.self, forKey: .queued)
        checks = try fields.decodeIfPresent([Check].self, forKey: .checks) ?? []
        checksCombined = try fields.decodeIfPresent(String.self, forKey: .checksCombined)
        unresolvedThreads = try fields.decodeIfPresent(Int.self, forKey: .unresolvedThreads)
        commits = try fields.decodeIfPresent([Commit].self, forKey: .commits) ?? []
        reviews = try fields.decodeIfPresent([Review].self, forKey: .reviews) ?? []
        gates = try fields.decodeIfPresent(Gates.self, forKey: .gates)
    }
}

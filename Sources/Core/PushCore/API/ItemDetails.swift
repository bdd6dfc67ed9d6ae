// The `data` of `issue show`, `mr show` and `build show` (gitbay-api.md, "Items"). Every field
// the contract calls optional, or omits until it applies, is optional or an empty list here;
// states, verdicts and check states stay strings, so a value a newer server adds is shown as
// it comes rather than failing the whole item. Unknown keys are ignored.

/// One of the three kinds of item, as read from its own instance.
public enum ItemDetails: Sendable, Equatable {
    case issue(IssueDetails)
    case mergeRequest(MergeRequestDetails)
    case build(BuildDetails)

    /// Decodes the answer to `GitbayCommand.show(destination)` as the destination's kind.
    /// The item's comments and system entries, oldest first; a build has none.
    public var comments: [ItemComment] {
        switch self {
        case .issue(let issue): issue.discussion.comments
        case .mergeRequest(let mr): mr.discussion.comments
        case .build: []
        }
    }

    public static func decode(_ result: APIResult, as kind: ItemKind) throws(APIDecodingError) -> ItemDetails {
        switch kind {
        case .issue: .issue(try result.decode(IssueDetails.self))
        case .mr: .mergeRequest(try result.decode(MergeRequestDetails.self))
        case .build: .build(try result.decode(BuildDetails.self))
        }
    }
}

/// A reaction an item or comment was given: only the kinds given at all are listed.
public struct Reaction: Sendable, Equatable, Decodable {
    /// The names gitbay knows (`internal/store`), in its order; an instance refuses any other.
    public static let names = ["+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes"]

    /// `+1 -1 laugh hooray confused heart rocket eyes`.
    public let reaction: String
    public let count: Int
    /// Whether the account itself gave one.
    public let me: Bool

    public init(reaction: String, count: Int, me: Bool) {
        self.reaction = reaction
        self.count = count
        self.me = me
    }
}

/// A comment or a system entry ("labelled bug"), oldest first.
public struct ItemComment: Sendable, Equatable, Decodable {
    public let id: Int64
    public let author: String
    public let body: String
    /// `md` or `org`; absent on system entries.
    public let bodyFormat: String?
    public let createdAt: String
    public let reactions: [Reaction]

    /// gitbay tells a system entry from a comment by its author alone.
    public var isSystem: Bool { author == "system" }

    public init(id: Int64, author: String, body: String, bodyFormat: String?, createdAt: String, reactions: [Reaction]) {
        self.id = id
        self.author = author
        self.body = body
        self.bodyFormat = bodyFormat
        self.createdAt = createdAt
        self.reactions = reactions
    }

    private enum CodingKeys: String, CodingKey {
        case id, author, body, reactions
        case bodyFormat = "body_format"
        case createdAt = "created_at"
    }

    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        id = try fields.decode(Int64.self, forKey: .id)
        author = try fields.decode(String.self, forKey: .author)
        body = try fields.decodeIfPresent(String.self, forKey: .body) ?? ""
        bodyFormat = try fields.decodeIfPresent(String.self, forKey: .bodyFormat)
        createdAt = try fields.decode(String.self, forKey: .createdAt)
        reactions = try fields.decodeIfPresent([Reaction].self, forKey: .reactions) ?? []
    }
}

/// What issues and merge requests share: the issue-like fields of the contract.
public struct Discussion: Sendable, Equatable {
    public let number: Int64
    public let title: String
    /// Issues: `open` or `closed`; merge requests also `merged` and `source_gone`.
    public let state: String
    public let author: String
    public let createdAt: String
    public let body: String
    /// `md` or `org`; absent with no body.
    public let bodyFormat: String?
    public let milestone: String?
    public let labels: [String]
    public let reactions: [Reaction]
    /// Comments and system entries, oldest first, all of them.
    public let comments: [ItemComment]

    public init(
        number: Int64, title: String, state: String, author: String, createdAt: String, body: String = "",
        bodyFormat: String? = nil, milestone: String? = nil, labels: [String] = [], reactions: [Reaction] = [],
        comments: [ItemComment] = []
    ) {
        self.number = number
        self.title = title
        self.state = state
        self.author = author
        self.createdAt = createdAt
        self.body = body
        self.bodyFormat = bodyFormat
        self.milestone = milestone
        self.labels = labels
        self.reactions = reactions
        self.comments = comments
    }

    enum CodingKeys: String, CodingKey {
        case number, title, state, author, body, milestone, labels, reactions, comments
        case createdAt = "created_at"
        case bodyFormat = "body_format"
    }

    init(from fields: KeyedDecodingContainer<CodingKeys>) throws {
        number = try fields.decode(Int64.self, forKey: .number)
        title = try fields.decode(String.self, forKey: .title)
        state = try fields.decode(String.self, forKey: .state)
        author = try fields.decode(String.self, forKey: .author)
        createdAt = try fields.decode(String.self, forKey: .createdAt)
        body = try fields.decodeIfPresent(String.self, forKey: .body) ?? ""
        bodyFormat = try fields.decodeIfPresent(String.self, forKey: .bodyFormat)
        milestone = try fields.decodeIfPresent(String.self, forKey: .milestone)
        labels = try fields.decodeIfPresent([String].self, forKey: .labels) ?? []
        reactions = try fields.decodeIfPresent([Reaction].self, forKey: .reactions) ?? []
        comments = try fields.decodeIfPresent([ItemComment].self, forKey: .comments) ?? []
    }
}

/// `issue show`.
public struct IssueDetails: Sendable, Equatable, Decodable {
    public let discussion: Discussion
    public let assignees: [String]

    public init(discussion: Discussion, assignees: [String] = []) {
        self.discussion = discussion
        self.assignees = assignees
    }

    private enum CodingKeys: String, CodingKey {
        case assignees
    }

    public init(from decoder: any Decoder) throws {
        discussion = try Discussion(from: decoder.container(keyedBy: Discussion.CodingKeys.self))
        assignees = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent([String].self, forKey: .assignees) ?? []
    }
}

/// `build show`.
public struct BuildDetails: Sendable, Equatable, Decodable {
    public let number: Int64
    public let job: String
    /// `pending`, `running`, `success`, `failure` or `cancelled`.
    public let status: String
    public let sha: String
    public let ref: String
    public let createdAt: String
    public let finishedAt: String?
    /// 1-based index into `steps`; absent when no step failed.
    public let failedStep: Int?
    public let failedReason: String?
    public let durationSeconds: Int64?
    /// The job's commands, in order.
    public let steps: [String]

    public init(
        number: Int64, job: String, status: String, sha: String, ref: String, createdAt: String,
        finishedAt: String? = nil, failedStep: Int? = nil, failedReason: String? = nil,
        durationSeconds: Int64? = nil, steps: [String]
    ) {
        self.number = number
        self.job = job
        self.status = status
        self.sha = sha
        self.ref = ref
        self.createdAt = createdAt
        self.finishedAt = finishedAt
        self.failedStep = failedStep
        self.failedReason = failedReason
        self.durationSeconds = durationSeconds
        self.steps = steps
    }

    private enum CodingKeys: String, CodingKey {
        case number, job, status, sha, ref, steps
        case createdAt = "created_at"
        case finishedAt = "finished_at"
        case failedStep = "failed_step"
        case failedReason = "failed_reason"
        case durationSeconds = "duration_s"
    }

    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        number = try fields.decode(Int64.self, forKey: .number)
        job = try fields.decode(String.self, forKey: .job)
        status = try fields.decode(String.self, forKey: .status)
        sha = try fields.decode(String.self, forKey: .sha)
        ref = try fields.decode(String.self, forKey: .ref)
        createdAt = try fields.decode(String.self, forKey: .createdAt)
        finishedAt = try fields.decodeIfPresent(String.self, forKey: .finishedAt)
        failedStep = try fields.decodeIfPresent(Int.self, forKey: .failedStep)
        failedReason = try fields.decodeIfPresent(String.self, forKey: .failedReason)
        durationSeconds = try fields.decodeIfPresent(Int64.self, forKey: .durationSeconds)
        steps = try fields.decodeIfPresent([String].self, forKey: .steps) ?? []
    }
}

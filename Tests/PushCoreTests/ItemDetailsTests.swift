import PushCore
import Testing

/// The item models, decoded from the contract's own examples through `APIResult`, with every
/// optional field present and absent.
@Suite struct ItemDetailsTests {
    static func success(_ data: String) -> APIResult {
        APIResult(status: 200, headers: [:], body: Array(#"{"protocol_version":1,"exit_code":0,"data":\#(data)}"#.utf8))
    }

    static let contractIssue = """
        {"assignees":["cmc"],"author":"alice","body":"Steps...","body_format":"md",\
        "comments":[{"author":"bob","body":"Reproduced.","body_format":"md","created_at":"2026-01-02T10:00:00.000Z","id":17,\
        "reactions":[{"count":1,"me":false,"reaction":"+1"}]},\
        {"author":"system","body":"labelled bug","created_at":"2026-01-02T10:01:00.000Z","id":18}],\
        "created_at":"2026-01-01T09:00:00.000Z","labels":["bug"],"milestone":"v1","number":42,\
        "reactions":[{"count":2,"me":true,"reaction":"heart"}],"state":"open","title":"Crash on empty repo"}
        """

    @Test func theContractsIssue() throws {
        let details = try ItemDetails.decode(Self.success(Self.contractIssue), as: .issue)
        guard case .issue(let issue) = details else { Issue.record("not an issue: \(details)"); return }
        #expect(issue.assignees == ["cmc"])
        let discussion = issue.discussion
        #expect(discussion.number == 42)
        #expect(discussion.title == "Crash on empty repo")
        #expect(discussion.state == "open")
        #expect(discussion.milestone == "v1")
        #expect(discussion.labels == ["bug"])
        #expect(discussion.reactions == [Reaction(reaction: "heart", count: 2, me: true)])
        #expect(discussion.comments.map(\.id) == [17, 18])
        #expect(discussion.comments.map(\.isSystem) == [false, true])
        #expect(discussion.comments[1].bodyFormat == nil)
        #expect(discussion.comments[0].reactions == [Reaction(reaction: "+1", count: 1, me: false)])
    }

    @Test func anIssueWithEveryOptionalFieldOmitted() throws {
        let details = try ItemDetails.decode(
            Self.success(#"{"author":"a","created_at":"2026-01-01T00:00:00.000Z","number":1,"state":"closed","title":"t"}"#),
            as: .issue)
        #expect(details == .issue(IssueDetails(discussion: Discussion(
            number: 1, title: "t", state: "closed", author: "a", createdAt: "2026-01-01T00:00:00.000Z"))))
    }

    @Test func theContractsMergeRequest() throws {
        let data = """
            {"author":"bob","checks":[{"context":"ci/test","duration":"1m12s","state":"success","updated_at":"x","url":"u"}],\
            "checks_combined":"success","commits":[{"sha":"0123","subject":"Fix"}],"created_at":"c","draft":true,\
            "gates":{"approvals":["bob"],"approvals_required":1,"changes_requested":[],"checks":"success",\
            "checks_missing":[],"checks_required":true,"codeowners_required":false,"draft":false,"fast_forward":true,\
            "open_threads":0,"owners_outstanding":[{"files":["a.go"],"owners":["krz"]}],"resolved_required":false,\
            "unmet":["needs 1 approval"]},"head_sha":"0123","number":31,\
            "queued":{"by":"alice","queued_at":"q","reason":"r","strategy":"ff"},"review_requests":["cmc"],\
            "reviews":[{"counts":true,"created_at":"r","reviewer":"bob","stale":false,"verdict":"approve"}],\
            "source":"owner/name:branch","stacked":[{"number":32,"title":"Top"}],"stacked_on":{"number":30,"title":"Base"},\
            "state":"open","superseded_by":12,"target_ref":"main","title":"Fix","unresolved_threads":2}
            """
        guard case .mergeRequest(let mr) = try ItemDetails.decode(Self.success(data), as: .mr) else {
            Issue.record("not a merge request")
            return
        }
        #expect(mr.discussion.number == 31)
        #expect(mr.draft)
        #expect(mr.source == "owner/name:branch")
        #expect(mr.targetRef == "main")
        #expect(mr.stackedOn == .init(number: 30, title: "Base"))
        #expect(mr.stacked == [.init(number: 32, title: "Top")])
        #expect(mr.supersededBy == 12)
        #expect(mr.queued == .init(by: "alice", strategy: "ff", reason: "r", queuedAt: "q"))
        #expect(mr.checks == [.init(context: "ci/test", state: "success", url: "u", updatedAt: "x", duration: "1m12s")])
        #expect(mr.checksCombined == "success")
        #expect(mr.unresolvedThreads == 2)
        #expect(mr.commits == [.init(sha: "0123", subject: "Fix")])
        #expect(mr.reviews == [.init(reviewer: "bob", verdict: "approve", stale: false, counts: true, createdAt: "r")])
        #expect(mr.gates?.approvalsRequired == 1)
        #expect(mr.gates?.ownersOutstanding == [.init(files: ["a.go"], owners: ["krz"])])
        #expect(mr.gates?.unmet == ["needs 1 approval"])
    }

    @Test func aMergedMergeRequestWithoutGatesStackingOrChecks() throws {
        let data = #"{"author":"b","created_at":"c","merged_at":"m","merged_by":"krz","number":3,"source":"","state":"merged","title":"t"}"#
        #expect(try ItemDetails.decode(Self.success(data), as: .mr) == .mergeRequest(MergeRequestDetails(
            discussion: Discussion(number: 3, title: "t", state: "merged", author: "b", createdAt: "c"),
            mergedAt: "m", mergedBy: "krz")))
    }

    @Test func theContractsBuildAndAPendingOne() throws {
        let failed = """
            {"created_at":"c","duration_s":72,"failed_reason":"exit 1","failed_step":2,"finished_at":"f","job":"test",\
            "number":431,"ref":"main","sha":"0123","status":"failure","steps":["go vet ./...","go test ./..."]}
            """
        #expect(try ItemDetails.decode(Self.success(failed), as: .build) == .build(BuildDetails(
            number: 431, job: "test", status: "failure", sha: "0123", ref: "main", createdAt: "c", finishedAt: "f",
            failedStep: 2, failedReason: "exit 1", durationSeconds: 72, steps: ["go vet ./...", "go test ./..."])))
        let pending = #"{"created_at":"c","job":"test","number":1,"ref":"main","sha":"0","status":"pending","steps":[]}"#
        #expect(try ItemDetails.decode(Self.success(pending), as: .build) == .build(BuildDetails(
            number: 1, job: "test", status: "pending", sha: "0", ref: "main", createdAt: "c", steps: [])))
    }

    @Test func statesANewerServerAddsAreKeptAsTheyCome() throws {
        let data = #"{"author":"a","created_at":"c","number":1,"state":"locked","title":"t"}"#
        guard case .issue(let issue) = try ItemDetails.decode(Self.success(data), as: .issue) else { return }
        #expect(issue.discussion.state == "locked")
    }

    @Test func aMissingRequiredFieldNamesIt() {
        #expect(throws: APIDecodingError.unexpectedShape(type: "IssueDetails", detail: "data.title: missing")) {
            try ItemDetails.decode(Self.success(#"{"author":"a","created_at":"c","number":1,"state":"open"}"#), as: .issue)
        }
        #expect(throws: APIDecodingError.self) {
            try ItemDetails.decode(Self.success(#"{"number":"1"}"#), as: .build)
        }
    }

    @Test func aFailedAnswerIsNotDecoded() {
        let notFound = APIResult(
            status: 404, headers: [:],
            body: Array(#"{"protocol_version":1,"exit_code":3,"error":"issue #4 not found in krz/gitbay"}"#.utf8))
        #expect(throws: APIDecodingError.notSuccess(notFound)) { try ItemDetails.decode(notFound, as: .issue) }
    }

    @Test func dataJSONIsTheDataAsGitbaySendsIt() throws {
        #expect(String(decoding: try Self.success(Self.contractIssue).dataJSON(), as: UTF8.self) == Self.contractIssue)
        #expect(String(decoding: try Self.success(#"[{"b":1,"a":[true,null,"x\n"]}]"#).dataJSON(), as: UTF8.self)
            == #"[{"a":[true,null,"x\n"],"b":1}]"#)
        let busy = APIResult(status: 503, headers: [:], body: [])
        #expect(throws: APIDecodingError.notSuccess(busy)) { try busy.dataJSON() }
    }

    @Test(arguments: ["https://gitbay.org", "https://example.com/git", "http://127.0.0.1:8417", "http://[::1]:3000/a/b"])
    func anAccountsReferenceFindsItAgain(_ url: String) throws {
        let instance = try GitbayInstance(parsing: url)
        let account = try Account(instance: instance, username: "cmc")
        let others = [
            try Account(instance: instance, username: "alice"),
            try Account(instance: GitbayInstance(parsing: "https://other.example"), username: "cmc"),
        ]
        #expect(try AccountReference(parsing: account.reference).resolve(among: others + [account]) == account)
    }
}

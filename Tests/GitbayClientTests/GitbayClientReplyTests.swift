import Curl
import Foundation
import GitbayClient
import PushCore
import TestSupport
import Testing

/// Comments and reactions against the stand-in over real HTTP: a comment is sent once and
/// never again, whatever happens to its connection or its answer, and each refusal is told.
@Suite struct GitbayClientReplyTests {
    static let issue = NotificationDestination(path: "krz/gitbay/issues/12")!
    static func now() -> Double { Date().timeIntervalSince1970 }

    /// A stand-in with `cmc` (a token of `scope`) and issue krz/gitbay#12; its client on a
    /// session of its own, so that its kept connection is its own.
    private func world(scope: Standin.TokenScope = .full) async throws -> (Standin, GitbayClient) {
        let standin = try await Standin.start()
        let token = try await standin.addUserWithToken("cmc", scope: scope)
        try await standin.addItem(.issue, repo: "krz/gitbay", data: #"{"number": 12, "title": "Crash", "state": "open", "author": "alice"}"#)
        let client = try GitbayClient(
            instance: standin.instance, token: APIToken(token), options: GitbayClient.Options(overallTimeout: .seconds(3)),
            session: HTTPSession())
        return (standin, client)
    }

    private func comments(_ client: GitbayClient) async throws -> [ItemComment] {
        try ItemDetails.decode(try await client.send(.show(Self.issue)), as: .issue).comments
    }

    private func commentRequests(_ standin: Standin) async throws -> [Standin.LoggedRequest] {
        try await standin.requests().filter { $0.argv?.starts(with: ["issue", "comment"]) == true }
    }

    @Test func aCommentIsPostedOnceWithItsTextAsStandardInput() async throws {
        let (standin, client) = try await world()
        let text = "Looks good.\nShip it \"now\" — ✓"

        let report = await client.postComment(try CommentText(text), on: Self.issue, as: "cmc", now: Self.now)

        #expect(report == .posted)
        #expect(try await comments(client).map(\.body) == [text])
        let sent = try await commentRequests(standin)
        #expect(sent.map(\.argv) == [["issue", "comment", "krz/gitbay", "12", "--file", "-"]])
        #expect(sent.map(\.stdin) == [text])
        await standin.stop()
    }

    @Test func aCommentThroughTheHTTP2FrontIsPostedOnce() async throws {
        let standin = try await Standin.start()
        let front = try await HTTP2Front.start(backendPort: standin.port)
        let token = try await standin.addUserWithToken("cmc")
        try await standin.addItem(.mr, repo: "krz/gitbay", data: #"{"number": 7, "title": "Fix", "state": "open", "author": "alice"}"#)
        let client = GitbayClient(
            instance: try GitbayInstance(parsing: front.url), token: try APIToken(token),
            options: GitbayClient.Options(caFile: front.caFile), session: HTTPSession())
        let mr = NotificationDestination(path: "krz/gitbay/mrs/7")!
        _ = try await client.send(.whoami)

        let report = await client.postComment(try CommentText("Over h2."), on: mr, as: "cmc", now: Self.now)

        #expect(report == .posted)
        #expect(try await standin.requests().filter { $0.argv?.starts(with: ["mr", "comment"]) == true }.count == 1)
        #expect(front.requests().contains { $0.method == "POST" && $0.alpn == "h2" && $0.status == 200 })
        await front.stop()
        await standin.stop()
    }

    /// The server reads the comment on the kept connection and drops it unanswered: libcurl
    /// would send it again on its own (CurlConnectionTests); here it goes on a connection of its
    /// own, once, and the thread read afterwards says it was not posted.
    @Test func aDroppedConnectionAfterTheRequestIsNotResentAndTheThreadTells() async throws {
        let (standin, client) = try await world()
        _ = try await client.send(.whoami)
        try await standin.addFault(.init(.close, match: .init(argvPrefix: ["issue", "comment"])))

        let report = await client.postComment(try CommentText("Once only."), on: Self.issue, as: "cmc", now: Self.now)

        guard case .notPosted(.lostAndNotInThread) = report else { Issue.record("\(report)"); return }
        #expect(try await commentRequests(standin).count == 1)
        #expect(try await comments(client).isEmpty)
        let logged = try await standin.requests()
        #expect(logged[0].connection != logged[1].connection)
        await standin.stop()
    }

    /// The server posts the comment and its answer is cut: the thread has it, so "posted".
    @Test func anAnswerLostAfterTheServerPostedIsFoundInTheThread() async throws {
        let (standin, client) = try await world()
        try await standin.addFault(.init(.truncate(bytes: 0), match: .init(argvPrefix: ["issue", "comment"])))

        let report = await client.postComment(try CommentText("Posted, unheard."), on: Self.issue, as: "cmc", now: Self.now)

        guard case .postedUnanswered = report else { Issue.record("\(report)"); return }
        #expect(try await comments(client).map(\.body) == ["Posted, unheard."])
        #expect(try await commentRequests(standin).count == 1)
        await standin.stop()
    }

    /// No answer within the time: not sent again; the thread says it is not there.
    @Test func aTimedOutCommentIsNotResentAndTheThreadTells() async throws {
        let (standin, client) = try await world()
        try await standin.addFault(.init(.stall, match: .init(argvPrefix: ["issue", "comment"])))

        let report = await client.postComment(try CommentText("Slow."), on: Self.issue, as: "cmc", now: Self.now)

        guard case .notPosted(.lostAndNotInThread(let reason)) = report else { Issue.record("\(report)"); return }
        #expect(reason.contains("did not answer in time"))
        #expect(try await commentRequests(standin).count == 1)
        try await standin.clearFaults()
        await standin.stop()
    }

    @Test func anUnreachableInstanceIsNotPostedAndSafeToSendAgain() async throws {
        let port = try BoundButNotListeningPort()
        let client = GitbayClient(
            instance: try GitbayInstance(parsing: "http://127.0.0.1:\(port.number)"), token: try APIToken("gb_" + String(repeating: "a", count: 40)),
            session: HTTPSession())

        let report = await client.postComment(try CommentText("Offline."), on: Self.issue, as: "cmc", now: Self.now)

        guard case .notPosted(.offline) = report else { Issue.record("\(report)"); return }
    }

    @Test func eachRefusalIsNotPostedWithItsReason() async throws {
        let (standin, client) = try await world()
        let text = try CommentText("Refused.")

        try await standin.addRepository("krz/archived", archived: true)
        try await standin.addItem(.issue, repo: "krz/archived", data: #"{"number": 1, "title": "Old", "state": "open", "author": "alice"}"#)
        let archived = await client.postComment(text, on: NotificationDestination(path: "krz/archived/issues/1")!, as: "cmc", now: Self.now)
        #expect(archived == .notPosted(.denied("repository krz/archived is archived")))

        let missing = await client.postComment(text, on: NotificationDestination(path: "krz/gitbay/issues/99")!, as: "cmc", now: Self.now)
        #expect(missing == .notPosted(.notFound("issue #99 not found in krz/gitbay")))

        try await standin.configure(.init(writesPerMinute: 0))
        let tooMany = await client.postComment(text, on: Self.issue, as: "cmc", now: Self.now)
        guard case .notPosted(.tooManyWrites) = tooMany else { Issue.record("\(tooMany)"); return }
        try await standin.configure(.init(writeBurst: 0, writesPerMinute: 60))
        let limited = await client.postComment(text, on: Self.issue, as: "cmc", now: Self.now)
        // A 429 carries its Retry-After; the write limiter's 403 none.
        guard case .notPosted(.tooManyWrites(retryAfter: let seconds?)) = limited, seconds >= 1 else { Issue.record("\(limited)"); return }

        #expect(try await comments(client).isEmpty)
        await standin.stop()
    }

    @Test func aReadOnlyOrRevokedTokenIsNotPosted() async throws {
        let (standin, readOnly) = try await world(scope: .read)
        let text = try CommentText("Nope.")
        guard case .notPosted(.readOnlyToken) = await readOnly.postComment(text, on: Self.issue, as: "cmc", now: Self.now) else {
            Issue.record("a read-only token posted"); return
        }
        let revoked = try GitbayClient(
            instance: standin.instance, token: APIToken("gb_" + String(repeating: "0", count: 40)), session: HTTPSession())
        #expect(await revoked.postComment(text, on: Self.issue, as: "cmc", now: Self.now) == .notPosted(.tokenRejected("invalid or expired token")))
        await standin.stop()
    }

    @Test func aReactionIsSetAndTakenBack() async throws {
        let (standin, client) = try await world()

        let set = try await client.send(.react(Self.issue, reaction: "+1", remove: false))
        let shown = try ItemDetails.decode(try await client.send(.show(Self.issue)), as: .issue)
        let removed = try await client.send(.react(Self.issue, reaction: "+1", remove: true))
        let after = try ItemDetails.decode(try await client.send(.show(Self.issue)), as: .issue)

        #expect(try set.decode(ReactionResult.self) == ReactionResult(reaction: "+1", removed: false))
        guard case .issue(let issue) = shown, case .issue(let issueAfter) = after else { Issue.record("not an issue"); return }
        #expect(issue.discussion.reactions == [Reaction(reaction: "+1", count: 1, me: true)])
        #expect(try removed.decode(ReactionResult.self) == ReactionResult(reaction: "+1", removed: true))
        #expect(issueAfter.discussion.reactions.isEmpty)
        let unknown = try await client.send(.react(Self.issue, reaction: "tada", remove: false))
        guard case .badRequest(let message) = unknown else { Issue.record("\(unknown)"); return }
        #expect(message.hasPrefix(#"unknown reaction "tada"; one of +1"#))
        await standin.stop()
    }
}

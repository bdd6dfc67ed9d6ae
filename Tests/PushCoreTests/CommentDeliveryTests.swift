import Foundation
import PushCore
import Testing

/// The reply's text, and what may be sent again: decided without a socket.
@Suite struct CommentDeliveryTests {
    static let issue = NotificationDestination(path: "krz/gitbay/issues/12")!

    @Test func aTextUpToTheLimitIsTakenAndOneByteMoreIsRefusedNamingIt() throws {
        let full = String(repeating: "é", count: CommentText.maximumBytes / 2)
        #expect(try CommentText(full).text == full)
        #expect(throws: CommentTextError.tooLong(bytes: 65_537)) { try CommentText(full + "x") }
        #expect(CommentTextError.tooLong(bytes: 65_537).description.contains("65536 bytes (64 KiB)"))
    }

    @Test(arguments: ["", " ", "\n\t \n"])
    func anEmptyOrBlankTextIsRefused(_ text: String) {
        #expect(throws: CommentTextError.empty) { try CommentText(text) }
    }

    @Test func theEditorsCommentLinesAreDroppedAndTheEndsTrimmed() {
        let edited = "\n\nLooks good.  \n#not this\n\n  Indented stays.\n# Your reply\n\n"
        #expect(CommentText.fromEditor(edited) == "Looks good.\n\n  Indented stays.")
        #expect(CommentText.fromEditor("a # in the line stays\n") == "a # in the line stays")
    }

    @Test func anUntouchedTemplateCancels() {
        let template = CommentText.editorTemplate(for: Self.issue, account: "cmc@gitbay.org")
        #expect(template.contains("krz/gitbay#12"))
        #expect(CommentText.fromEditor(template) == nil)
        #expect(CommentText.fromEditor("\n  \n") == nil)
        #expect(CommentText.fromEditor(CommentText.editorTemplate(for: Self.issue, account: "cmc", draft: "kept")) == "kept")
    }

    @Test(arguments: [
        (WriteAttempt.answered(.success(data: [], etag: nil)), CommentDelivery.posted),
        (.neverSent(reason: "no route"), .notPosted(.offline("no route"))),
        (.answered(.unauthorized(message: "invalid or expired token")), .notPosted(.tokenRejected("invalid or expired token"))),
        (.answered(.readOnlyToken(message: "ro")), .notPosted(.readOnlyToken("ro"))),
        (.answered(.forbidden(message: "repository krz/gitbay is archived")), .notPosted(.denied("repository krz/gitbay is archived"))),
        (.answered(.tooManyWrites(retryAfter: nil)), .notPosted(.tooManyWrites(retryAfter: nil))),
        (.answered(.rateLimited(retryAfter: 7)), .notPosted(.tooManyWrites(retryAfter: 7))),
        (.answered(.notFound(message: "issue #12 not found in krz/gitbay")), .notPosted(.notFound("issue #12 not found in krz/gitbay"))),
        (.answered(.badRequest(message: "empty comment")), .notPosted(.refused("empty comment"))),
        (.answerLost(reason: "timed out"), .checkThread(reason: "timed out")),
    ])
    func whatAnAttemptCameTo(_ attempt: WriteAttempt, _ delivery: CommentDelivery) {
        #expect(CommentDelivery(attempt) == delivery)
    }

    /// Only what the server surely did not post may go again; a lost answer or a failure a
    /// proxy may have made after the server ran the command never does.
    @Test func onlyWhatWasNotPostedMayBeSentAgain() {
        func maySendAgain(_ attempt: WriteAttempt) -> Bool {
            if case .notPosted = CommentDelivery(attempt) { true } else { false }
        }
        #expect(maySendAgain(.neverSent(reason: "x")))
        #expect(maySendAgain(.answered(.rateLimited(retryAfter: 1))))
        #expect(!maySendAgain(.answerLost(reason: "x")))
        #expect(!maySendAgain(.answered(.serverError(status: 502, message: "bad gateway"))))
        #expect(!maySendAgain(.answered(.busy(retryAfter: 60))))
        #expect(!maySendAgain(.answered(.success(data: [], etag: nil))))
    }

    static func comment(_ author: String, _ body: String, at time: String) -> ItemComment {
        ItemComment(id: 1, author: author, body: body, bodyFormat: "md", createdAt: time, reactions: [])
    }

    @Test func theThreadHoldsTheTextByThisAccountSinceItWasSent() {
        let sentAt = GitbayTime.seconds(since1970: "2026-09-20T12:00:00.000Z")!
        let mine = Self.comment("cmc", "Looks good.\n", at: "2026-09-20T12:00:01.250Z")
        #expect(ThreadCheck.holds("Looks good.", by: "cmc", sentAt: sentAt, in: [mine]))
        #expect(!ThreadCheck.holds("Looks good.", by: "bob", sentAt: sentAt, in: [mine]))
        #expect(!ThreadCheck.holds("Looks bad.", by: "cmc", sentAt: sentAt, in: [mine]))
        #expect(!ThreadCheck.holds("Looks good.", by: "cmc", sentAt: sentAt, in: []))
        // Long before it was sent: the same words said another day.
        let old = Self.comment("cmc", "Looks good.", at: "2026-09-19T12:00:00.000Z")
        #expect(!ThreadCheck.holds("Looks good.", by: "cmc", sentAt: sentAt, in: [old]))
        // A server clock a few minutes behind.
        let behind = Self.comment("cmc", "Looks good.", at: "2026-09-20T11:55:00.000Z")
        #expect(ThreadCheck.holds("Looks good.", by: "cmc", sentAt: sentAt, in: [behind]))
    }

    /// A draft keeps why in English (`reason`, what an older gbnotify reads) beside the value;
    /// one an older gbnotify kept has only the English, which is then what is said.
    @Test func aDraftKeepsWhyAsAValueAndInEnglish() throws {
        let cmc = try Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc")
        let draft = DraftRecord.Draft(account: cmc, path: "krz/gitbay/issues/12", text: "t", savedAt: 1, failure: .notPosted(.offline("timeout")))
        #expect(draft.reason == "the instance could not be reached (timeout)")
        var fields = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(draft)) as? [String: Any])
        #expect(try JSONDecoder().decode(DraftRecord.Draft.self, from: JSONSerialization.data(withJSONObject: fields)) == draft)
        fields["failure"] = nil
        let older = try JSONDecoder().decode(DraftRecord.Draft.self, from: JSONSerialization.data(withJSONObject: fields))
        #expect(older.failure == nil)
        #expect(older.spokenReason == "the instance could not be reached (timeout)")
    }

    @Test func draftsAreOnePerItemAndBounded() throws {
        let cmc = try Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc")
        var record = DraftRecord()
        let first = record.keep(.init(account: cmc, path: "krz/gitbay/issues/12", text: "one", savedAt: 1, failure: .notPosted(.offline("offline"))))
        #expect(first)
        let second = record.keep(.init(account: cmc, path: "krz/gitbay/issues/12", text: "two", savedAt: 2, failure: .notPosted(.offline("offline"))))
        #expect(second)
        #expect(record.drafts.map(\.text) == ["two"])
        #expect(record.draft(of: cmc, for: "krz/gitbay/issues/12")?.text == "two")
        for number in 1..<DraftRecord.maximumDrafts {
            let kept = record.keep(.init(account: cmc, path: "krz/gitbay/mrs/\(number)", text: "t", savedAt: 3, failure: .answered("r")))
            #expect(kept)
        }
        let full = record.keep(.init(account: cmc, path: "krz/gitbay/issues/13", text: "lost?", savedAt: 4, failure: .answered("r")))
        #expect(!full)
        #expect(record.isUsable)
        record.drop(of: cmc, for: "krz/gitbay/issues/12")
        #expect(record.draft(of: cmc, for: "krz/gitbay/issues/12") == nil)
    }
}

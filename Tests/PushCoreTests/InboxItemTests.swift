import FoundationEssentials
import PushCore
import Testing

@Suite struct InboxItemTests {
    static let unreadRow = """
        {"id": 42, "repo": "krz/gitbay", "kind": "issue", "actor": "cmc",
         "summary": "opened issue #12", "path": "krz/gitbay/issues/12",
         "created_at": "2026-09-20T10:11:12.123Z"}
        """
    static let readRow = """
        {"id": 41, "repo": "krz/gitbay", "kind": "mr", "actor": "alice",
         "summary": "merged !3", "path": "krz/gitbay/mrs/3",
         "created_at": "2026-09-19T08:00:00.000Z", "read_at": "2026-09-19T09:00:00.000Z"}
        """
    static let unread = InboxItem(
        id: 42, repo: "krz/gitbay", kind: .issue, actor: "cmc", summary: "opened issue #12",
        path: "krz/gitbay/issues/12", createdAt: "2026-09-20T10:11:12.123Z", readAt: nil)
    static let read = InboxItem(
        id: 41, repo: "krz/gitbay", kind: .mr, actor: "alice", summary: "merged !3",
        path: "krz/gitbay/mrs/3", createdAt: "2026-09-19T08:00:00.000Z", readAt: "2026-09-19T09:00:00.000Z")

    static func page(_ json: String) throws -> InboxPage {
        try JSONDecoder().decode(InboxPage.self, from: Data(json.utf8))
    }

    @Test(arguments: [
        ("[\(unreadRow), \(readRow)]", [unread, read], nil as String?),
        ("[]", [], nil),
        (#"{"items": [\#(unreadRow), \#(readRow)], "next": "c2Vlaw=="}"#, [unread, read], "c2Vlaw=="),
        (#"{"items": [\#(readRow)]}"#, [read], nil),
        (#"{"items": [\#(readRow)], "next": null}"#, [read], nil),
        (#"{"items": [], "next": "opaque"}"#, [], "opaque"),
        (#"{"items": [\#(unreadRow)], "next": "x", "total": 9}"#, [unread], "x"),
    ])
    func decodesBothShapes(_ json: String, _ items: [InboxItem], _ next: String?) throws {
        let page = try Self.page(json)
        #expect(page == InboxPage(items: items, next: next))
    }

    @Test(arguments: [
        (#""kind": "discussion","#, nil as ItemKind?),
        (#""kind": "ISSUE","#, nil),
        (#""kind": null,"#, nil),
        ("", nil),
        (#""kind": "build","#, .build),
    ])
    func unknownKindIsNilNotAFailure(_ kindMember: String, _ kind: ItemKind?) throws {
        let row = #"{"id": 7, "repo": "o/r", \#(kindMember) "actor": "a", "summary": "s", "path": "o/r/x", "created_at": "t"}"#
        let page = try Self.page("[\(row)]")
        #expect(page.items.map(\.kind) == [kind])
        #expect(page.items.map(\.id) == [7])
    }

    @Test(arguments: [
        // The second row is broken in a different way each time.
        #"{"id": "43", "repo": "o/r", "kind": "issue", "actor": "a", "summary": "s", "path": "p", "created_at": "t"}"#,
        #"{"id": 1.5, "repo": "o/r", "kind": "issue", "actor": "a", "summary": "s", "path": "p", "created_at": "t"}"#,
        #"{"repo": "o/r", "kind": "issue", "actor": "a", "summary": "s", "path": "p", "created_at": "t"}"#,
        #"{"id": 43, "repo": "o/r", "kind": "issue", "actor": "a", "path": "p", "created_at": "t"}"#,
        #"{"id": 43, "repo": "o/r", "kind": 5, "actor": "a", "summary": "s", "path": "p", "created_at": "t"}"#,
        #"{"id": 43, "repo": "o/r", "kind": "issue", "actor": "a", "summary": "s", "path": "p", "created_at": "t", "read_at": 5}"#,
        #"{"id": 43, "repo": null, "kind": "issue", "actor": "a", "summary": "s", "path": "p", "created_at": "t"}"#,
        #"[43]"#,
        #""row""#,
    ])
    func malformedRowFailsTheWholePage(_ badRow: String) {
        #expect(throws: DecodingError.self) { try Self.page("[\(Self.unreadRow), \(badRow)]") }
        #expect(throws: DecodingError.self) { try Self.page(#"{"items": [\#(Self.unreadRow), \#(badRow)]}"#) }
    }

    @Test(arguments: [#""text""#, "42", "null", #"{"next": "x"}"#, #"{"items": {}}"#, #"{"items": [], "next": 5}"#])
    func otherShapesFail(_ json: String) {
        #expect(throws: DecodingError.self) { try Self.page(json) }
    }

    @Test func throughTheEnvelopeTheErrorNamesTheRow() throws {
        let body = #"{"protocol_version": 1, "exit_code": 0, "data": [\#(Self.unreadRow), {"id": 43}]}"#
        let result = APIResult(status: 200, headers: [:], body: Array(body.utf8))
        #expect(throws: APIDecodingError.unexpectedShape(type: "InboxPage", detail: "data[1].repo: missing")) {
            try result.decode(InboxPage.self)
        }
    }

    @Test func throughTheEnvelopeAPageDecodes() throws {
        let body = #"{"protocol_version": 1, "exit_code": 0, "data": {"items": [\#(Self.readRow)], "next": "n"}}"#
        let result = APIResult(status: 200, headers: ["etag": #""0123456789abcdef0123456789abcdef""#], body: Array(body.utf8))
        #expect(try result.decode(InboxPage.self) == InboxPage(items: [Self.read], next: "n"))
    }
}

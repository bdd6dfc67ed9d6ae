import FoundationEssentials
import PushCore
import Testing

@Suite struct APIResultTests {
    static let etag = #""0123456789abcdef0123456789abcdef""#

    static func result(_ status: Int, _ body: String, headers: [String: String] = [:]) -> APIResult {
        APIResult(status: status, headers: headers, body: Array(body.utf8))
    }

    static func envelope(exitCode: Int, error: String) -> String {
        #"{"protocol_version":1,"exit_code":\#(exitCode),"error":"\#(error)"}"#
    }

    // MARK: - Success and 304

    static let okBody = #"{"protocol_version":1,"exit_code":0,"data":1}"#

    @Test func successKeepsTheBodyAndETag() throws {
        let body = #"{"protocol_version": 1, "exit_code": 0, "data": {"username": "cmc", "admin": false, "key_scope": "full"}}"#
        let result = Self.result(200, body, headers: ["etag": Self.etag, "cache-control": "private, no-cache"])
        #expect(result == .success(data: Array(body.utf8), etag: Self.etag))
        #expect(try result.decode(Whoami.self) == Whoami(username: "cmc", admin: false, keyScope: "full"))
        #expect(result.retryAfter == nil)
    }

    @Test(arguments: [
        #"{"protocol_version":1,"exit_code":0,"data":[3,1,2]}"#,
        #"{"protocol_version":1,"data":[3,1,2]}"#,
        #"{"protocol_version":1,"exit_code":0,"data":[3,1,2],"stderr":"warning: slow"}"#,
        #"{"exit_code":0,"protocol_version":1,"data":[3,1,2],"output":"ignored"}"#,
    ])
    func successDecodesTheEnvelopesData(_ body: String) throws {
        let result = Self.result(200, body)
        #expect(result == .success(data: Array(body.utf8), etag: nil))
        #expect(try result.decode([Int].self) == [3, 1, 2])
    }

    @Test func successDataMayBeAnyJSON() throws {
        #expect(try Self.result(200, #"{"protocol_version":1,"exit_code":0,"data":"café \"x\"\n"}"#).decode(String.self) == "café \"x\"\n")
        #expect(try Self.result(200, #"{"protocol_version":1,"exit_code":0,"data":null}"#).decode(Int?.self) == nil)
        #expect(try Self.result(200, #"{"protocol_version":1,"exit_code":0,"data":true}"#).decode(Bool.self))
    }

    @Test func successWithoutDataHasNothingToDecode() {
        let result = Self.result(200, #"{"protocol_version":1,"exit_code":0}"#)
        #expect(throws: APIDecodingError.unexpectedShape(type: "Int", detail: "data: missing")) { try result.decode(Int.self) }
    }

    @Test func wrappedOutputDecodesAsAString() throws {
        let result = Self.result(200, #"{"protocol_version":1,"output":"line \"one\"\n","exit_code":0}"#)
        #expect(try result.decode(String.self) == "line \"one\"\n")
        #expect(throws: APIDecodingError.unexpectedShape(type: "Whoami", detail: "output: expected Dictionary<String, Any>")) {
            try result.decode(Whoami.self)
        }
    }

    @Test(arguments: [
        #"W/"0123456789abcdef0123456789abcdef""#,
        #""a""#,
    ])
    func etagIsKeptVerbatim(_ etag: String) {
        #expect(Self.result(200, Self.okBody, headers: ["etag": etag]) == .success(data: Array(Self.okBody.utf8), etag: etag))
    }

    @Test(arguments: ["", "\"abc\"\r\nX-Injected: 1", "\"a b\"", "\"é\"", String(repeating: "a", count: 257)])
    func unusableETagIsDropped(_ etag: String) {
        #expect(Self.result(200, Self.okBody, headers: ["etag": etag]) == .success(data: Array(Self.okBody.utf8), etag: nil))
        #expect(Self.result(304, "", headers: ["etag": etag]) == .notModified(etag: nil))
    }

    @Test(arguments: ["", "ignored", #"{"protocol_version":1}"#])
    func notModifiedIgnoresTheBody(_ body: String) {
        #expect(Self.result(304, body, headers: ["etag": Self.etag]) == .notModified(etag: Self.etag))
        #expect(Self.result(304, body) == .notModified(etag: nil))
    }

    // MARK: - The special answers

    @Test(arguments: [
        (#"{"protocol_version":1,"error":"missing bearer token; mint one over SSH: token create --name <n>"}"#,
         "missing bearer token; mint one over SSH: token create --name <n>"),
        (#"{"protocol_version":1,"error":"invalid or expired token"}"#, "invalid or expired token"),
        ("<html>401 Authorization Required</html>", "the server rejected the token (HTTP 401)"),
        ("", "the server rejected the token (HTTP 401)"),
        (#"{"protocol_version":1}"#, "the server rejected the token (HTTP 401)"),
    ])
    func unauthorized(_ body: String, _ message: String) {
        let result = Self.result(401, body, headers: ["www-authenticate": #"Bearer realm="gitbay api""#])
        #expect(result == .unauthorized(message: message))
    }

    @Test func readOnlyToken() {
        let error = "this token is read-only; mint a full-scope token to register devices"
        let result = Self.result(403, Self.envelope(exitCode: 4, error: error))
        #expect(result == .readOnlyToken(message: error))
    }

    @Test(arguments: [(nil as String?, nil as Int?), ("30", 30), ("0", 1), ("junk", nil), ("7200", 3600)])
    func tooManyWritesIsARateLimit(_ retryAfterHeader: String?, _ retryAfter: Int?) {
        let headers = retryAfterHeader.map { ["retry-after": $0] } ?? [:]
        let result = Self.result(403, Self.envelope(exitCode: 4, error: "too many writes; slow down"), headers: headers)
        #expect(result == .tooManyWrites(retryAfter: retryAfter))
        #expect(result.retryAfter == retryAfter)
    }

    @Test(arguments: [
        "permission denied: not a member of krz/gitbay",
        "This token is read-only",  // the special answers match exactly, case included
        "Too many writes",
        "token is read-only",
    ])
    func otherForbidden(_ error: String) {
        #expect(Self.result(403, Self.envelope(exitCode: 4, error: error)) == .forbidden(message: error))
    }

    @Test(arguments: [
        (nil as String?, 1), ("5", 5), (" 7 ", 7), ("0", 1), ("1", 1), ("3600", 3600), ("3601", 3600),
        ("99999", 3600), ("99999999999999999999999999", 3600), ("-3", 1), ("1.5", 1), ("", 1), ("soon", 1),
        ("Wed, 21 Oct 2026 07:28:00 GMT", 1), ("5s", 1), ("+5", 1),
    ])
    func rateLimited(_ header: String?, _ retryAfter: Int) {
        let headers = header.map { ["retry-after": $0] } ?? [:]
        let result = Self.result(429, Self.envelope(exitCode: 1, error: "rate limited; retry in 5s"), headers: headers)
        #expect(result == .rateLimited(retryAfter: retryAfter))
        #expect(result.retryAfter == retryAfter)
    }

    @Test(arguments: [
        (nil as String?, 60), ("60", 60), ("120", 120), ("0", 1), ("100000", 3600), ("later", 60), ("", 60),
    ])
    func busy(_ header: String?, _ retryAfter: Int) {
        let headers = header.map { ["retry-after": $0] } ?? [:]
        for body in ["", "<html>Service Unavailable</html>", Self.envelope(exitCode: 1, error: "busy")] {
            let result = Self.result(503, body, headers: headers)
            #expect(result == .busy(retryAfter: retryAfter))
            #expect(result.retryAfter == retryAfter)
        }
    }

    @Test func pushUnavailable() {
        let error = "this instance does not send push notifications ([push] enabled = false); ask an admin"
        let result = Self.result(500, Self.envelope(exitCode: 1, error: error))
        #expect(result == .pushUnavailable(message: error))
    }

    // MARK: - The status mapping

    @Test(arguments: [
        (400, 2, "argv is required", APIResult.badRequest(message: "argv is required")),
        (400, 2, "notifications read changes state; POST it to /api/v1/cmd",
         .badRequest(message: "notifications read changes state; POST it to /api/v1/cmd")),
        (404, 3, "unknown command frobnicate", .notFound(message: "unknown command frobnicate")),
        (404, 3, "no such device; see notifications device list", .notFound(message: "no such device; see notifications device list")),
        (500, 1, "database is locked", .serverError(status: 500, message: "database is locked")),
        (500, 70, "internal error", .serverError(status: 500, message: "internal error")),
        (413, 2, "body too large", .serverError(status: 413, message: "body too large")),
    ])
    func statusMapping(_ status: Int, _ exitCode: Int, _ error: String, _ expected: APIResult) {
        #expect(Self.result(status, Self.envelope(exitCode: exitCode, error: error)) == expected)
    }

    @Test func wrappedOutputOfAFailureIsItsMessage() {
        let body = #"{"protocol_version":1,"output":"usage: notifications read ID... | --all\n","exit_code":2}"#
        #expect(Self.result(400, body) == .badRequest(message: "usage: notifications read ID... | --all "))
    }

    @Test(arguments: [(400, "HTTP 400, exit code 2 with no error message"), (500, "HTTP 500, exit code 2 with no error message")])
    func failureWithoutMessage(_ status: Int, _ message: String) {
        let result = Self.result(status, #"{"protocol_version":1,"exit_code":2}"#)
        #expect(result.description.hasSuffix(message))
    }

    @Test func successStatusWithFailedExitCodeIsAServerError() {
        #expect(Self.result(200, Self.envelope(exitCode: 3, error: "no such device"))
            == .serverError(status: 200, message: "HTTP 200 with a failed command: no such device"))
    }

    // MARK: - Bodies that are not gitbay's

    @Test(arguments: [
        (200, "", "the server answered HTTP 200 with an empty body"),
        (200, "<html>hello</html>", "the server answered HTTP 200 with a body that is not JSON"),
        (200, #"{"username":"cmc"}"#, "the server answered HTTP 200 with JSON that is not a gitbay reply"),
        (200, #"{"protocol_version":"1","exit_code":0,"data":1}"#, "the server answered HTTP 200 with JSON that is not a gitbay reply"),
        (200, "[1,2]", "the server answered HTTP 200 with JSON that is not a gitbay reply"),
        (502, "<html><body>Bad Gateway</body></html>", "the server answered HTTP 502 with a body that is not JSON"),
        (500, "", "the server answered HTTP 500 with an empty body"),
        (403, "Forbidden by WAF", "the server answered HTTP 403 with a body that is not JSON"),
        (0, "", "the server answered HTTP 0 with an empty body"),
    ])
    func notAnEnvelope(_ status: Int, _ body: String, _ message: String) {
        let result = Self.result(status, body)
        #expect(result == .serverError(status: status, message: message))
    }

    @Test(arguments: ["", "404 page not found\n", "<html>Not Found</html>", #"{"detail":"Not Found"}"#])
    func notFoundWithoutAnEnvelopeMeansTheAPIIsOff(_ body: String) throws {
        guard case .notFound(let message) = Self.result(404, body) else {
            Issue.record("expected notFound")
            return
        }
        #expect(message.contains("[api] enabled = true"))
    }

    @Test(arguments: [301, 302, 307, 308])
    func redirectsAreNotFollowedAndSaySo(_ status: Int) {
        let result = Self.result(status, "<html>Moved</html>", headers: ["location": "https://elsewhere.example/"])
        guard case .serverError(status, let message) = result else {
            Issue.record("expected serverError(\(status))")
            return
        }
        #expect(message.contains("redirect"))
        #expect(!message.contains("elsewhere"))
    }

    @Test func invalidUTF8IsAnErrorNotACrash() {
        let envelope: [UInt8] = Array(#"{"protocol_version":1,"exit_code":0,"data":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        let result = APIResult(status: 200, headers: [:], body: envelope)
        #expect(throws: APIDecodingError.self) { try result.decode(String.self) }

        let failure: [UInt8] = Array(#"{"protocol_version":1,"exit_code":1,"error":""#.utf8) + [0xFF] + Array(#""}"#.utf8)
        #expect(APIResult(status: 500, headers: [:], body: failure)
            == .serverError(status: 500, message: "HTTP 500, exit code 1 with no error message"))

        #expect(APIResult(status: 200, headers: [:], body: [0xFF, 0xFE, 0x7B])
            == .serverError(status: 200, message: "the server answered HTTP 200 with a body that is not JSON"))
    }

    // MARK: - Messages are bounded and inert

    @Test func longMessagesAreTruncated() throws {
        let error = String(repeating: "x", count: 5000)
        guard case .serverError(500, let message) = Self.result(500, Self.envelope(exitCode: 1, error: error)) else {
            Issue.record("expected serverError")
            return
        }
        #expect(message.count == APIResult.maximumMessageLength)
        #expect(message.hasSuffix("…"))
    }

    @Test func controlCharactersInMessagesAreBlanked() {
        let body = #"{"protocol_version":1,"exit_code":3,"error":"gone\u001b[2J\nnext\u0007line"}"#
        #expect(Self.result(404, body) == .notFound(message: "gone [2J next line"))
    }

    @Test(arguments: [200, 304, 400, 401, 403, 404, 429, 500, 502, 503])
    func headersNeverReachMessages(_ status: Int) {
        let headers = ["authorization": "Bearer gb_LeakedSecret", "x-echo": "gb_LeakedSecret", "retry-after": "5"]
        for body in ["", "not json", Self.envelope(exitCode: 1, error: "failed")] {
            let result = APIResult(status: status, headers: headers, body: Array(body.utf8))
            #expect(!"\(result)".contains("LeakedSecret"))
            #expect(!String(reflecting: result).contains("LeakedSecret"))
        }
    }

    // MARK: - Decoding

    @Test func decodeOfAFailureThrowsTheResult() {
        let result = Self.result(401, #"{"protocol_version":1,"error":"invalid or expired token"}"#)
        #expect(throws: APIDecodingError.notSuccess(result)) { try result.decode(Whoami.self) }
        #expect(throws: APIDecodingError.notSuccess(.notModified(etag: nil))) {
            try APIResult.notModified(etag: nil).decode(InboxPage.self)
        }
    }

    @Test(arguments: [
        (#"{"admin":false,"key_scope":"full"}"#, "data.username: missing"),
        (#"{"username":7,"admin":false,"key_scope":"full"}"#, "data.username: expected String"),
        (#"{"username":null,"admin":false,"key_scope":"full"}"#, "data.username: null where String is required"),
        (#"[1]"#, "data: expected Dictionary<String, Any>"),
    ])
    func decodeOfTheWrongShapeSaysWhere(_ data: String, _ detail: String) {
        let result = Self.result(200, #"{"protocol_version":1,"exit_code":0,"data":\#(data)}"#)
        #expect(throws: APIDecodingError.unexpectedShape(type: "Whoami", detail: detail)) { try result.decode(Whoami.self) }
    }

    @Test func decodeErrorDescriptions() {
        #expect(APIDecodingError.notSuccess(.busy(retryAfter: 60)).description == "the server is busy (HTTP 503); retry in 60 s")
        #expect(APIDecodingError.unexpectedShape(type: "Whoami", detail: "data.username: missing").description
            == "the server's answer does not fit Whoami: data.username: missing")
    }

    // MARK: - Properties

    @Test(arguments: [
        (APIResult.success(data: [], etag: nil), nil as Int?),
        (.notModified(etag: nil), nil),
        (.unauthorized(message: ""), nil),
        (.readOnlyToken(message: ""), nil),
        (.tooManyWrites(retryAfter: 9), 9),
        (.tooManyWrites(retryAfter: nil), nil),
        (.forbidden(message: ""), nil),
        (.notFound(message: ""), nil),
        (.badRequest(message: ""), nil),
        (.rateLimited(retryAfter: 2), 2),
        (.pushUnavailable(message: ""), nil),
        (.busy(retryAfter: 60), 60),
        (.serverError(status: 500, message: ""), nil),
    ])
    func retryAfterAndDescription(_ result: APIResult, _ retryAfter: Int?) {
        #expect(result.retryAfter == retryAfter)
        #expect(!result.description.isEmpty)
    }
}

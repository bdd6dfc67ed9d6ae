import FoundationEssentials
import PushCore
import Testing

@Suite struct PushPayloadTests {
    static let example = """
        {
          "aps": {
            "alert": {"title": "krz/gitbay", "body": "cmc opened issue #12"},
            "sound": "default",
            "badge": 3,
            "thread-id": "krz/gitbay"
          },
          "path": "krz/gitbay/issues/12",
          "instance": "https://gitbay.org",
          "user": "cmc"
        }
        """

    @Test func decodesTheDocumentedPayload() throws {
        let payload = try PushPayload(json: Self.example.utf8)
        #expect(payload.title == "krz/gitbay")
        #expect(payload.body == "cmc opened issue #12")
        #expect(payload.badge == 3)
        #expect(payload.threadID == "krz/gitbay")
        #expect(payload.path == "krz/gitbay/issues/12")
        #expect(payload.instance == (try GitbayInstance(parsing: "https://gitbay.org")))
        #expect(payload.user == "cmc")
    }

    @Test func takesStringBytesDataAndArrays() throws {
        let fromString = try PushPayload(json: Self.example.utf8)
        #expect(try PushPayload(json: Data(Self.example.utf8)) == fromString)
        #expect(try PushPayload(json: Array(Self.example.utf8)) == fromString)
    }

    @Test(arguments: [
        // Older servers omit the badge; null means the same.
        (#"{"aps":{"alert":{"title":"t","body":"b"}},"path":"p","instance":"https://gitbay.org","user":"u"}"#, nil as Int?),
        (#"{"aps":{"badge":null},"path":"p","instance":"https://gitbay.org","user":"u"}"#, nil),
        (#"{"aps":{"badge":0},"path":"p","instance":"https://gitbay.org","user":"u"}"#, 0),
        (#"{"aps":{"badge":250},"path":"p","instance":"https://gitbay.org","user":"u"}"#, 250),
    ])
    func badgeIsOptional(_ json: String, _ badge: Int?) throws {
        #expect(try PushPayload(json: json.utf8).badge == badge)
    }

    @Test(arguments: [
        #"{"path":"p","instance":"https://gitbay.org","user":"u"}"#,
        #"{"aps":{},"path":"p","instance":"https://gitbay.org","user":"u"}"#,
        #"{"aps":{"alert":{}},"path":"p","instance":"https://gitbay.org","user":"u"}"#,
        #"{"aps":{"alert":{"title":null,"body":null}},"path":"p","instance":"https://gitbay.org","user":"u"}"#,
    ])
    func missingAlertTextIsEmpty(_ json: String) throws {
        let payload = try PushPayload(json: json.utf8)
        #expect(payload.title == "")
        #expect(payload.body == "")
        #expect(payload.threadID == nil)
    }

    @Test(arguments: [
        ("https://GitBay.org:443/", "https://gitbay.org"),
        ("https://gitbay.org/", "https://gitbay.org"),
        ("https://example.com:443/git/", "https://example.com/git"),
        // Never fetched, only compared: plain http is fine here.
        ("http://gitbay.example:80", "http://gitbay.example"),
    ])
    func instanceIsNormalised(_ raw: String, _ url: String) throws {
        let json = #"{"path":"a/b/issues/1","instance":"\#(raw)","user":"cmc"}"#
        #expect(try PushPayload(json: json.utf8).instance.url == url)
    }

    @Test func pathIsKeptRawForRoutingLater() throws {
        let json = #"{"path":"krz/gitbay/wiki/Home","instance":"https://gitbay.org","user":"cmc"}"#
        #expect(try PushPayload(json: json.utf8).path == "krz/gitbay/wiki/Home")
    }

    static let rejected: [(String, PayloadError)] = [
        (#"{"path":"p","user":"u"}"#, .missingField("instance")),
        (#"{"path":"p","instance":"","user":"u"}"#, .missingField("instance")),
        (#"{"path":"p","instance":null,"user":"u"}"#, .missingField("instance")),
        (#"{"path":"p","instance":"https://gitbay.org"}"#, .missingField("user")),
        (#"{"path":"p","instance":"https://gitbay.org","user":""}"#, .missingField("user")),
        (#"{"instance":"https://gitbay.org","user":"u"}"#, .missingField("path")),
        (#"{"path":"","instance":"https://gitbay.org","user":"u"}"#, .missingField("path")),
        (#"{"aps":{"alert":{"title":"t","body":"b"}}}"#, .missingField("instance")),
        (#"{"path":"p","instance":"ftp://gitbay.org","user":"u"}"#, .invalidInstance(.unsupportedScheme("ftp"))),
        (#"{"path":"p","instance":"gitbay.org","user":"u"}"#, .invalidInstance(.missingScheme)),
        (#"{"path":"p","instance":"https://u@gitbay.org","user":"u"}"#, .invalidInstance(.userInfo)),
        (#"{"path":"p","instance":"https://gitbay.org/?x","user":"u"}"#, .invalidInstance(.query)),
        ("[]", .notAnObject),
        (#"["https://gitbay.org"]"#, .notAnObject),
        (#""text""#, .notAnObject),
        ("42", .notAnObject),
        ("null", .notAnObject),
        ("true", .notAnObject),
        ("", .notJSON),
        ("{", .notJSON),
        ("nope", .notJSON),
        (#"{"path": }"#, .notJSON),
        (#"{"path":"p"} trailing"#, .notJSON),
        (#"{"path":"p","instance":5,"user":"u"}"#, .wrongType(field: "instance")),
        (#"{"path":"p","instance":"https://gitbay.org","user":true}"#, .wrongType(field: "user")),
        (#"{"path":["a"],"instance":"https://gitbay.org","user":"u"}"#, .wrongType(field: "path")),
        (#"{"aps":"x","path":"p","instance":"https://gitbay.org","user":"u"}"#, .wrongType(field: "aps")),
        (#"{"aps":{"alert":"text"},"path":"p","instance":"https://gitbay.org","user":"u"}"#, .wrongType(field: "aps.alert")),
        (#"{"aps":{"alert":{"title":1}},"path":"p","instance":"https://gitbay.org","user":"u"}"#, .wrongType(field: "aps.alert.title")),
        (#"{"aps":{"alert":{"body":{}}},"path":"p","instance":"https://gitbay.org","user":"u"}"#, .wrongType(field: "aps.alert.body")),
        (#"{"aps":{"badge":"3"},"path":"p","instance":"https://gitbay.org","user":"u"}"#, .wrongType(field: "aps.badge")),
        (#"{"aps":{"badge":1.5},"path":"p","instance":"https://gitbay.org","user":"u"}"#, .wrongType(field: "aps.badge")),
        (#"{"aps":{"badge":1e30},"path":"p","instance":"https://gitbay.org","user":"u"}"#, .wrongType(field: "aps.badge")),
        (#"{"aps":{"badge":true},"path":"p","instance":"https://gitbay.org","user":"u"}"#, .wrongType(field: "aps.badge")),
        (#"{"aps":{"thread-id":7},"path":"p","instance":"https://gitbay.org","user":"u"}"#, .wrongType(field: "aps.thread-id")),
        (#"{"aps":{"badge":-1},"path":"p","instance":"https://gitbay.org","user":"u"}"#, .negativeBadge),
    ]

    @Test(arguments: rejected)
    func rejects(_ json: String, _ error: PayloadError) {
        #expect(throws: error) { try PushPayload(json: json.utf8) }
    }

    @Test func invalidUTF8IsNotJSON() {
        let bytes: [UInt8] = Array(#"{"path":"p","instance":"https://gitbay.org","user":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8)
        #expect(throws: PayloadError.notJSON) { try PushPayload(json: bytes) }
    }

    @Test func sizeLimitIsCheckedBeforeParsing() throws {
        let minimal = #"{"path":"a/b/issues/1","instance":"https://gitbay.org","user":"cmc"}"#
        let padded = minimal + String(repeating: " ", count: PushPayload.maximumSize - minimal.utf8.count)
        #expect(padded.utf8.count == 8192)
        #expect(try PushPayload(json: padded.utf8).user == "cmc")
        #expect(throws: PayloadError.tooLarge(byteCount: 8193)) { try PushPayload(json: (padded + " ").utf8) }
        // Too large wins over not JSON: nothing of it is parsed.
        let garbage = [UInt8](repeating: UInt8(ascii: "{"), count: 8193)
        #expect(throws: PayloadError.tooLarge(byteCount: 8193)) { try PushPayload(json: garbage) }
    }

    @Test func deeplyNestedJSONIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 4000) + String(repeating: "]", count: 4000)
        #expect(throws: PayloadError.notJSON) { try PushPayload(json: deep.utf8) }
    }

    @Test(arguments: rejected.map(\.1))
    func errorsSayWhatIsWrong(_ error: PayloadError) {
        #expect(error.description.hasPrefix("the push payload"))
    }

    @Test func instanceErrorIsPassedOn() {
        let error = PayloadError.invalidInstance(.unsupportedScheme("ftp"))
        #expect(error.description.contains("'ftp://' is not supported"))
    }
}

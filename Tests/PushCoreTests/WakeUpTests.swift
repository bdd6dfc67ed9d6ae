import PushCore
import Testing

/// Which account a payload handed to `Deliver` wakes: its instance, normalised, and its user,
/// exactly; nothing else in it is read.
@Suite struct WakeUpTests {
    static func account(_ url: String, _ user: String) throws -> Account {
        try Account(instance: GitbayInstance(parsing: url, allowInsecureHTTP: true), username: user)
    }

    static var accounts: [Account] {
        get throws {
            [
                try account("https://gitbay.org", "cmc"),
                try account("https://example.com/git", "cmc"),
                try account("https://gitbay.org", "alice"),
                try account("http://127.0.0.1:8080", "cmc"),
            ]
        }
    }

    static func payload(instance: String, user: String) throws -> WakeUp {
        try WakeUp(json: """
            {"aps": {"alert": {"title": "krz/gitbay", "body": "cmc opened issue #12"}, "badge": 3},
             "path": "krz/gitbay/issues/12", "instance": "\(instance)", "user": "\(user)"}
            """.utf8)
    }

    @Test(arguments: [
        ("https://gitbay.org", "cmc", 0),
        ("https://GitBay.org:443/", "cmc", 0),
        ("https://example.com/git/", "cmc", 1),
        ("https://gitbay.org", "alice", 2),
        ("http://127.0.0.1:8080/", "cmc", 3),
    ])
    func wakesTheMatchingAccount(_ instance: String, _ user: String, _ index: Int) throws {
        let accounts = try Self.accounts
        #expect(try Self.payload(instance: instance, user: user).account(among: accounts) == accounts[index])
    }

    @Test func theBareFormNamesTheSameAccount() throws {
        let bare = try WakeUp(json: #"{"instance": "https://example.com/git", "user": "cmc"}"#.utf8)
        #expect(try bare.account(among: try Self.accounts) == (try Self.accounts)[1])
    }

    @Test(arguments: [
        ("https://gitbay.org", "bob"),
        ("https://gitbay.org", "CMC"),
        ("https://gitbay.org", "cmc "),
        ("https://other.example", "cmc"),
        ("https://example.com", "cmc"),
        ("https://gitbay.org:8443", "cmc"),
        ("http://gitbay.org", "cmc"),
        ("https://example.com/git", "alice"),
    ])
    func noMatchingAccountIsAnError(_ instance: String, _ user: String) throws {
        #expect(throws: PayloadError.self) { try Self.payload(instance: instance, user: user).account(among: try Self.accounts) }
    }

    @Test(arguments: [
        ("", PayloadError.notJSON),
        ("[1]", .notAnObject),
        (#"{"user": "cmc"}"#, .missingField("instance")),
        (#"{"instance": "https://gitbay.org", "user": ""}"#, .missingField("user")),
        (#"{"instance": "https://gitbay.org", "user": 7}"#, .missingField("user")),
        (#"{"instance": null, "user": "cmc"}"#, .missingField("instance")),
    ])
    func malformedPayloadsSayWhy(_ json: String, _ error: PayloadError) {
        #expect(throws: error) { try WakeUp(json: json.utf8) }
    }

    @Test func anOversizedPayloadIsRefusedBeforeParsing() {
        let huge = Array(repeating: UInt8(ascii: " "), count: WakeUp.maximumSize + 1)
        #expect(throws: PayloadError.tooLarge(byteCount: WakeUp.maximumSize + 1)) { try WakeUp(json: huge) }
    }

    @Test func anInstanceThatIsNoURLIsRefused() {
        #expect(throws: PayloadError.self) { try WakeUp(json: #"{"instance": "ftp://x", "user": "cmc"}"#.utf8) }
    }

    @Test func whatAPayloadSaysIsNeverQuotedAtLength() throws {
        let payload = try WakeUp(json: #"{"instance": "https://x.example", "user": "\#(String(repeating: "a", count: 500))"}"#.utf8)
        #expect {
            try payload.account(among: [])
        } throws: { error in
            "\(error)".count < 300
        }
    }
}

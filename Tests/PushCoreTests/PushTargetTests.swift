import PushCore
import Testing

@Suite struct PushTargetTests {
    static func account(_ url: String, _ username: String) throws -> Account {
        try Account(instance: GitbayInstance(parsing: url, allowInsecureHTTP: true), username: username)
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

    static func payload(instance: String, user: String, path: String = "krz/gitbay/issues/12") throws -> PushPayload {
        try PushPayload(json: #"{"path":"\#(path)","instance":"\#(instance)","user":"\#(user)"}"#.utf8)
    }

    @Test(arguments: [
        ("https://gitbay.org", "cmc", 0),
        ("https://GitBay.org:443/", "cmc", 0),
        ("https://example.com/git/", "cmc", 1),
        ("https://gitbay.org", "alice", 2),
        ("http://127.0.0.1:8080/", "cmc", 3),
    ])
    func resolvesToTheMatchingAccount(_ instance: String, _ user: String, _ index: Int) throws {
        let accounts = try Self.accounts
        let target = try #require(PushTarget.resolve(try Self.payload(instance: instance, user: user), among: accounts))
        #expect(target.account == accounts[index])
        #expect(target.destination == NotificationDestination(path: "krz/gitbay/issues/12"))
    }

    @Test func sameUserOnTwoInstancesResolvesToTwoAccounts() throws {
        let accounts = try Self.accounts
        let first = try #require(PushTarget.resolve(try Self.payload(instance: "https://gitbay.org", user: "cmc"), among: accounts))
        let second = try #require(PushTarget.resolve(try Self.payload(instance: "https://example.com/git", user: "cmc"), among: accounts))
        #expect(first.account != second.account)
        #expect(first.account.instance.url == "https://gitbay.org")
        #expect(second.account.instance.url == "https://example.com/git")
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
    func noMatchingAccountIsNil(_ instance: String, _ user: String) throws {
        #expect(PushTarget.resolve(try Self.payload(instance: instance, user: user), among: try Self.accounts) == nil)
    }

    @Test func noAccountsIsNil() throws {
        #expect(PushTarget.resolve(try Self.payload(instance: "https://gitbay.org", user: "cmc"), among: []) == nil)
    }

    @Test(arguments: ["krz/gitbay", "krz/gitbay/wiki/Home", "/krz/gitbay/issues/12", "krz/gitbay/merge_requests/3"])
    func unroutablePathOpensTheInbox(_ path: String) throws {
        let accounts = try Self.accounts
        let target = try #require(PushTarget.resolve(try Self.payload(instance: "https://gitbay.org", user: "cmc", path: path), among: accounts))
        #expect(target.account == accounts[0])
        #expect(target.destination == nil)
    }

    @Test func conveniencesAgree() throws {
        let accounts = try Self.accounts
        let payload = try Self.payload(instance: "https://example.com/git", user: "cmc", path: "o/r/builds/9")
        let direct = PushTarget.resolve(instance: payload.instance, user: payload.user, path: payload.path, among: accounts)
        #expect(PushTarget.resolve(payload, among: accounts) == direct)
        #expect(direct?.destination?.kind == .build)
    }
}

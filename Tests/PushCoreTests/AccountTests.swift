import PushCore
import Testing

@Suite struct AccountTests {
    static var gitbay: GitbayInstance { get throws { try GitbayInstance(parsing: "https://gitbay.org") } }

    @Test(arguments: ["cmc", "a", "A.b_c-d", "0day", "_x", "x.", String(repeating: "z", count: 64)])
    func acceptsGitbayUsernames(_ username: String) throws {
        let account = try Account(instance: try Self.gitbay, username: username)
        #expect(account.username == username)
        #expect(try account.instance == Self.gitbay)
    }

    @Test(arguments: [
        ("", AccountError.emptyUsername),
        (String(repeating: "z", count: 65), .usernameTooLong),
        ("a b", .usernameCharacters),
        ("a@b", .usernameCharacters),
        ("a/b", .usernameCharacters),
        ("cmc\n", .usernameCharacters),
        ("ünï", .usernameCharacters),
        ("cmс", .usernameCharacters),  // Cyrillic "с"
        ("a+b", .usernameCharacters),
        (".cmc", .usernameStart),
        ("-cmc", .usernameStart),
    ])
    func rejectsOtherUsernames(_ username: String, _ error: AccountError) throws {
        let instance = try Self.gitbay
        #expect(throws: error) { try Account(instance: instance, username: username) }
    }

    @Test(arguments: [
        ("https://gitbay.org", "cmc", "cmc@https://gitbay.org", "cmc@gitbay.org"),
        ("https://GitBay.org:443/", "cmc", "cmc@https://gitbay.org", "cmc@gitbay.org"),
        ("http://127.0.0.1:8080", "dev", "dev@http://127.0.0.1:8080", "dev@127.0.0.1:8080"),
        ("https://example.com/git", "cmc", "cmc@https://example.com/git", "cmc@example.com"),
    ])
    func idAndDisplayName(_ url: String, _ username: String, _ id: String, _ displayName: String) throws {
        let account = try Account(instance: GitbayInstance(parsing: url), username: username)
        #expect(account.id == id)
        #expect(account.displayName == displayName)
    }

    @Test func sameUsernameOnTwoInstancesIsTwoAccounts() throws {
        let first = try Account(instance: try Self.gitbay, username: "cmc")
        let second = try Account(instance: GitbayInstance(parsing: "https://example.com"), username: "cmc")
        #expect(first != second)
        #expect(first.id != second.id)
        #expect(Set([first, second]).count == 2)
    }

    @Test func usernamesAreCaseSensitive() throws {
        let lower = try Account(instance: try Self.gitbay, username: "cmc")
        let upper = try Account(instance: try Self.gitbay, username: "CMC")
        #expect(lower != upper)
        #expect(lower.id != upper.id)
    }

    @Test func spellingsOfOneInstanceMakeOneAccount() throws {
        let first = try Account(instance: GitbayInstance(parsing: "https://GitBay.org:443/"), username: "cmc")
        let second = try Account(instance: try Self.gitbay, username: "cmc")
        #expect(first == second)
        #expect(first.id == second.id)
    }
}

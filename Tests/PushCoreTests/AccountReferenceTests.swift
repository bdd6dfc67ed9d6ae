import PushCore
import Testing

@Suite struct AccountReferenceTests {
    let accounts = [
        try! Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc"),
        try! Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "krz"),
        try! Account(instance: GitbayInstance(parsing: "http://127.0.0.1:8080"), username: "cmc"),
        try! Account(instance: GitbayInstance(parsing: "https://example.com/git"), username: "cmc"),
    ]

    @Test(arguments: [
        ("cmc@gitbay.org", nil, 0),
        ("krz@GitBay.org", nil, 1),
        ("cmc@127.0.0.1:8080", nil, 2),
        ("cmc@example.com/git", nil, 3),
        ("https://gitbay.org:443/", "krz", 1),
        ("http://127.0.0.1:8080", nil, 2),
        ("https://example.com/git/", nil, 3),
    ] as [(String, String?, Int)])
    func resolvesToTheOneAccountNamed(text: String, user: String?, index: Int) throws {
        #expect(try AccountReference(parsing: text, user: user).resolve(among: accounts) == accounts[index])
    }

    @Test func theSameUserOnAnotherInstanceIsNotAMatch() {
        #expect(throws: AccountReferenceError.noMatch("cmc@gitbay.com")) {
            try AccountReference(parsing: "cmc@gitbay.com").resolve(among: accounts)
        }
        #expect(throws: AccountReferenceError.noMatch("cmc on https://127.0.0.1:8080")) {
            try AccountReference(parsing: "https://127.0.0.1:8080", user: "cmc").resolve(among: accounts)
        }
    }

    @Test func anInstanceWithSeveralAccountsNeedsAUser() {
        #expect(throws: AccountReferenceError.ambiguous("any account on https://gitbay.org", candidates: ["cmc", "krz"])) {
            try AccountReference(parsing: "https://gitbay.org").resolve(among: accounts)
        }
    }

    @Test(arguments: ["gitbay.org", "@gitbay.org", "cmc@", "", "ftp://gitbay.org", "https://u:p@gitbay.org"])
    func rejectsWhatNamesNoAccount(text: String) {
        #expect(throws: AccountReferenceError.unparsable(text)) { try AccountReference(parsing: text) }
    }

    @Test func userGoesOnlyWithAURL() {
        #expect(throws: AccountReferenceError.userGivenTwice) { try AccountReference(parsing: "cmc@gitbay.org", user: "krz") }
    }
}

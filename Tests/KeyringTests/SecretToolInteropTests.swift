import DesktopSuites
import Keyring
import PushCore
import TestSupport
import Testing

/// Items are shared with anything that speaks the Secret Service; `secret-tool` stands in for
/// all of it.
@Suite(.timeLimit(.minutes(3)), .needsDesktopSession)
struct SecretToolInteropTests {
    let keyring = Keyring()

    init() async throws {
        try await TestSession.requireSecretService()
    }

    @Test func secretToolReadsOurItems() async throws {
        let account = try testAccount("cmc", on: "https://ours-for-secret-tool.example")
        let token = try uniqueToken()
        try await keyring.store(token, for: account)

        let attributes = ["instance": "https://ours-for-secret-tool.example", "user": "cmc"]
        #expect(try await SecretTool.lookup(attributes) == token.secret)
        #expect(try await SecretTool.search(attributes).contains("label = gitbay token for cmc@ours-for-secret-tool.example"))
    }

    @Test func weReadSecretToolItems() async throws {
        let token = try uniqueToken()
        try await SecretTool.store(
            label: "added by hand", attributes: ["instance": "https://by-hand.example", "user": "hand"],
            secret: token.secret)

        let account = try testAccount("hand", on: "https://by-hand.example")
        #expect(try await keyring.token(for: account) == token)
        #expect(try await keyring.list().accounts.contains { $0.account == account && $0.token == token })
    }

    @Test func itemWithNonNormalisedInstanceIsFoundAndDeleted() async throws {
        let written = ["instance": "https://GitBay.org:443/", "user": "spelled-oddly"]
        let token = try uniqueToken()
        try await SecretTool.store(label: "odd spelling", attributes: written, secret: token.secret)

        let account = try testAccount("spelled-oddly", on: "https://gitbay.org")
        #expect(try await keyring.token(for: account) == token)
        let listed = try await keyring.list().accounts.filter { $0.account.username == "spelled-oddly" }
        #expect(listed.map(\.account.instance.url) == ["https://gitbay.org"])

        #expect(try await keyring.delete(account))
        #expect(try await SecretTool.lookup(written) == nil)
        #expect(try await keyring.token(for: account) == nil)
    }

    @Test func storeReplacesAnItemWithAnotherSpellingOfTheInstance() async throws {
        let written = ["instance": "https://Respelled.example/", "user": "respelled"]
        try await SecretTool.store(label: "trailing slash", attributes: written, secret: try uniqueToken().secret)

        let account = try testAccount("respelled", on: "https://respelled.example")
        let token = try uniqueToken()
        try await keyring.store(token, for: account)

        #expect(try await SecretTool.lookup(written) == nil)
        #expect(try await SecretTool.lookup(["instance": "https://respelled.example", "user": "respelled"]) == token.secret)
        #expect(try await keyring.token(for: account) == token)
    }

    @Test func newerOfTwoItemsForOneAccountWinsAndTheOtherIsNamed() async throws {
        // Written one after the other, so the second is as new as the first or newer; on a tie in
        // the keyring's one-second clock the normalised spelling wins, so either way it is used.
        let older = try uniqueToken()
        let newer = try uniqueToken()
        try await SecretTool.store(
            label: "duplicate, slash", attributes: ["instance": "https://duplicate.example/", "user": "dup"],
            secret: older.secret)
        try await SecretTool.store(
            label: "duplicate, plain", attributes: ["instance": "https://duplicate.example", "user": "dup"],
            secret: newer.secret)

        let account = try testAccount("dup", on: "https://duplicate.example")
        let listing = try await keyring.list()
        #expect(listing.accounts.filter { $0.account == account }.map(\.token) == [newer])
        let skipped = try #require(listing.skipped.first { $0.label == "duplicate, slash" })
        #expect(skipped.reason == .olderDuplicate)
        #expect(skipped.description.contains("duplicate, slash"))
        #expect(!skipped.description.contains(older.secret))
        #expect(try await keyring.token(for: account) == newer)
    }
}

/// Another process deleting items while a listing reads them must not fail the listing. Alone
/// in a session of its own, so that its churn does not reach the other tests' listings.
@Suite(.timeLimit(.minutes(3)))
struct ConcurrentChangeTests {
    @Test func listingSurvivesItemsDeletedByAnotherProcess() async throws {
        try await PrivateSession.run() {
            async let churn: Void = Self.storeAndDeleteItems(count: 20)
            let keyring = Keyring()
            for _ in 0..<30 {
                _ = try await keyring.list()
            }
            try await churn
        }
    }

    private static func storeAndDeleteItems(count: Int) async throws {
        for round in 0..<count {
            let attributes = ["instance": "https://churn.example", "user": "churn-\(round)"]
            try await SecretTool.store(label: "churn \(round)", attributes: attributes, secret: "gb_churn\(round)")
            try await SecretTool.clear(attributes)
        }
    }
}

import DesktopSuites
import Foundation
import Keyring
import PushCore
import Testing
import TestSupport

/// Relay access tokens: items of their own schema, `org.gitbay.Relay` with attribute `url`,
/// apart from the accounts, and shared with `secret-tool` like them.
@Suite(.timeLimit(.minutes(3)), .needsDesktopSession)
struct RelayTokenTests {
    let keyring = Keyring()

    init() async throws {
        try await TestSession.requireSecretService()
    }

    static func uniqueRelay() throws -> GitbayInstance {
        try GitbayInstance(parsing: "https://relay-\(UUID().uuidString.prefix(8).lowercased()).example")
    }

    static func secretTool(_ arguments: [String], input: String = "") async throws -> Program.Outcome {
        try await SecretTool.run(arguments, input: input)
    }

    @Test func storedThenFoundThenDeleted() async throws {
        let relay = try Self.uniqueRelay()
        let token = try uniqueToken()
        #expect(try await keyring.relayToken(for: relay) == nil)

        try await keyring.storeRelayToken(token, for: relay)

        #expect(try await keyring.relayToken(for: relay) == token)
        #expect(try await SecretTool.lookup(["url": relay.url], schema: "org.gitbay.Relay") == token.secret)
        // Not an account: the account listing never sees it.
        #expect(try await keyring.list().accounts.allSatisfy { $0.account.instance != relay })
        #expect(try await keyring.deleteRelayToken(for: relay))
        #expect(try await keyring.relayToken(for: relay) == nil)
        #expect(try await !keyring.deleteRelayToken(for: relay))
    }

    @Test func storingAgainReplacesTheToken() async throws {
        let relay = try Self.uniqueRelay()
        try await keyring.storeRelayToken(try uniqueToken(), for: relay)
        let second = try uniqueToken()
        try await keyring.storeRelayToken(second, for: relay)

        #expect(try await keyring.relayToken(for: relay) == second)
        let search = try await Self.secretTool(["search", "--all", "xdg:schema", "org.gitbay.Relay", "url", relay.url])
        #expect((search.stdout + search.stderr).components(separatedBy: "label = ").count == 2, "one item")
        _ = try await keyring.deleteRelayToken(for: relay)
    }

    @Test func anItemWrittenBySecretToolWithAnotherSpellingIsFoundAndDeleted() async throws {
        let relay = try Self.uniqueRelay()
        let token = try uniqueToken()
        let stored = try await Self.secretTool(
            ["store", "--label=by hand", "xdg:schema", "org.gitbay.Relay", "url", relay.url.uppercased() + ":443/"],
            input: token.secret)
        try #require(stored.status == 0, "\(stored.stderr)")

        #expect(try await keyring.relayToken(for: relay) == token)
        #expect(try await keyring.deleteRelayToken(for: relay))
        #expect(try await keyring.relayToken(for: relay) == nil)
    }
}

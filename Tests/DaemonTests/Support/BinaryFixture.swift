import Foundation
import PushCore
import StateStore
import TestSupport
import Testing

/// One account on a stand-in, stored in the (private) session keyring with `secret-tool` as a
/// user would, and a daemon home: the start of every test of the real gbnotifyd binary.
struct BinaryFixture {
    let home: DaemonHome
    let standin: Standin
    /// The TLS front the daemon reaches the stand-in through, if any.
    let front: HTTP2Front?
    let token: String
    let account: Account
    /// How the daemon names the account in its log lines.
    var name: String { account.displayName }

    /// - Parameters:
    ///   - token: the user's token as given, for one a test must recognise anywhere; minted by
    ///     the stand-in when nil.
    ///   - inKeyring: false leaves the account out of the keyring, for the test to add.
    ///   - front: reach the stand-in through nghttpx offering these protocols (the config then
    ///     trusts its CA).
    static func start(
        config: String = "poll-interval = 30\n", token: String? = nil, inKeyring: Bool = true, front protocols: HTTP2Front.Protocols? = nil
    ) async throws -> BinaryFixture {
        let home = try DaemonHome()
        let standin = try await Standin.start()
        var front: HTTP2Front?
        var config = config
        if let protocols {
            front = try await HTTP2Front.start(backendPort: standin.port, .init(protocols: protocols))
            try await standin.configure(.init(siteURL: front?.url))
            config += "ca-file = \(Standin.TLS.fixtures.caFile)\n"
        }
        let url = front?.url ?? standin.url
        try await standin.addUser("cmc")
        let token = try await standin.addToken(for: "cmc", token: token)
        if inKeyring { try await SecretTool.store(instance: url, user: "cmc", token: token) }
        try home.writeConfig(config)
        let account = try Account(instance: try GitbayInstance(parsing: url), username: "cmc")
        return BinaryFixture(home: home, standin: standin, front: front, token: token, account: account)
    }

    func finish() async {
        await front?.stop()
        await standin.stop()
        home.remove()
    }

    /// The high-water mark in the account state file as it is on disk now; nil before one was saved.
    func savedHighWater() throws -> Int64? {
        let path = home.stateDirectory + "/accounts.json"
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try JSONDecoder().decode(PersistedAccounts.self, from: data).accounts[account.id]?.highWater
    }
}

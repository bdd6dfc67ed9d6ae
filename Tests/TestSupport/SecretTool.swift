import Foundation

/// `secret-tool`, libsecret's own command line, with the secret on its standard input: how a
/// user stores and finds items by hand, and proof that ours are ordinary Secret Service items.
public enum SecretTool {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The schema of an account's item.
    public static let accountSchema = "org.gitbay.Account"

    /// Runs secret-tool, once more (twice at most) when KWallet (kwalletd5 5.103) lost or
    /// refused its session: it refuses libsecret's public key when that is a byte short (one
    /// key in 256), and drops a new client's session when others connect at the same moment.
    /// Both are KWallet's faults, and not what any test is about.
    public static func run(_ arguments: [String], input: String = "") async throws -> Program.Outcome {
        var result = try await once(arguments, input: input)
        for _ in 1..<3 where kwalletSessionFailures.contains(where: (result.stdout + result.stderr).contains) {
            result = try await once(arguments, input: input)
        }
        return result
    }

    public static func store(label: String = "gitbay test", attributes: [String: String], secret: String) async throws {
        let result = try await run(["store", "--label=\(label)", "xdg:schema", accountSchema] + flatten(attributes), input: secret)
        guard result.status == 0 else { throw Failure(description: "secret-tool store failed: \(result.stderr)") }
    }

    /// Stores an account's token as a user would by hand.
    public static func store(instance: String, user: String, token: String) async throws {
        try await store(attributes: ["instance": instance, "user": user], secret: token)
    }

    /// The secret `secret-tool lookup` finds for exactly these attributes, or nil.
    ///
    /// On KWallet a lost session (see `run`) makes secret-tool find nothing and say nothing,
    /// exactly as when there is nothing: there, nothing counts only when three lookups agree.
    public static func lookup(_ attributes: [String: String], schema: String = accountSchema) async throws -> String? {
        let attempts = ProcessInfo.processInfo.environment["PRIVATE_DESKTOP_KEYRING"] == "kwallet" ? 3 : 1
        for _ in 0..<attempts {
            let result = try await run(["lookup", "xdg:schema", schema] + flatten(attributes))
            if result.status == 0 { return result.stdout }
        }
        return nil
    }

    public static func lookup(instance: String, user: String) async throws -> String? {
        try await lookup(["instance": instance, "user": user])
    }

    /// `secret-tool search --all` for items with these attributes: one block per item.
    public static func search(_ attributes: [String: String], schema: String = accountSchema) async throws -> String {
        let result = try await run(["search", "--all", "xdg:schema", schema] + flatten(attributes))
        return result.stdout + result.stderr
    }

    public static func clear(_ attributes: [String: String]) async throws {
        let result = try await run(["clear", "xdg:schema", accountSchema] + flatten(attributes))
        guard result.status == 0 else { throw Failure(description: "secret-tool clear failed: \(result.stderr)") }
    }

    public static func clear(instance: String, user: String) async throws {
        try await clear(["instance": instance, "user": user])
    }

    static let kwalletSessionFailures = ["Client public key size is invalid", "Can't find session"]

    private static func once(_ arguments: [String], input: String) async throws -> Program.Outcome {
        try await Program.run(["secret-tool"] + arguments, environment: ProcessInfo.processInfo.environment, stdin: input)
    }

    private static func flatten(_ attributes: [String: String]) -> [String] {
        attributes.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }
    }
}

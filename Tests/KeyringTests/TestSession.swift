import Foundation
import Keyring
import PushCore
import Synchronization
import Testing

/// What the keyring tests need from the session they run in, and the child processes some of
/// them start.
enum TestSession {
    /// Fails the calling test, with what to do about it, unless it runs inside
    /// `scripts/desktop-session` with a Secret Service on the bus. The tests write to the keyring,
    /// so a real desktop's keyring is refused too.
    static func requireSecretService() async throws {
        let problem = await secretServiceProblem.value
        try #require(problem == nil, Comment(rawValue: """
            \(problem ?? ""). The keyring tests need a private Secret Service: run them as
            scripts/desktop-session swift test --filter KeyringTests
            """))
    }

    private static let secretServiceProblem = Task<String?, Never> {
        let environment = ProcessInfo.processInfo.environment
        guard environment["PRIVATE_DESKTOP_SESSION"] != nil else {
            return "PRIVATE_DESKTOP_SESSION is not set, so this is not a session of scripts/desktop-session"
        }
        guard environment["DBUS_SESSION_BUS_ADDRESS"] != nil else {
            return "DBUS_SESSION_BUS_ADDRESS is not set: there is no session bus"
        }
        let owned = try? await run("gdbus", [
            "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
            "--method", "org.freedesktop.DBus.NameHasOwner", "org.freedesktop.secrets",
        ])
        guard let owned, owned.status == 0, owned.output.hasPrefix("(true,)") else {
            return "nothing owns org.freedesktop.secrets on the session bus (\(owned?.output ?? "gdbus did not run"))"
        }
        return nil
    }

    struct Finished {
        let status: Int32
        /// Standard output and standard error, interleaved.
        let output: String
    }

    /// Runs a program (looked up in PATH) to completion without blocking a thread of Swift's
    /// cooperative pool. `input` goes to its standard input, which is how secrets reach
    /// `secret-tool`; never pass a secret in `arguments`.
    static func run(
        _ program: String, _ arguments: [String], input: String = ""
    ) async throws -> Finished {
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = [program] + arguments
        // Output goes to a file rather than a pipe, which would stall a chatty child once full.
        let outputFile = FileManager.default.temporaryDirectory.appending(path: "keyring-tests-\(UUID().uuidString)")
        try #require(FileManager.default.createFile(atPath: outputFile.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: outputFile) }
        let output = try FileHandle(forWritingTo: outputFile)
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = output
        let stdin = Pipe()
        process.standardInput = stdin

        // A test that runs out of time is cancelled; its child is stopped rather than waited for.
        // Foundation traps on stopping a process it has not started, hence the lock around both.
        let started = Mutex(false)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                process.terminationHandler = { _ in continuation.resume() }
                do {
                    try started.withLock { started in
                        try Task.checkCancellation()
                        try process.run()
                        started = true
                    }
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                if !input.isEmpty { stdin.fileHandleForWriting.write(Data(input.utf8)) }
                try? stdin.fileHandleForWriting.close()
            }
        } onCancel: {
            started.withLock { started in
                if started && process.isRunning { process.terminate() }
            }
        }
        return Finished(
            status: process.terminationStatus,
            output: (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "")
    }
}

/// Accounts for one test: tests run in parallel against one keyring, so each uses instances and
/// usernames no other test uses.
func testAccount(_ user: String, on instance: String) throws -> Account {
    try Account(instance: try GitbayInstance(parsing: instance, allowInsecureHTTP: true), username: user)
}

/// Every call of a fresh `Keyring` throws `expected`, and no error names the token.
func expectEveryCall(toThrow expected: KeyringError, account: Account) async throws {
    let keyring = Keyring()
    let token = try uniqueToken()
    await #expect(throws: expected) { try await keyring.list() }
    await #expect(throws: expected) { try await keyring.token(for: account) }
    await #expect(throws: expected) { try await keyring.delete(account) }
    let storeError = await #expect(throws: expected) { try await keyring.store(token, for: account) }
    #expect(storeError.map { !"\($0)".contains(token.secret) } ?? false)
}

/// A token that looks like gitbay's and is unique to the call, so that finding it anywhere is
/// proof of where it came from.
func uniqueToken() throws -> APIToken {
    try APIToken("gb_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())")
}

/// `secret-tool`, with the secret on its standard input.
enum SecretTool {
    static func store(label: String, attributes: [String: String], secret: String) async throws {
        let result = try await run(["store", "--label=\(label)", "xdg:schema", "org.gitbay.Account"] + flatten(attributes), input: secret)
        try #require(result.status == 0, "secret-tool store failed: \(result.output)")
    }

    /// The secret `secret-tool lookup` finds for exactly these attributes, or nil.
    ///
    /// On KWallet a lost session (see `run`) makes secret-tool find nothing and say nothing,
    /// exactly as when there is nothing: there, nothing counts only when three lookups agree.
    static func lookup(_ attributes: [String: String], schema: String = "org.gitbay.Account") async throws -> String? {
        let attempts = ProcessInfo.processInfo.environment["PRIVATE_DESKTOP_KEYRING"] == "kwallet" ? 3 : 1
        for _ in 0..<attempts {
            let result = try await run(["lookup", "xdg:schema", schema] + flatten(attributes))
            if result.status == 0 { return result.output }
        }
        return nil
    }

    /// `secret-tool search --all` output for items with these attributes: one block per item.
    static func search(_ attributes: [String: String]) async throws -> String {
        try await run(["search", "--all", "xdg:schema", "org.gitbay.Account"] + flatten(attributes)).output
    }

    static func clear(_ attributes: [String: String]) async throws {
        let result = try await run(["clear", "xdg:schema", "org.gitbay.Account"] + flatten(attributes))
        try #require(result.status == 0, "secret-tool clear failed: \(result.output)")
    }

    /// Runs secret-tool once more when KWallet (kwalletd5 5.103) lost or refused its session:
    /// it refuses libsecret's public key when that is a byte short (one key in 256), and drops
    /// a new client's session when others connect at the same moment. Both are KWallet's
    /// faults, and not what any test here is about.
    static func run(_ arguments: [String], input: String = "") async throws -> TestSession.Finished {
        var result = try await TestSession.run("secret-tool", arguments, input: input)
        for _ in 1..<3 where Self.kwalletSessionFailures.contains(where: result.output.contains) {
            result = try await TestSession.run("secret-tool", arguments, input: input)
        }
        return result
    }

    static let kwalletSessionFailures = ["Client public key size is invalid", "Can't find session"]

    private static func flatten(_ attributes: [String: String]) -> [String] {
        attributes.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }
    }
}

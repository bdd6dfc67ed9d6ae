import Foundation
import Keyring
import PushCore
import Testing
import TestSupport

/// What the keyring tests need from the session they run in.
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
        guard PrivateSession.isInsideDesktopSession else {
            return "PRIVATE_DESKTOP_SESSION is not set, so this is not a session of scripts/desktop-session"
        }
        guard environment["DBUS_SESSION_BUS_ADDRESS"] != nil else {
            return "DBUS_SESSION_BUS_ADDRESS is not set: there is no session bus"
        }
        let owned = try? await Program.run([
            "gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
            "--method", "org.freedesktop.DBus.NameHasOwner", "org.freedesktop.secrets",
        ], environment: environment)
        guard let owned, owned.status == 0, owned.stdout.hasPrefix("(true,)") else {
            return "nothing owns org.freedesktop.secrets on the session bus (\(owned.map { $0.stdout + $0.stderr } ?? "gdbus did not run"))"
        }
        return nil
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


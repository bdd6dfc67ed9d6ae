import Keyring
import PushCore
import TestSupport
import Testing

/// A keyring that cannot be used fails every call with an error that says what to do; each
/// case runs in a session of its own (see `PrivateSession`).
@Suite(.timeLimit(.minutes(1)))
struct KeyringUnavailableTests {
    @Test func withoutSessionBusEveryCallSaysSo() async throws {
        try await PrivateSession.run(sessionBus: false) {
            try await expectEveryCall(toThrow: .noSessionBus)
            #expect(KeyringError.noSessionBus.description.contains("session bus"))
        }
    }

    @Test func withoutSecretServiceEveryCallSaysWhatToInstall() async throws {
        try await PrivateSession.run(keyring: .none) {
            try await expectEveryCall(toThrow: .serviceUnavailable)
            let advice = KeyringError.serviceUnavailable.description
            #expect(advice.contains("gnome-keyring") && advice.contains("KeePassXC") && advice.contains("session bus"))
        }
    }

    private func expectEveryCall(toThrow expected: KeyringError) async throws {
        let keyring = Keyring()
        let account = try testAccount("anyone", on: "https://unavailable.example")
        let token = try uniqueToken()
        await #expect(throws: expected) { try await keyring.list() }
        await #expect(throws: expected) { try await keyring.token(for: account) }
        await #expect(throws: expected) { try await keyring.delete(account) }
        let storeError = await #expect(throws: expected) { try await keyring.store(token, for: account) }
        #expect(storeError.map { !"\($0)".contains(token.secret) } ?? false)
        // Not "wait and retry": nothing will answer until the desktop changes.
        #expect(!expected.isWaitingForKeyring)
    }
}

import Keyring
import PushCore
import TestSupport
import Testing

/// A keyring that cannot be used fails every call with an error that says what to do; each
/// case runs in a session of its own (see `PrivateSession`).
@Suite(.timeLimit(.minutes(3)))
struct KeyringUnavailableTests {
    @Test func withoutSessionBusEveryCallSaysSo() async throws {
        try await PrivateSession.run(sessionBus: false) {
            try await expectEveryCall(toThrow: .noSessionBus, account: testAccount("anyone", on: "https://unavailable.example"))
            #expect(!KeyringError.noSessionBus.isWaitingForKeyring)
            #expect(KeyringError.noSessionBus.description.contains("session bus"))
        }
    }

    @Test func withoutSecretServiceEveryCallSaysWhatToInstall() async throws {
        try await PrivateSession.run(keyring: .none) {
            try await expectEveryCall(toThrow: .serviceUnavailable, account: testAccount("anyone", on: "https://unavailable.example"))
            #expect(!KeyringError.serviceUnavailable.isWaitingForKeyring)
            let advice = KeyringError.serviceUnavailable.description
            #expect(advice.contains("gnome-keyring") && advice.contains("KeePassXC") && advice.contains("session bus"))
        }
    }
}

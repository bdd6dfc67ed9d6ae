import Foundation
import Glibc
import PushCore
import TestSupport
import Testing

/// The keyring as a live source, with the real gbnotifyd: what anyone stores in it, or unlocks,
/// is read at once, and a keyring that waits for its user is said to wait, never taken for an
/// empty one.
@Suite struct KeyringLiveTests {
    @Test func anAccountStoredWithSecretToolIsPolledWithinFiveSecondsWithoutAReload() async throws {
        try await PrivateSession.run {
            let fixture = try await BinaryFixture.start(inKeyring: false)
            try await fixture.standin.addNotification(for: "cmc")
            let readiness = try NotifySocket(path: fixture.home.notifySocket)
            let daemon = try RunningDaemon(environment: fixture.home.environment)
            #expect(try await readiness.receive() == "READY=1\nSTATUS=Polling 0 accounts")

            try await SecretTool.store(instance: fixture.standin.url, user: "cmc", token: fixture.token)
            try await daemon.waitForPoll(of: fixture.account, saying: "200 ok, 1 new", timeout: .seconds(5))

            try await SecretTool.clear(instance: fixture.standin.url, user: "cmc")
            try await daemon.waitForEvent("\(fixture.name) retired", timeout: .seconds(5)) { $0 == .retired(fixture.account) }
            #expect(!daemon.events.value.contains(.reloading))

            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            await fixture.finish()
        }
    }

    /// KeePassXC holds the reply to a search while its unlock dialog is up, however long: the
    /// daemon is ready meanwhile, says what it waits for, and polls once the user unlocks.
    @Test(.timeLimit(.minutes(2)))
    func aLockedKeyringIsWaitedForAndSaidSoThenPolledOnceUnlocked() async throws {
        try await PrivateSession.run(keyring: .keepassxc) {
            let fixture = try await BinaryFixture.start()
            let home = fixture.home
            try await fixture.standin.addNotification(for: "cmc")
            try await SecretServiceControl.lockKeePassXC()

            let readiness = try NotifySocket(path: home.notifySocket)
            let daemon = try RunningDaemon(environment: home.environment)
            try await SecretServiceControl.focus(.keepassxcUnlock)
            #expect(try await readiness.receive() == "READY=1\nSTATUS=Waiting for the keyring")
            try await daemon.waitForEvent("a wait for the unlock") { event in
                if case .keyringWaiting(let what) = event { what.hasPrefix("waiting for the keyring to be unlocked") } else { false }
            }
            let waiting = try JSONDecoder().decode(DaemonStatus.self, from: Data(try await home.ctl(["status", "--json"]).stdout.utf8))
            #expect(waiting.keyringWaiting?.contains("unlock dialog") == true)
            #expect(waiting.keyringWait == .unlock)
            #expect(try await home.ctl(["status"]).stdout.contains("waiting for the keyring"))
            let german = try await home.ctl(["status"], adding: try await Translations.environment("de")).stdout
            #expect(german.contains("\nWarten auf das Entsperren des Schlüsselbunds: Geben Sie sein Passwort im Entsperrdialog ein"), "\(german)")

            try await SecretServiceControl.type(SecretServiceControl.password)
            try await SecretServiceControl.press("Return")
            try await daemon.waitForPoll(of: fixture.account, saying: "200 ok, 1 new")
            #expect(try await readiness.receive() == "STATUS=Polling 1 account")
            let answered = try JSONDecoder().decode(DaemonStatus.self, from: Data(try await home.ctl(["status", "--json"]).stdout.utf8))
            #expect(answered.keyringWaiting == nil)
            #expect(daemon.lines(containing: "the keyring answered").count == 1)

            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            await fixture.finish()
        }
    }
}

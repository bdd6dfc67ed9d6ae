import DBus
import Keyring
import MainLoop
import PushCore
import Synchronization
import TestSupport
import Testing

/// A keyring that is locked, unlocked, and written to by another program, on each Secret
/// Service: what the keyring's calls answer, and the changes `KeyringChanges` reports. Each
/// test runs in a session of its own, since locking the keyring would upset every test beside it.
@Suite(.timeLimit(.minutes(3)))
struct LockedKeyringTests {
    /// Headless, gnome-keyring cannot show its unlock prompt (no prompter on this bus), which the
    /// keyring sees as a dismissed one.
    @Test func gnomeKeyringLockedIsLockedAndItsChangesAreFollowed() async throws {
        try await PrivateSession.run(keyring: .gnome) {
            let connection = try await DBusConnection.connect()
            let (account, token) = try await storedBySecretTool("locked-out", on: "https://locked.example", connection)
            try await SecretServiceControl.lockDefaultCollection()

            try await expectEveryCall(toThrow: .locked, account: account)
            #expect(KeyringError.locked.isWaitingForKeyring)

            try await expectChange(on: connection, "an unlock") {
                try await GnomeKeyring.unlockLogin(with: SecretServiceControl.password, on: connection)
            }
            #expect(try await Keyring().token(for: account) == token)
        }
    }

    /// KeePassXC shows its unlock dialog inside the search itself, and answers it with no items
    /// when the dialog is closed: that is "locked", not an empty keyring.
    @Test func keepassxcUnlockClosedIsLockedAndUnlockingThroughItsDialogIsFollowed() async throws {
        try await PrivateSession.run(keyring: .keepassxc) {
            try await expectUnlockThroughDialog(.keepassxcUnlock, lock: SecretServiceControl.lockKeePassXC)
        }
    }

    /// KWallet asks for the wallet's password in a prompt of its own.
    @Test func kwalletUnlockClosedIsLockedAndUnlockingThroughItsDialogIsFollowed() async throws {
        try await PrivateSession.run(keyring: .kwallet) {
            try await expectUnlockThroughDialog(.kwalletUnlock, lock: SecretServiceControl.lockDefaultCollection)
        }
    }

    /// An account stored by secret-tool is a change; locked with `lock`, a listing waits for
    /// `dialog` as long as its caller lets it (`timedOut` once the caller's clock says its time is
    /// up, the dialog still on screen); the dialog closed, it is `locked`; answered, the account
    /// is read and the unlock is a change. Each step's dialog is its own call's (see
    /// `SecretServiceControl`).
    private func expectUnlockThroughDialog(
        _ dialog: SecretServiceControl.Dialog, lock: () async throws -> Void
    ) async throws {
        let connection = try await DBusConnection.connect()
        let (account, token) = try await storedBySecretTool("dialogued", on: "https://dialog.example", connection)
        try await lock()

        // The caller decides how long a call may wait for the user: here its time runs out by
        // its own clock while the dialog is up.
        let clock = ManualClock()
        let impatient = Keyring(answerWithin: .seconds(1), timeline: Timeline(clock))
        let gaveUp = try await SecretServiceControl.answer(dialog, by: {
            try await clock.waitForSleepers(1)
            clock.advance(by: .seconds(1))
        }, during: { await outcome { try await impatient.list() } })
        #expect(throws: KeyringError.timedOut) { try gaveUp.get() }
        #expect(KeyringError.timedOut.isWaitingForKeyring)
        // Neither KeePassXC nor KWallet takes its dialog down when the call gives up on it.
        try await SecretServiceControl.close(dialog)

        let waits = WaitRecorder()
        let keyring = Keyring(reportingWaits: KeyringWaitReport(after: .zero) { waits.add($0) })
        let closed = try await SecretServiceControl.answer(dialog, by: {
            try await SecretServiceControl.press("Escape")
        }, during: { await outcome { try await keyring.list() } })
        #expect(throws: KeyringError.locked) { try closed.get() }
        #expect(waits.seen.contains(.unlock) && !waits.seen.contains(.access))

        try await expectChange(on: connection, "an unlock through its dialog") {
            let unlocked = try await SecretServiceControl.answer(dialog, by: {
                try await SecretServiceControl.type(SecretServiceControl.password)
                try await SecretServiceControl.press("Return")
            }, during: { await outcome { try await keyring.list() } })
            let listing = try unlocked.get()
            #expect(listing.accounts.first { $0.account == account }?.token == token,
                    "accounts \(listing.accounts.map(\.account)), skipped \(listing.skipped)")
        }
    }

    /// An account stored by `secret-tool`, and the change it made seen.
    private func storedBySecretTool(
        _ user: String, on instance: String, _ connection: DBusConnection
    ) async throws -> (Account, APIToken) {
        let account = try testAccount(user, on: instance)
        let token = try uniqueToken()
        try await expectChange(on: connection, "a store by secret-tool") {
            try await SecretTool.store(
                label: "by hand", attributes: ["instance": account.instance.url, "user": account.username],
                secret: token.secret)
        }
        return (account, token)
    }

    /// KeePassXC's access dialog (its default), closed without allowing: the keyring is open, the
    /// items are closed to this program, and that is what the error says.
    @Test func keepassxcAccessDialogRefusedIsAccessRefused() async throws {
        try await PrivateSession.run(keyring: .keepassxcConfirm) {
            let account = try testAccount("guarded", on: "https://guarded.example")
            try await SecretTool.store(
                label: "by hand", attributes: ["instance": account.instance.url, "user": account.username],
                secret: try uniqueToken().secret)

            let waits = WaitRecorder()
            let keyring = Keyring(reportingWaits: KeyringWaitReport(after: .zero) { waits.add($0) })
            let refused = try await SecretServiceControl.answer(.keepassxcAccess, by: {
                try await SecretServiceControl.press("Escape")
            }, during: { await outcome { try await keyring.list() } })
            #expect(throws: KeyringError.accessRefused) { try refused.get() }
            #expect(waits.seen.contains(.access))
            #expect(KeyringError.accessRefused.isWaitingForKeyring)
        }
    }

    /// Subscribes, runs `action`, and waits (at most a minute) for a change. The subscription
    /// starts after everything before it has been answered, so a change from earlier steps
    /// cannot stand in for one from `action`.
    private func expectChange(
        on connection: DBusConnection, _ what: String, _ action: () async throws -> Void
    ) async throws {
        // A stream, so that the deadline's cancellation ends the wait.
        let (changes, feed) = AsyncStream.makeStream(of: KeyringChange.self)
        let following = try await KeyringChanges.follow(on: connection) { feed.yield($0) }
        defer { following.cancel() }
        try await action()
        let changed = try await withDeadline(.seconds(60), "a keyring change: \(what)") {
            var iterator = changes.makeAsyncIterator()
            return await iterator.next() != nil
        }
        #expect(changed, Comment(rawValue: what))
    }
}

/// What a keyring call returned or threw, as a value (for `SecretServiceControl.answer`, where
/// an error is an answer the test expects).
private func outcome<Value: Sendable>(_ call: () async throws -> Value) async -> Result<Value, any Error> {
    do {
        return .success(try await call())
    } catch {
        return .failure(error)
    }
}

/// What a keyring call reported waiting for.
final class WaitRecorder: Sendable {
    private let waits = Mutex<[KeyringWait]>([])

    func add(_ wait: KeyringWait) {
        waits.withLock { $0.append(wait) }
    }

    var seen: [KeyringWait] { waits.withLock { $0 } }
}

/// gnome-keyring's own unlock, as its login does it: the password handed over in a plain
/// session on the caller's connection (only ever the test session's throw-away keyring).
enum GnomeKeyring {
    static func unlockLogin(with password: String, on connection: DBusConnection) async throws {
        let opened = try await connection.call(
            destination: "org.freedesktop.secrets", path: "/org/freedesktop/secrets",
            interface: "org.freedesktop.Secret.Service", member: "OpenSession",
            arguments: [.string("plain"), .variant(.string(""))])
        let session = try #require(opened.last?.objectPathValue)
        _ = try await connection.call(
            destination: "org.freedesktop.secrets", path: "/org/freedesktop/secrets",
            interface: "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface", member: "UnlockWithMasterPassword",
            arguments: [
                .objectPath("/org/freedesktop/secrets/collection/login"),
                .struct([
                    .objectPath(session), .array(elementSignature: "y", []),
                    .array(elementSignature: "y", Array(password.utf8).map(DBusValue.byte)), .string("text/plain"),
                ]),
            ])
    }
}

import Foundation
import Synchronization
import Testing
import TestSupport

/// gbnotifyctl against a keyring that asks the user first (a locked KeePassXC database), in a
/// session of its own, the dialog answered through the keyboard.
@Suite(.timeLimit(.minutes(2)))
struct KeyringPromptTests {
    static let waitingLine = "gbnotifyctl: waiting for the keyring to be unlocked"

    /// D-Bus gives up on a reply after 25 s; KeePassXC holds its reply to the search while its
    /// unlock dialog is up. gbnotifyctl says at once what it waits for, then waits as long as
    /// the user takes (here 30 s) and lists the account.
    @Test func accountListWaitsForAnUnlockAfterThirtySecondsAndSaysSoAtOnce() async throws {
        try await PrivateSession.run(keyring: .keepassxc) {
            try await SecretTool.store(instance: "https://waited.example", user: "patient", token: "gb_waitedforthirtyseconds")
            try await SecretServiceControl.lockKeePassXC()

            // From the dialog's coming up, when gbnotifyctl has begun to wait: the time it took
            // to start and reach the keyring is the machine's, not what this asserts.
            let dialogUp = Moment()
            let (saidAt, outcome) = try await SecretServiceControl.answer(
                .keepassxcUnlock, within: .seconds(30) + SecretServiceControl.dialogLimit,
                by: {
                    dialogUp.set()
                    // The user takes half a minute to type the password. The 25 s to outlast are
                    // GDBus's own timer inside gbnotifyctl, which only real time moves.
                    try await Task.sleep(for: .seconds(30))
                    try await SecretServiceControl.focus(.keepassxcUnlock)
                    try await SecretServiceControl.type(SecretServiceControl.password)
                    try await SecretServiceControl.press("Return")
                },
                during: {
                    let started = ContinuousClock.now
                    let list = try Ctl().start(["account", "list"])
                    let saidAfter = try await Self.waitForStderr(of: list, containing: Self.waitingLine, from: started)
                    return (started + saidAfter, await list.finish())
                })
            let saidAfter = try #require(dialogUp.instant).duration(to: saidAt)
            #expect(saidAfter < .seconds(2), "the waiting line came \(saidAfter) after the dialog")
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stdout.hasPrefix("patient@waited.example\thttps://waited.example\t"), "\(outcome.stdout)")
            let lines = outcome.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix(Self.waitingLine), "\(outcome.stderr)")
            #expect(lines.first?.contains("unlock dialog") == true)
        }
    }

    /// The same wait said in German: gbnotifyctl's own line on standard error. The password is
    /// typed once the line is there, so the line is never raced.
    @Test func theWaitIsSaidInTheSessionsLanguage() async throws {
        try await PrivateSession.run(keyring: .keepassxc) {
            try await SecretTool.store(instance: "https://waited.example", user: "patient", token: "gb_waitedforthirtyseconds")
            try await SecretServiceControl.lockKeePassXC()
            let german = try await Translations.environment("de")
            let line = "gbnotifyctl: Warten auf das Entsperren des Schlüsselbunds: Geben Sie sein Passwort im Entsperrdialog ein"
            let started = Mutex<Program?>(nil)
            let outcome = try await SecretServiceControl.answer(
                .keepassxcUnlock,
                by: {
                    while started.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(20)) }
                    _ = try await Self.waitForStderr(of: try #require(started.withLock { $0 }), containing: line, from: .now)
                    try await SecretServiceControl.focus(.keepassxcUnlock)
                    try await SecretServiceControl.type(SecretServiceControl.password)
                    try await SecretServiceControl.press("Return")
                },
                during: {
                    let list = try Ctl().start(["account", "list"], adding: german)
                    started.withLock { $0 = list }
                    return await list.finish()
                })
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stderr.hasPrefix(line), "\(outcome.stderr)")
            #expect(outcome.stdout.hasPrefix("patient@waited.example\thttps://waited.example\t"), "\(outcome.stdout)")
        }
    }

    /// How long after `start` the program's standard error held `text`; fails after a minute
    /// (a loaded machine can take seconds to start a program).
    static func waitForStderr(
        of program: Program, containing text: String, from start: ContinuousClock.Instant
    ) async throws -> Duration {
        // Standard error is a file: there is nothing to wait on but the file itself.
        while !program.stderrSoFar.contains(text) {
            try #require(ContinuousClock.now - start < SecretServiceControl.dialogLimit, "no '\(text)' yet: \(program.stderrSoFar)")
            try await Task.sleep(for: .milliseconds(20))
        }
        return ContinuousClock.now - start
    }
}

/// When something happened, set once from any task.
private final class Moment: Sendable {
    private let moment = Mutex<ContinuousClock.Instant?>(nil)

    var instant: ContinuousClock.Instant? { moment.withLock { $0 } }

    func set() {
        moment.withLock { $0 = $0 ?? .now }
    }
}

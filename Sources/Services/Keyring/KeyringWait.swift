import MainLoop
import Synchronization

/// What a keyring call is waiting for while the Secret Service has not answered: the keyring
/// knows which step it is on, and so what the user would have to answer.
public enum KeyringWait: Sendable, Hashable, CustomStringConvertible {
    /// A collection is locked: the service's unlock dialog (KeePassXC shows its own inside the
    /// search itself).
    case unlock
    /// The collection is unlocked but the items are not, for this program: the service asks
    /// whether it may read them (KeePassXC's access dialog).
    case access
    /// A deletion the service asks the user to confirm (KeePassXC's "delete entry?" dialog).
    case confirmation
    /// No answer yet from a call that shows no prompt the keyring knows of.
    case answer

    /// What to do, as one line a program can print after its own name.
    public var description: String {
        switch self {
        case .unlock:
            "waiting for the keyring to be unlocked: type its password in the keyring's unlock dialog "
                + "(close the dialog to give up)"
        case .access:
            "waiting for the keyring to allow access: choose Allow in the keyring's access dialog "
                + "(Deny refuses)"
        case .confirmation:
            "waiting for the keyring: confirm the deletion in the keyring's dialog"
        case .answer:
            "waiting for the keyring to answer; if it shows a dialog, answer it"
        }
    }
}

/// Tells someone (gbnotifyctl, on standard error) what a keyring call waits for, once it has
/// waited `after` in one step. Each kind of wait is reported at most once per call.
public struct KeyringWaitReport: Sendable {
    let after: Duration
    let report: @Sendable (KeyringWait) -> Void

    public init(after: Duration, _ report: @escaping @Sendable (KeyringWait) -> Void) {
        self.after = after
        self.report = report
    }
}

/// One keyring call's waits: the keyring says when a step that may wait begins and ends; an alarm on `timeline` reports the step if it is still going after the report's delay.
final class WaitTracker: Sendable {
    private struct State {
        var step: UInt64 = 0
        var current: KeyringWait?
        var reported: Set<KeyringWait> = []
        var alarm: Timeline.Alarm?
    }

    private let report: KeyringWaitReport?
    private let timeline: Timeline
    /// Shared by the keyring call's steps and the report's alarm: both on the loop's thread on
    /// the real clock, the alarm on a pool thread on a test's manual clock.
    private let state = Mutex(State())

    init(_ report: KeyringWaitReport?, timeline: Timeline) {
        self.report = report
        self.timeline = timeline
    }

    /// Runs `body`, a step that may wait for the user in the way `wait` says.
    nonisolated(nonsending) func during<Value, Failure: Error>(
        _ wait: KeyringWait, _ body: () async throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        begin(wait)
        defer { end() }
        return try await body()
    }

    private func begin(_ wait: KeyringWait) {
        guard let report else { return }
        state.withLock { state in
            state.step += 1
            state.current = wait
            guard !state.reported.contains(wait) else { return }
            let step = state.step
            state.alarm = timeline.alarm(after: report.after) {
                let due = self.state.withLock { state in
                    guard state.step == step, state.current == wait, !state.reported.contains(wait) else { return false }
                    state.reported.insert(wait)
                    return true
                }
                if due { report.report(wait) }
            }
        }
    }

    private func end() {
        guard report != nil else { return }
        state.withLock { state in
            state.current = nil
            state.alarm?.cancel()
            state.alarm = nil
        }
    }

    /// The call is over: no report after this.
    func finish() {
        end()
    }
}

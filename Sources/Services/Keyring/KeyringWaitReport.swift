import MainLoop
import PushCore
import Synchronization

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

import Synchronization

/// Lets a wake-up cut an account's wait for its next poll short. Wake-ups that come while no
/// one waits (during a poll) are kept as one, so several coalesce into one poll.
final class PollTrigger: Sendable {
    private struct State {
        var isPending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Ends the current wait, or the next one at once.
    func fire() {
        let waiter = state.withLock { state in
            guard let waiter = state.waiter else {
                state.isPending = true
                return nil as CheckedContinuation<Void, Never>?
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Forgets wake-ups that came before a poll that starts now, as that poll answers them.
    func clear() {
        state.withLock { $0.isPending = false }
    }

    /// Returns after `seconds` or at a wake-up, whichever is first: true for a wake-up. Throws
    /// `CancellationError` when the task is cancelled. One waiter at a time: the account's poll
    /// loop.
    @discardableResult
    func wait(upTo seconds: Double) async throws -> Bool {
        let woken = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return false
            }
            group.addTask {
                await self.nextFire()
                return true
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
        try Task.checkCancellation()
        return woken
    }

    private func nextFire() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if state.isPending {
                        state.isPending = false
                        return true
                    }
                    // Cancelled before it could wait: the handler below found no waiter.
                    if Task.isCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }?.resume()
        }
    }
}

import PushCore
import StateStore
import Synchronization
import Threads

/// The relay cursor file, written off the stream's path: a write fsyncs, which can take a
/// disk's while, and the next line's notice must not wait for it. Writes run on a worker thread
/// of their own, in order; a position saved while an older one still waits to be written
/// replaces it, so a burst of messages costs a few writes, and the newest position always
/// reaches the disk right after the write in progress.
final class RelayCursorStore: Sendable {
    private struct Pending {
        var cursor: RelayCursor?
        var isScheduled = false
    }

    private let directory: StateDirectory
    private let worker = SerialWorker()
    private let pending = Mutex(Pending())

    init(_ directory: StateDirectory) {
        self.directory = directory
    }

    func load() async throws(StateError) -> (cursor: RelayCursor?, warning: String?) {
        try await worker.run { () throws(StateError) in try self.directory.loadRelayCursor() }
    }

    /// Queues `cursor` to be written; `failed` hears of a write that did not work.
    func save(_ cursor: RelayCursor, failed: @escaping @Sendable (StateError) -> Void) {
        let schedule = pending.withLock { pending in
            pending.cursor = cursor
            defer { pending.isScheduled = true }
            return !pending.isScheduled
        }
        guard schedule else { return }
        worker.submit {
            let next = self.pending.withLock { pending in
                defer { pending = Pending() }
                return pending.cursor
            }
            guard let next else { return }
            do throws(StateError) {
                try self.directory.saveRelayCursor(next)
            } catch {
                failed(error)
            }
        }
    }

    /// Returns once every position saved before is on disk.
    func flush() async {
        await worker.run {}
    }
}

import PushCore
import StateStore
import Threads

/// The state directory, reached from async code without blocking it: its calls take an flock,
/// write and fsync, which can take a disk's while, so they run on a worker thread of their own
/// rather than on one of the few that run Swift tasks.
final class StateFiles: Sendable {
    let directory: StateDirectory
    private let worker = SerialWorker()

    init(_ directory: StateDirectory) {
        self.directory = directory
    }

    func installToken() async throws(StateError) -> (token: InstallToken, warning: String?) {
        try await worker.run { () throws(StateError) in try self.directory.installToken() }
    }

    func loadAccounts() async throws(StateError) -> (state: PersistedAccounts, warning: String?) {
        try await worker.run { () throws(StateError) in try self.directory.loadAccounts() }
    }

    /// Changes the account records under the directory's lock; returns the warning, if any,
    /// about a state file that had to be set aside.
    func updateAccounts(_ change: @escaping @Sendable (inout PersistedAccounts) -> Void) async throws(StateError) -> String? {
        try await worker.run { () throws(StateError) in try self.directory.updateAccounts(change).warning }
    }
}

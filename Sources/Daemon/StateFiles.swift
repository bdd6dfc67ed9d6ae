import Dispatch
import PushCore
import StateStore

/// The state directory, reached from async code without blocking it: its calls take an flock,
/// write and fsync, which can take a disk's while, so they run on a serial queue of their own
/// rather than on a thread of Swift's few cooperative ones.
final class StateFiles: Sendable {
    let directory: StateDirectory
    private let queue = DispatchQueue(label: "org.gitbay.gbnotifyd.state")

    init(_ directory: StateDirectory) {
        self.directory = directory
    }

    func installToken() async throws(StateError) -> (token: InstallToken, warning: String?) {
        try await run { () throws(StateError) in try self.directory.installToken() }
    }

    func loadAccounts() async throws(StateError) -> (state: PersistedAccounts, warning: String?) {
        try await run { () throws(StateError) in try self.directory.loadAccounts() }
    }

    /// Changes the account records under the directory's lock; returns the warning, if any,
    /// about a state file that had to be set aside.
    func updateAccounts(_ change: @escaping @Sendable (inout PersistedAccounts) -> Void) async throws(StateError) -> String? {
        try await run { () throws(StateError) in try self.directory.updateAccounts(change).warning }
    }

    private func run<Value: Sendable>(_ work: @escaping @Sendable () throws(StateError) -> Value) async throws(StateError) -> Value {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, StateError>, Never>) in
            queue.async { continuation.resume(returning: Result(catching: work)) }
        }
        return try result.get()
    }
}

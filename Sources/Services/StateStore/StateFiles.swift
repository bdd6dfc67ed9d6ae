import PushCore
import Synchronization
import MainLoop

/// The state directory, reached from async code without blocking it: its calls take an flock,
/// write and fsync, which can take a disk's while (tens of milliseconds on a busy one, during
/// which the main loop would serve nothing), so they run on one worker thread instead. One
/// worker for every file, so `flush()` returns when everything handed over before it is on disk
/// (before the system sleeps).
public final class StateFiles: Sendable {
    /// The files whose newest value is all that matters: a value saved while an older one still
    /// waits to be written replaces it, so a burst costs a few writes, and the newest always
    /// reaches the disk right after the write in progress.
    public enum LatestFile: Hashable, Sendable {
        case relayCursor
        case screen
    }

    public let directory: StateDirectory
    private let worker = SerialWorker(name: "gbnotify-state")
    private let pending = Mutex<[LatestFile: @Sendable () throws(StateError) -> Void]>([:])

    public init(_ directory: StateDirectory) {
        self.directory = directory
    }

    public func loadAccounts() async throws(StateError) -> (state: PersistedAccounts, warning: String?) {
        try await worker.run { () throws(StateError) in try self.directory.loadAccounts() }
    }

    /// Changes the account records under the directory's lock; returns the warning, if any,
    /// about a state file that had to be set aside.
    public func updateAccounts(_ change: @escaping @Sendable (inout PersistedAccounts) -> Void) async throws(StateError) -> String? {
        try await worker.run { () throws(StateError) in try self.directory.updateAccounts(change).warning }
    }

    /// Each account's device token, by account id (`StateDirectory.deviceTokens(for:)`).
    public func deviceTokens(for accounts: [Account]) async throws(StateError) -> (tokens: [String: DeviceToken], warning: String?) {
        let ids = accounts.map(\.id)
        return try await worker.run { () throws(StateError) in try self.directory.deviceTokens(for: ids) }
    }

    public func legacyInstallToken() async throws(StateError) -> DeviceToken? {
        try await worker.run { () throws(StateError) in try self.directory.legacyInstallToken() }
    }

    public func loadRelayCursor() async throws(StateError) -> (cursor: RelayCursor?, warning: String?) {
        try await worker.run { () throws(StateError) in try self.directory.loadRelayCursor() }
    }

    public func loadScreen() async throws(StateError) -> (saved: ScreenBook.Saved?, warning: String?) {
        try await worker.run { () throws(StateError) in try self.directory.loadScreen() }
    }

    /// The mutes and snoozes `gbnotifyctl` (or the daemon's Mute) noted.
    public func loadNoise() async throws(StateError) -> (record: NoiseRecord, warning: String?) {
        try await worker.run { () throws(StateError) in try self.directory.loadNoise() }
    }

    /// Changes the noise record under the directory's lock; returns the warning, if any, about
    /// a record that had to be set aside.
    public func updateNoise(_ change: @escaping @Sendable (inout NoiseRecord) -> Void) async throws(StateError) -> String? {
        try await worker.run { () throws(StateError) in try self.directory.updateNoise(change).warning }
    }

    /// Keeps a reply that could not be posted (`drafts.json`), under the directory's lock: false
    /// when the record is full and it was not kept; with the warning, if any, about a record
    /// that had to be set aside.
    public func keepDraft(_ draft: DraftRecord.Draft) async throws(StateError) -> (kept: Bool, warning: String?) {
        try await worker.run { () throws(StateError) in
            let (kept, warning) = try self.directory.updateDrafts { $0.keep(draft) }
            return (kept, warning)
        }
    }

    public func saveRelayCursor(_ cursor: RelayCursor, failed: @escaping @Sendable (StateError) -> Void) {
        save(.relayCursor, failed: failed) { () throws(StateError) in try self.directory.saveRelayCursor(cursor) }
    }

    /// Saves what is on screen; nil removes the file (nothing is).
    public func saveScreen(_ saved: ScreenBook.Saved?, failed: @escaping @Sendable (StateError) -> Void) {
        save(.screen, failed: failed) { () throws(StateError) in
            if let saved { try self.directory.saveScreen(saved) } else { try self.directory.removeScreen() }
        }
    }

    /// Returns once everything handed over before is on disk.
    public func flush() async {
        await worker.run {}
    }

    private func save(
        _ file: LatestFile, failed: @escaping @Sendable (StateError) -> Void,
        _ write: @escaping @Sendable () throws(StateError) -> Void
    ) {
        let isScheduled = pending.withLock { pending in
            defer { pending[file] = write }
            return pending[file] != nil
        }
        guard !isScheduled else { return }
        worker.submit {
            guard let newest = self.pending.withLock({ $0.removeValue(forKey: file) }) else { return }
            do throws(StateError) {
                try newest()
            } catch {
                failed(error)
            }
        }
    }
}

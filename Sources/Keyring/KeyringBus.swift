import DBus
import Synchronization

/// Where the keyring's D-Bus calls go: a connection its owner holds (the daemon's one), or a
/// session-bus connection of the keyring's own, opened on first use and kept while it lives.
final class KeyringBus: Sendable {
    private let shared: DBusConnection?
    /// The connection being opened or open; nil before the first use and after a failed one,
    /// so that the next call tries again.
    private let own = Mutex<Task<DBusConnection, any Error>?>(nil)

    init(shared: DBusConnection?) {
        self.shared = shared
    }

    func connection() async throws(KeyringError) -> DBusConnection {
        if let shared { return shared }
        let opening = own.withLock { opening in
            if let opening { return opening }
            let started = Task { try await DBusConnection.connect(to: .session) }
            opening = started
            return started
        }
        do {
            return try await opening.value
        } catch {
            own.withLock { if $0 == opening { $0 = nil } }
            throw .noSessionBus
        }
    }
}

import DBus
import Synchronization

/// Something in the keyring may have changed: whoever holds accounts from it reads them again.
/// Which kind of signal said so is only for the log; none says which items changed.
public enum KeyringChange: Sendable, Hashable, CustomStringConvertible {
    /// An item was created, changed or deleted in a collection (by anyone, `secret-tool` too).
    case items
    /// A collection was created, deleted, changed, locked or unlocked.
    case collections
    /// A Secret Service took `org.freedesktop.secrets` (started, or restarted).
    case serviceStarted

    public var description: String {
        switch self {
        case .items: "an item changed in the keyring"
        case .collections: "a keyring collection changed (created, deleted, locked or unlocked)"
        case .serviceStarted: "a Secret Service started"
        }
    }
}

/// The keyring as a live source: the Secret Service's signals, followed over a connection the
/// caller holds (the daemon's one), as `KeyringChange`s.
///
/// Signals count only from the current owner of `org.freedesktop.secrets`: any peer may send a
/// signal with these names, and one from elsewhere would only cost a needless read, but there
/// is no reason to let it.
public enum KeyringChanges {
    static let busName = "org.freedesktop.secrets"

    /// Changes from now on, until the stream is dropped or the connection closes. Throws if the
    /// bus refuses a subscription. A consumer that lags sees the newest change only: each says
    /// no more than "read again".
    public static func follow(on connection: DBusConnection) async throws -> AsyncStream<KeyringChange> {
        let rules: [(DBusMatchRule, KeyringChange)] = [
            // ItemCreated, ItemDeleted, ItemChanged.
            (DBusMatchRule(interface: "org.freedesktop.Secret.Collection"), .items),
            // CollectionCreated, CollectionDeleted, CollectionChanged.
            (DBusMatchRule(interface: "org.freedesktop.Secret.Service"), .collections),
            // A collection's properties, Locked among them.
            (
                DBusMatchRule(
                    interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                    arg0: "org.freedesktop.Secret.Collection"),
                .collections
            ),
        ]
        var streams: [(AsyncStream<DBusSignal>, KeyringChange)] = []
        for (rule, change) in rules {
            streams.append((try await connection.signals(matching: rule), change))
        }
        let subscriptions = streams
        let owners = try await connection.watchNameOwner(busName)

        let (changes, continuation) = AsyncStream.makeStream(of: KeyringChange.self, bufferingPolicy: .bufferingNewest(1))
        // The current owner, before any signal is judged by it; the watch's first answer is
        // the same owner again, and no start.
        let owner = CurrentOwner(try await connection.nameOwner(busName))
        let followers = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    var isFirst = true
                    for await next in owners {
                        owner.name.withLock { $0 = next }
                        if next != nil && !isFirst { continuation.yield(.serviceStarted) }
                        isFirst = false
                    }
                }
                for (signals, change) in subscriptions {
                    group.addTask {
                        for await signal in signals where owner.name.withLock({ $0 == signal.sender }) {
                            continuation.yield(change)
                        }
                    }
                }
                // The connection closed, and with it every stream.
                await group.waitForAll()
                continuation.finish()
            }
        }
        continuation.onTermination = { _ in followers.cancel() }
        return changes
    }
}

/// The unique name signals count from, shared by the tasks that follow them.
private final class CurrentOwner: Sendable {
    let name: Mutex<String?>

    init(_ name: String?) {
        self.name = Mutex(name)
    }
}

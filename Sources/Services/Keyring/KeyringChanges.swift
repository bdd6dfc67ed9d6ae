import DBus
import MainLoop

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
/// caller holds (the daemon's one), told as `KeyringChange`s by a call on the loop.
///
/// Signals count only from the current owner of `org.freedesktop.secrets`: any peer may send a
/// signal with these names, and one from elsewhere would only cost a needless read, but there
/// is no reason to let it.
public enum KeyringChanges {
    static let busName = "org.freedesktop.secrets"

    /// Tells `changed` of each change from now on, until the task returned is cancelled or the
    /// connection closes. Throws if the bus refuses a subscription. Each change says no more
    /// than "read again".
    @LoopActor
    public static func follow(
        on connection: DBusConnection, changed: @escaping @LoopActor (KeyringChange) -> Void
    ) async throws -> Task<Void, Never> {
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
        // The current owner, before any signal is judged by it; the watch's first answer is
        // the same owner again, and no start.
        let follower = Follower(owner: try await connection.nameOwner(busName), changed: changed)
        return Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await follower.follow(owners) }
                for (signals, change) in subscriptions {
                    group.addTask { await follower.follow(signals, as: change) }
                }
                // Until the connection closes, and with it every stream, or the task is cancelled.
                await group.waitForAll()
            }
        }
    }
}

/// The unique name signals count from, and who hears of a change. Its followers run on the
/// loop, so the owner they share needs no lock.
@LoopActor
private final class Follower {
    private var owner: String?
    private let changed: @LoopActor (KeyringChange) -> Void

    init(owner: String?, changed: @escaping @LoopActor (KeyringChange) -> Void) {
        self.owner = owner
        self.changed = changed
    }

    func follow(_ owners: AsyncStream<String?>) async {
        var isFirst = true
        for await next in owners {
            owner = next
            if next != nil && !isFirst { changed(.serviceStarted) }
            isFirst = false
        }
    }

    func follow(_ signals: AsyncStream<DBusSignal>, as change: KeyringChange) async {
        for await signal in signals where signal.sender == owner {
            changed(change)
        }
    }
}

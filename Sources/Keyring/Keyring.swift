import Dispatch
import PushCore

/// The gitbay accounts in the desktop keyring: Secret Service items of schema
/// `org.gitbay.Account` with attributes `instance` (the normalised URL) and `user`, the API
/// token as the secret. Anything that writes items of that shape, `secret-tool` included, adds
/// an account.
///
/// Items are found by reading every item of the schema and comparing the accounts they name,
/// not by exact attributes, so an item written with another spelling of the instance (a
/// trailing slash, `:443`, upper case) is found, replaced and deleted like one of ours.
public final class Keyring: Sendable {
    /// libsecret's calls block on D-Bus, and on an unlock prompt for as long as the user takes,
    /// so they run on this queue's thread rather than on Swift's cooperative pool, where a
    /// blocked thread is a core's worth of tasks that cannot run. One serial queue for the
    /// process: at most one unlock prompt is up at a time, a `store` is seen by the calls queued
    /// after it, and libsecret's process-wide service object is never used from two threads at
    /// once (done concurrently, first stores failed as if a prompt had been dismissed).
    private static let queue = DispatchQueue(label: "org.gitbay.Keyring")

    public init() {}

    /// Stores `token` for `account`, replacing the token of any item that names the same
    /// account.
    public func store(_ token: APIToken, for account: Account) async throws(KeyringError) {
        try await onKeyringThread { () throws(KeyringError) in
            try SecretStore.store(
                token.secret, label: "gitbay token for \(account.displayName)",
                attributes: [KeyringAttribute.instance: account.instance.url, KeyringAttribute.user: account.username])
            // The store replaced an item spelled exactly like ours; one for the same account
            // under another spelling of the instance would live on beside it.
            for item in try SecretStore.allItems()
            where item.names(account) && item.attributes[KeyringAttribute.instance] != account.instance.url {
                _ = try SecretStore.deleteItems(withExactly: item.attributes)
            }
        }
    }

    /// The token for `account`, or nil when the keyring holds none: the one `list()` shows.
    public func token(for account: Account) async throws(KeyringError) -> APIToken? {
        try await list().accounts.first { $0.account == account }?.token
    }

    /// Every account in the keyring, and the items of the schema that are not usable accounts.
    public func list() async throws(KeyringError) -> KeyringListing {
        try await onKeyringThread { () throws(KeyringError) in KeyringListing(reading: try SecretStore.allItems()) }
    }

    /// Deletes every item that names `account`; true when there was one.
    public func delete(_ account: Account) async throws(KeyringError) -> Bool {
        try await onKeyringThread { () throws(KeyringError) in
            var deleted = false
            for item in try SecretStore.allItems() where item.names(account) {
                // Two items with the same attributes go with the first call; the second finds none.
                if try SecretStore.deleteItems(withExactly: item.attributes) { deleted = true }
            }
            return deleted
        }
    }

    func onKeyringThread<Value: Sendable>(
        _ work: @escaping @Sendable () throws(KeyringError) -> Value
    ) async throws(KeyringError) -> Value {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, KeyringError>, Never>) in
            Self.queue.async { continuation.resume(returning: Result(catching: work)) }
        }
        return try result.get()
    }
}

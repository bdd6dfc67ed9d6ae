import DBus
import PushCore

/// The gitbay accounts in the desktop keyring: Secret Service items of schema
/// `org.gitbay.Account` with attributes `instance` (the normalised URL) and `user`, the API
/// token as the secret. Anything that writes items of that shape, `secret-tool` included, adds
/// an account.
///
/// Items are found by reading every item of the schema and comparing the accounts they name,
/// not by exact attributes, so an item written with another spelling of the instance (a
/// trailing slash, `:443`, upper case) is found, replaced and deleted like one of ours.
///
/// The Secret Service is spoken over D-Bus directly (libsecret would be a second D-Bus stack
/// with GLib under it); the items stay exactly what libsecret reads and writes.
public final class Keyring: Sendable {
    private let bus: KeyringBus
    private let operations = OneAtATime()

    /// A keyring reached over `connection`, a session-bus connection its owner keeps open (the
    /// daemon's one).
    public init(connection: DBusConnection) {
        bus = KeyringBus(shared: connection)
    }

    /// A keyring reached over a session-bus connection of its own, opened on first use: for
    /// gbnotifyctl and tests, which hold no other.
    public init() {
        bus = KeyringBus(shared: nil)
    }

    /// Stores `token` for `account`, replacing the token of any item that names the same
    /// account.
    public func store(_ token: APIToken, for account: Account) async throws(KeyringError) {
        try await withService { service in
            try await service.store(
                token.secret, label: "gitbay token for \(account.displayName)",
                attributes: [
                    ItemSchema.attribute: ItemSchema.account, KeyringAttribute.instance: account.instance.url,
                    KeyringAttribute.user: account.username,
                ])
            // The store replaced an item spelled exactly like ours; one for the same account
            // under another spelling of the instance would live on beside it.
            for item in try await service.items(of: ItemSchema.account)
            where item.names(account) && item.attributes[KeyringAttribute.instance] != account.instance.url {
                _ = try await service.delete(item)
            }
        }
    }

    /// The token for `account`, or nil when the keyring holds none: the one `list()` shows.
    public func token(for account: Account) async throws(KeyringError) -> APIToken? {
        try await list().accounts.first { $0.account == account }?.token
    }

    /// Every account in the keyring, and the items of the schema that are not usable accounts.
    public func list() async throws(KeyringError) -> KeyringListing {
        try await withService { service in KeyringListing(reading: try await service.items(of: ItemSchema.account)) }
    }

    /// Deletes every item that names `account`; true when there was one.
    public func delete(_ account: Account) async throws(KeyringError) -> Bool {
        try await withService { service in
            var deleted = false
            for item in try await service.items(of: ItemSchema.account) where item.names(account) {
                if try await service.delete(item) { deleted = true }
            }
            return deleted
        }
    }

    /// Runs `body` against the Secret Service once the operations before it are done, and
    /// reports whatever it throws as a `KeyringError`.
    func withService<Value>(_ body: (SecretService) async throws -> Value) async throws(KeyringError) -> Value {
        try await operations.run { () async throws(KeyringError) -> Value in
            let service = SecretService(connection: try await bus.connection())
            do {
                return try await body(service)
            } catch {
                throw KeyringError(error)
            }
        }
    }
}

/// The attribute names of the `org.gitbay.Account` schema.
enum KeyringAttribute {
    static let instance = "instance"
    static let user = "user"
}

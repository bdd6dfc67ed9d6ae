import DBus

/// One item of a schema as the keyring holds it, nothing validated yet.
struct KeyringItem: Sendable {
    let path: String
    let label: String
    let attributes: [String: String]
    /// Seconds since the epoch; decides between two items for one account.
    let modified: UInt64
    /// Empty when the item has no secret.
    let secret: String
}

/// The item schemas: the `xdg:schema` attribute libsecret (and so `secret-tool`) gives items.
enum ItemSchema {
    static let attribute = "xdg:schema"
    static let account = "org.gitbay.Account"
    static let relay = "org.gitbay.Relay"
}

/// The Secret Service's D-Bus API (`org.freedesktop.secrets`), the few calls the keyring makes,
/// over a `DBusConnection`. Nothing here blocks a thread: each call is an async D-Bus call,
/// and an unlock prompt is a signal awaited for as long as the user takes.
///
/// Failures are thrown as they come (`DBusError`, `KeyringError`); `Keyring` turns them into
/// `KeyringError`s in one place.
struct SecretService: Sendable {
    static let busName = "org.freedesktop.secrets"
    static let path = "/org/freedesktop/secrets"

    enum Interface {
        static let service = "org.freedesktop.Secret.Service"
        static let collection = "org.freedesktop.Secret.Collection"
        static let item = "org.freedesktop.Secret.Item"
        static let session = "org.freedesktop.Secret.Session"
        static let prompt = "org.freedesktop.Secret.Prompt"
    }

    enum ErrorName {
        static let isLocked = "org.freedesktop.Secret.Error.IsLocked"
        static let noSuchObject = "org.freedesktop.Secret.Error.NoSuchObject"
        static let notSupported = "org.freedesktop.DBus.Error.NotSupported"
    }

    /// How often a listing searches before a read failed by an item vanishing is reported.
    static let searchAttempts = 5

    let connection: DBusConnection

    func call(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = []) async throws -> [DBusValue] {
        try await connection.call(
            destination: Self.busName, path: path, interface: interface, member: member, arguments: arguments)
    }

    // MARK: Reading

    /// Every item of `schema` in every collection, with its secret, after asking to unlock the
    /// locked ones (`KeyringError.locked` when they stay locked).
    ///
    /// An item deleted by someone else between the search and the reading of it is left out:
    /// it is gone, as a search a moment later would say. Searching again is no cure for that
    /// case: under load, gnome-keyring goes on finding a deleted item (and its secret) for up
    /// to a second after its object has left the bus. A service that fails the whole of
    /// `GetSecrets` over one gone item is searched again instead, a few times at most.
    func items(of schema: String) async throws -> [KeyringItem] {
        var searches = 1
        while true {
            do {
                return try await searchOnce(schema)
            } catch let error as DBusError where error.isVanishedObject && searches < Self.searchAttempts {
                searches += 1
            }
        }
    }

    private func searchOnce(_ schema: String) async throws -> [KeyringItem] {
        let paths = try await unlockedItems(matching: [ItemSchema.attribute: schema])
        guard !paths.isEmpty else { return [] }
        return try await withSession { session in
            let reply = try await call(
                Self.path, Interface.service, "GetSecrets", [.objectPathArray(paths), .objectPath(session.path)])
            let secrets = try SecretServiceReplies.secrets(reply)
            let properties = try await itemProperties(paths)
            return try paths.compactMap { path in
                // Left out of either answer: deleted meanwhile.
                guard let secret = secrets[path], let item = properties[path] else { return nil }
                return KeyringItem(
                    path: path, label: item.label, attributes: item.attributes, modified: item.modified,
                    secret: try session.decode(secret))
            }
        }
    }

    /// The items matching `attributes`, the locked ones unlocked first (through a prompt if
    /// the service wants one). Whether they were is the service's word in a second search,
    /// not in the unlock's answer: services differ in what that lists (items, collections).
    private func unlockedItems(matching attributes: [String: String]) async throws -> [String] {
        let (unlocked, locked) = try await search(attributes)
        guard !locked.isEmpty else { return unlocked }
        try await unlock(locked)
        let (nowUnlocked, stillLocked) = try await search(attributes)
        guard stillLocked.isEmpty else { throw KeyringError.locked }
        return nowUnlocked
    }

    private func search(_ attributes: [String: String]) async throws -> (unlocked: [String], locked: [String]) {
        try SecretServiceReplies.searchItems(
            await call(Self.path, Interface.service, "SearchItems", [.stringDictionary(attributes)]))
    }

    /// Asks the service to unlock `objects`, showing its prompt if it has one; throws
    /// `KeyringError.locked` when the prompt is dismissed.
    private func unlock(_ objects: [String]) async throws {
        let reply = try await call(Self.path, Interface.service, "Unlock", [.objectPathArray(objects)])
        let (_, prompt) = try SecretServiceReplies.withPrompt("Unlock", reply)
        if prompt != "/" {
            _ = try await complete(prompt)
        }
    }

    /// Label, attributes and modification time of each item still there, read side by side.
    private func itemProperties(_ paths: [String]) async throws -> [String: ItemProperties] {
        try await withThrowingTaskGroup(of: (String, ItemProperties?).self) { group in
            for path in paths {
                group.addTask {
                    do {
                        let reply = try await call(
                            path, "org.freedesktop.DBus.Properties", "GetAll", [.string(Interface.item)])
                        return (path, try SecretServiceReplies.itemProperties(reply))
                    } catch let error as DBusError where error.isVanishedObject {
                        return (path, nil)
                    }
                }
            }
            var properties: [String: ItemProperties] = [:]
            for try await (path, item) in group { properties[path] = item }
            return properties
        }
    }

    // MARK: Writing

    /// Creates the item in the default collection, or replaces the secret and label of the
    /// item there with exactly these attributes (`xdg:schema` included).
    func store(_ secret: String, label: String, attributes: [String: String]) async throws {
        try await withSession { session in
            let collection = try await defaultCollection()
            let properties = DBusValue.vardict([
                "\(Interface.item).Label": .string(label),
                "\(Interface.item).Attributes": .stringDictionary(attributes),
            ])
            let arguments = [properties, try session.encode(secret).dbusValue, .bool(true)]
            do {
                try await createItem(in: collection, arguments)
            } catch let error as DBusError where error.name == ErrorName.isLocked {
                // As libsecret does: unlock the collection (a prompt), then try once more;
                // still locked is `IsLocked` again.
                try await unlock([collection])
                try await createItem(in: collection, arguments)
            }
        }
    }

    private func createItem(in collection: String, _ arguments: [DBusValue]) async throws {
        let reply = try await call(collection, Interface.collection, "CreateItem", arguments)
        let (_, prompt) = try SecretServiceReplies.withPrompt("CreateItem", reply)
        if prompt != "/" {
            _ = try await complete(prompt)
        }
    }

    /// The collection the `default` alias names, where `secret-tool` stores too; created (as
    /// libsecret does, which may prompt for a password) when there is none.
    private func defaultCollection() async throws -> String {
        let alias = try SecretServiceReplies.readAlias(
            await call(Self.path, Interface.service, "ReadAlias", [.string("default")]))
        guard alias == "/" else { return alias }
        let reply = try await call(
            Self.path, Interface.service, "CreateCollection",
            [.vardict(["\(Interface.collection).Label": .string("Default keyring")]), .string("default")])
        let (collection, prompt) = try SecretServiceReplies.withPrompt("CreateCollection", reply)
        let created = prompt == "/" ? collection : try await complete(prompt)
        return try SecretServiceReplies.objectPath("CreateCollection", created)
    }

    /// Deletes the item; false when it was already gone.
    func delete(_ item: KeyringItem) async throws -> Bool {
        let reply: [DBusValue]
        do {
            reply = try await call(item.path, Interface.item, "Delete")
        } catch let error as DBusError where error.isVanishedObject {
            return false
        }
        let prompt = try SecretServiceReplies.promptOnly("Delete", reply)
        if prompt != "/" {
            _ = try await complete(prompt)
        }
        return true
    }
}

extension DBusError {
    /// The error of reaching for an item that was deleted after a search found it: the
    /// service's answer for a gone object, in any of the ways services say it.
    var isVanishedObject: Bool {
        [Name.unknownObject, Name.unknownMethod, Name.unknownInterface, SecretService.ErrorName.noSuchObject]
            .contains(name)
    }
}

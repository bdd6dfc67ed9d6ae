import CSecret

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

/// A Secret Service schema: its name (the items' `xdg:schema`, which libsecret and so
/// `secret-tool` give items) and its string attributes.
struct ItemSchema: Sendable {
    static let attribute = "xdg:schema"

    let name: String
    let attributes: [String]

    static let account = ItemSchema(name: "org.gitbay.Account", attributes: [KeyringAttribute.instance, KeyringAttribute.user])
    static let relay = ItemSchema(name: "org.gitbay.Relay", attributes: [RelayAttribute.url])
}

/// The blocking libsecret calls the keyring makes, on the keyring thread, against one open
/// `SecretService` and under one call's cancellation. Each step that may wait for the user is
/// announced to `waits` with what it waits for.
struct SecretServiceCalls {
    let service: UnsafeMutablePointer<SecretService>
    let cancellation: Cancellation
    let waits: WaitTracker

    /// How often a listing searches before a read failed by an item vanishing is reported.
    static let searchAttempts = 5

    // MARK: Reading

    /// Every item of `schema` in every collection, with its secret, after asking to unlock the
    /// locked ones.
    ///
    /// An item deleted by someone else between the search and the reading of it is left out: it
    /// is gone, as a search a moment later would say (gnome-keyring goes on finding a deleted
    /// item for up to a second after its object left the bus, so searching again is no cure).
    /// A service that fails the whole of `GetSecrets` over one gone item is searched again
    /// instead, a few times at most.
    func items(of schema: ItemSchema) throws(KeyringError) -> [KeyringItem] {
        var searches = 1
        while true {
            let reading: Reading
            do throws(GLibError) {
                reading = try readOnce(schema)
            } catch {
                guard error.isVanishedItem && searches < Self.searchAttempts else { throw keyringError(error) }
                searches += 1
                continue
            }
            switch reading {
            case .items(let items): return items
            case .unreadable(let why): throw why
            }
        }
    }

    private enum Reading {
        case items([KeyringItem])
        /// The service answered, but not with the items: locked, access refused, or secrets
        /// this session cannot read.
        case unreadable(KeyringError)
    }

    /// One search and what follows it; throws what libsecret failed with.
    private func readOnce(_ schema: ItemSchema) throws(GLibError) -> Reading {
        let lockedBefore = try lockedCollections()
        // KeePassXC, with every database locked, shows its unlock dialog inside the search.
        var (unlocked, locked) = try search(schema, waitingFor: lockedBefore.isEmpty ? .answer : .unlock)
        if unlocked.isEmpty && locked.isEmpty {
            // KeePassXC answers a search with nothing when its unlock dialog is closed, and never
            // lists the items of a locked database: with a collection still locked, finding
            // nothing says nothing about the accounts.
            if !lockedBefore.isEmpty, try !lockedCollections().isEmpty { return .unreadable(.locked) }
            return .items([])
        }
        if !locked.isEmpty {
            let inLockedCollection = locked.contains { lockedBefore.contains(Self.collection(ofItem: $0)) }
            // A prompt to unlock, or KeePassXC's access dialog; dismissed or refused is no error
            // here. Whether they were unlocked is the service's word in a second search: services
            // differ in what the unlock's answer lists (items, collections).
            _ = try waits.during(inLockedCollection ? .unlock : .access) { () throws(GLibError) in
                try Self.withPaths(locked) { paths throws(GLibError) in
                    try GLibBridge.call { error in
                        secret_service_unlock_dbus_paths_sync(service, paths, cancellation.cancellable, nil, error)
                    }
                }
            }
            (unlocked, locked) = try search(schema, waitingFor: .answer)
            if !locked.isEmpty {
                // Dismissed or refused, told apart by the collections as they are now.
                let lockedNow = try lockedCollections()
                let stillLocked = locked.contains { lockedNow.contains(Self.collection(ofItem: $0)) }
                return .unreadable(stillLocked ? .locked : .accessRefused)
            }
        }
        return try read(unlocked)
    }

    /// The object paths of the unlocked and the locked items of `schema`.
    private func search(_ schema: ItemSchema, waitingFor wait: KeyringWait) throws(GLibError) -> (unlocked: [String], locked: [String]) {
        try waits.during(wait) { () throws(GLibError) in
            try GLibBridge.withAttributeTable([ItemSchema.attribute: schema.name]) { table throws(GLibError) in
                var unlocked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
                var locked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
                defer {
                    g_strfreev(unlocked)
                    g_strfreev(locked)
                }
                _ = try GLibBridge.call { error in
                    // No schema: the attributes are matched as they are, and items written by
                    // another tool may carry attributes our schema does not declare.
                    secret_service_search_for_dbus_paths_sync(
                        service, nil, table, cancellation.cancellable, &unlocked, &locked, error)
                }
                return (GLibBridge.strings(unlocked), GLibBridge.strings(locked))
            }
        }
    }

    /// The items' secrets, labels, attributes and modification times. An item the service has
    /// no object for any more went away after the search: it is left out. One that is there
    /// but came without its secret is unreadable in this session (`failed`, for a new one).
    private func read(_ paths: [String]) throws(GLibError) -> Reading {
        guard !paths.isEmpty else { return .items([]) }
        let secrets = try waits.during(.answer) { () throws(GLibError) in
            try Self.withPaths(paths) { paths throws(GLibError) in
                try GLibBridge.call { error in
                    secret_service_get_secrets_for_dbus_paths_sync(service, paths, cancellation.cancellable, error)
                }
            }
        }
        defer { if let secrets { g_hash_table_unref(secrets) } }
        guard let secrets else { return .items([]) }
        let loads = try ItemLoads(paths, of: service, cancellable: cancellation.cancellable)
        // libsecret drops, without a word, a secret it cannot decrypt with the session's key, and
        // kwalletd5 5.103 derives another key than libsecret whenever their shared secret starts
        // with a zero byte (about one session in 200): every secret of such a session is lost.
        if paths.contains(where: { loads.items[$0] != nil && g_hash_table_lookup(secrets, $0) == nil }) {
            return .unreadable(.failed("the keyring's secrets could not be decrypted in this session"))
        }
        return .items(paths.compactMap { path -> KeyringItem? in
            guard let value = g_hash_table_lookup(secrets, path), let item = loads.items[path] else { return nil }
            var length = 0
            let bytes = secret_value_get(OpaquePointer(value), &length)
            return KeyringItem(
                path: path, label: GLibBridge.takeString(secret_item_get_label(item)) ?? "",
                attributes: secret_item_get_attributes(item).map(GLibBridge.takeAttributes) ?? [:],
                modified: UInt64(secret_item_get_modified(item)),
                secret: bytes.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) } ?? "")
        })
    }

    /// The object paths of the collections that are locked now, each asked afresh: a proxy
    /// made earlier may not have heard of an unlock yet.
    private func lockedCollections() throws(GLibError) -> Set<String> {
        guard let paths = g_dbus_proxy_get_cached_property(csecret_service_proxy(service), "Collections") else { return [] }
        defer { g_variant_unref(paths) }
        var count = 0
        guard let array = g_variant_get_objv(paths, &count) else { return [] }
        defer { g_free(array) }
        var locked: Set<String> = []
        for index in 0..<count {
            guard let path = array[index] else { continue }
            let collection: UnsafeMutablePointer<SecretCollection>?
            do throws(GLibError) {
                collection = try GLibBridge.call { error in
                    secret_collection_new_for_dbus_path_sync(service, path, SECRET_COLLECTION_NONE, cancellation.cancellable, error)
                }
            } catch {
                // Deleted since the service listed it: not locked, just gone.
                guard error.isVanishedItem else { throw error }
                continue
            }
            guard let collection else { continue }
            if secret_collection_get_locked(collection) != 0 { locked.insert(String(cString: path)) }
            g_object_unref(collection)
        }
        return locked
    }

    // MARK: Writing

    /// Creates the item in the default collection (made, as `secret-tool` would, if there is
    /// none), or replaces the secret and label of the item there with exactly these
    /// attributes. libsecret adds `xdg:schema`.
    func store(_ secret: String, label: String, attributes: [String: String], schema definition: ItemSchema) throws(KeyringError) {
        let stored: gboolean
        do throws(GLibError) {
            let wait: KeyringWait = try lockedCollections().isEmpty ? .answer : .unlock
            stored = try waits.during(wait) { () throws(GLibError) in
                try Self.withSchema(definition) { schema throws(GLibError) in
                    try GLibBridge.withAttributeTable(attributes) { table throws(GLibError) in
                        let value = secret_value_new(secret, -1, "text/plain")
                        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
                        return try GLibBridge.call { error in
                            // No collection: the default one, where secret-tool stores too.
                            secret_service_store_sync(service, schema, table, nil, label, value, cancellation.cancellable, error)
                        }
                    }
                }
            }
        } catch {
            throw keyringError(error)
        }
        // FALSE without an error: a prompt (to unlock, or to create the collection) was dismissed.
        guard stored != 0 else { throw .locked }
    }

    /// Deletes the item at `path`; false when it was already gone.
    func delete(_ path: String) throws(KeyringError) -> Bool {
        let deleted: gboolean
        do throws(GLibError) {
            guard
                let item = try GLibBridge.call({ error in
                    secret_item_new_for_dbus_path_sync(service, path, SECRET_ITEM_NONE, cancellation.cancellable, error)
                })
            else { return false }
            defer { g_object_unref(item) }
            // KeePassXC may ask the user to confirm.
            deleted = try waits.during(.confirmation) { () throws(GLibError) in
                try GLibBridge.call { error in secret_item_delete_sync(item, cancellation.cancellable, error) }
            }
        } catch {
            if error.isVanishedItem { return false }
            throw keyringError(error)
        }
        // FALSE without an error: the confirmation was refused.
        guard deleted != 0 else { throw .accessRefused }
        return true
    }

    // MARK: Pieces

    private func keyringError(_ error: GLibError) -> KeyringError {
        KeyringError(error, cancelled: cancellation.cancelledError)
    }

    /// An item's object path is its collection's with one more element, as the Secret Service
    /// API lays them out.
    private static func collection(ofItem path: String) -> String {
        String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
    }

    /// Runs `body` with `paths` as a NULL-terminated C array of C strings.
    private static func withPaths<Result, Failure: Error>(
        _ paths: [String], _ body: (UnsafeMutablePointer<UnsafePointer<gchar>?>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let copies = paths.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var array = copies.map { UnsafePointer($0) } + [nil]
        return try array.withUnsafeMutableBufferPointer { buffer throws(Failure) in try body(buffer.baseAddress!) }
    }

    /// Runs `body` with a new schema, released after it. `secret_schema_newv` copies the names
    /// out of the table, so the table is freed as soon as the schema exists.
    private static func withSchema<Result, Failure: Error>(
        _ definition: ItemSchema, _ body: (UnsafeMutablePointer<SecretSchema>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let types = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, nil)!
        // A value is the attribute's type; STRING is 0, so the "pointer" is NULL.
        let string = UnsafeMutableRawPointer(bitPattern: Int(SECRET_SCHEMA_ATTRIBUTE_STRING.rawValue))
        for name in definition.attributes {
            g_hash_table_insert(types, g_strdup(name), string)
        }
        let schema = secret_schema_newv(definition.name, SECRET_SCHEMA_NONE, types)!
        g_hash_table_unref(types)
        defer { secret_schema_unref(schema) }
        return try body(schema)
    }
}

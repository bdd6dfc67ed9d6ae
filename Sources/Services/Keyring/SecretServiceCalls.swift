internal import CSecret
import MainLoop
import PushCore

/// One item of a schema as the keyring holds it, nothing validated yet.
struct KeyringItem: Sendable {
    let path: String
    let label: String
    let attributes: [String: String]
    /// Seconds since the epoch; decides between two items for one account.
    let modified: UInt64
    /// Empty when the item has no secret, or when it was not read.
    let secret: String

    func with(secret: String) -> KeyringItem {
        KeyringItem(path: path, label: label, attributes: attributes, modified: modified, secret: secret)
    }
}

/// A Secret Service schema: its name (the items' `xdg:schema`, which libsecret and so
/// `secret-tool` give items) and its string attributes.
struct ItemSchema: Sendable {
    static let attribute = "xdg:schema"

    let name: String
    let attributes: [String]

    static let account = ItemSchema(
        name: "org.gitbay.Account", attributes: [KeyringAttribute.instance, KeyringAttribute.user] + SSHMint.attributeNames)
    static let relay = ItemSchema(name: "org.gitbay.Relay", attributes: [RelayAttribute.url])
}

/// The libsecret calls the keyring makes, asynchronous, on the main loop, against one open
/// `SecretService` and under one call's cancellation. Each step that may wait for the user is
/// announced to `waits` with what it waits for.
@LoopActor
struct SecretServiceCalls {
    let service: UnsafeMutablePointer<SecretService>
    let cancellation: Cancellation
    let waits: WaitTracker

    /// How often a listing searches before a read failed by an item vanishing is reported.
    static let searchAttempts = 5

    // MARK: Reading

    /// Every item of `schema` in every collection (of those, the ones whose attributes include
    /// `matching`), after asking to unlock the locked ones; with its secret when `readsSecret`
    /// says so of it, judged by its label and attributes: no other item's secret leaves the
    /// service.
    ///
    /// An item deleted by someone else between the search and the reading of it is left out: it
    /// is gone, as a search a moment later would say (gnome-keyring goes on finding a deleted
    /// item for up to a second after its object left the bus, so searching again is no cure).
    /// A service that fails the whole of `GetSecrets` over one gone item is searched again
    /// instead, a few times at most.
    func items(
        of schema: ItemSchema, matching: [String: String] = [:], readsSecret: (KeyringItem) -> Bool = { _ in true }
    ) async throws(KeyringError) -> [KeyringItem] {
        var searches = 1
        while true {
            let reading: Reading
            do throws(GLibError) {
                reading = try await readOnce(schema, matching: matching, readsSecret: readsSecret)
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
    private func readOnce(
        _ schema: ItemSchema, matching: [String: String], readsSecret: (KeyringItem) -> Bool
    ) async throws(GLibError) -> Reading {
        let lockedBefore = try await lockedCollections()
        // KeePassXC, with every database locked, shows its unlock dialog inside the search.
        var (unlocked, locked) = try await search(schema, matching: matching, waitingFor: lockedBefore.isEmpty ? .answer : .unlock)
        if unlocked.isEmpty && locked.isEmpty {
            // KeePassXC answers a search with nothing when its unlock dialog is closed, and never
            // lists the items of a locked database: with a collection still locked, finding
            // nothing says nothing about the accounts.
            if !lockedBefore.isEmpty, try await !lockedCollections().isEmpty { return .unreadable(.locked) }
            return .items([])
        }
        if !locked.isEmpty {
            let inLockedCollection = locked.contains { lockedBefore.contains(Self.collection(ofItem: $0)) }
            // A prompt to unlock, or KeePassXC's access dialog; dismissed or refused is no error
            // here. Whether they were unlocked is the service's word in a second search: services
            // differ in what the unlock's answer lists (items, collections).
            try await waits.during(inLockedCollection ? .unlock : .access) { () async throws(GLibError) in
                let paths = PathArray(locked)
                _ = try await GLibBridge.await { callback, data in
                    secret_service_unlock_dbus_paths(service, paths.pointer, cancellation.cancellable, callback, data)
                } finish: { result, error in
                    secret_service_unlock_dbus_paths_finish(service, result, nil, error)
                }
            }
            (unlocked, locked) = try await search(schema, matching: matching, waitingFor: .answer)
            if !locked.isEmpty {
                // Dismissed or refused, told apart by the collections as they are now.
                let lockedNow = try await lockedCollections()
                let stillLocked = locked.contains { lockedNow.contains(Self.collection(ofItem: $0)) }
                return .unreadable(stillLocked ? .locked : .accessRefused)
            }
        }
        return try await read(unlocked, readsSecret: readsSecret)
    }

    /// The object paths of the unlocked and the locked items of `schema` with the `matching`
    /// attributes.
    private func search(
        _ schema: ItemSchema, matching: [String: String], waitingFor wait: KeyringWait
    ) async throws(GLibError) -> (unlocked: [String], locked: [String]) {
        let attributes = matching.merging([ItemSchema.attribute: schema.name]) { $1 }
        return try await waits.during(wait) { () async throws(GLibError) in
            let table = AttributeTable(attributes)
            var unlocked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
            var locked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
            defer {
                g_strfreev(unlocked)
                g_strfreev(locked)
            }
            _ = try await GLibBridge.await { callback, data in
                // No schema: the attributes are matched as they are, and items written by
                // another tool may carry attributes our schema does not declare.
                secret_service_search_for_dbus_paths(service, nil, table.pointer, cancellation.cancellable, callback, data)
            } finish: { result, error in
                secret_service_search_for_dbus_paths_finish(service, result, &unlocked, &locked, error)
            }
            return (GLibBridge.strings(unlocked), GLibBridge.strings(locked))
        }
    }

    /// The items' labels, attributes and modification times, and the secrets of those that
    /// `readsSecret` picks by them: the properties come first, so the service hands over no
    /// secret that is not wanted. An item the service has no object for any more went away
    /// after the search: it is left out. One that is there but came without the secret asked
    /// for is unreadable in this session (`failed`, for a new one).
    private func read(_ paths: [String], readsSecret: (KeyringItem) -> Bool) async throws(GLibError) -> Reading {
        guard !paths.isEmpty else { return .items([]) }
        let loads = try await ItemLoads(paths, of: service, cancellable: cancellation.cancellable)
        let found = paths.compactMap { path -> KeyringItem? in
            guard let item = loads.items[path] else { return nil }
            return KeyringItem(
                path: path, label: GLibBridge.takeString(secret_item_get_label(item)) ?? "",
                attributes: secret_item_get_attributes(item).map(GLibBridge.takeAttributes) ?? [:],
                modified: UInt64(secret_item_get_modified(item)), secret: "")
        }
        let wanted = Set(found.filter(readsSecret).map(\.path))
        guard !wanted.isEmpty else { return .items(found) }
        // Through the item proxies, one `GetSecrets` for all of them. Not
        // `secret_service_get_secrets_for_dbus_paths`: up to libsecret 0.21.1 (Debian 12 has
        // 0.20.5) its finish never frees the service's reply, so every reading of the keyring
        // would leave every secret it read, and more, in the heap.
        try await waits.during(.answer) { () async throws(GLibError) in
            let list = ItemList(wanted.compactMap { loads.items[$0] })
            _ = try await GLibBridge.await { callback, data in
                secret_item_load_secrets(list.pointer, cancellation.cancellable, callback, data)
            } finish: { result, error in
                secret_item_load_secrets_finish(result, error)
            }
        }
        let secrets = loads.items.filter { wanted.contains($0.key) }.compactMapValues { item -> String? in
            guard let value = secret_item_get_secret(item) else { return nil }
            defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
            var length = 0
            let bytes = secret_value_get(value, &length)
            return bytes.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) } ?? ""
        }
        // libsecret drops, without a word, a secret it cannot decrypt with the session's key, and
        // kwalletd5 5.103 derives another key than libsecret whenever their shared secret starts
        // with a zero byte (about one session in 200): every secret of such a session is lost.
        // Some secrets missing, not all, are of items deleted since their properties came.
        guard wanted.contains(where: { secrets[$0] != nil }) else {
            return .unreadable(.failed("the keyring's secrets could not be decrypted in this session"))
        }
        return .items(found.compactMap { item -> KeyringItem? in
            guard wanted.contains(item.path) else { return item }
            return secrets[item.path].map(item.with(secret:))
        })
    }

    /// The object paths of the collections that are locked now, each asked afresh: a proxy
    /// made earlier may not have heard of an unlock yet.
    private func lockedCollections() async throws(GLibError) -> Set<String> {
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
                collection = try await GLibBridge.await { callback, data in
                    secret_collection_new_for_dbus_path(service, path, SECRET_COLLECTION_NONE, cancellation.cancellable, callback, data)
                } finish: { result, error in
                    secret_collection_new_for_dbus_path_finish(result, error)
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
    func store(_ secret: String, label: String, attributes: [String: String], schema definition: ItemSchema) async throws(KeyringError) {
        let stored: gboolean
        do throws(GLibError) {
            let wait: KeyringWait = try await lockedCollections().isEmpty ? .answer : .unlock
            stored = try await waits.during(wait) { () async throws(GLibError) in
                let schema = Schema(definition)
                let table = AttributeTable(attributes)
                let value = secret_value_new(secret, -1, "text/plain")
                defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
                return try await GLibBridge.await { callback, data in
                    // No collection: the default one, where secret-tool stores too.
                    secret_service_store(service, schema.pointer, table.pointer, nil, label, value, cancellation.cancellable, callback, data)
                } finish: { result, error in
                    secret_service_store_finish(service, result, error)
                }
            }
        } catch {
            throw keyringError(error)
        }
        // FALSE without an error: a prompt (to unlock, or to create the collection) was dismissed.
        guard stored != 0 else { throw .locked }
    }

    /// Deletes the item at `path`; false when it was already gone.
    func delete(_ path: String) async throws(KeyringError) -> Bool {
        let deleted: gboolean
        do throws(GLibError) {
            guard
                let item = try await GLibBridge.await({ callback, data in
                    secret_item_new_for_dbus_path(service, path, SECRET_ITEM_NONE, cancellation.cancellable, callback, data)
                }, finish: { result, error in
                    secret_item_new_for_dbus_path_finish(result, error)
                })
            else { return false }
            defer { g_object_unref(item) }
            // KeePassXC may ask the user to confirm.
            deleted = try await waits.during(.confirmation) { () async throws(GLibError) in
                try await GLibBridge.await { callback, data in
                    secret_item_delete(item, cancellation.cancellable, callback, data)
                } finish: { result, error in
                    secret_item_delete_finish(item, result, error)
                }
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
}

/// Object paths as the NULL-terminated array of C strings libsecret takes, for as long as the
/// call that reads them lasts.
private final class PathArray {
    private let copies: [UnsafeMutablePointer<CChar>?]
    private var array: [UnsafePointer<gchar>?]

    init(_ paths: [String]) {
        copies = paths.map { strdup($0) }
        array = copies.map { UnsafePointer($0) } + [nil]
    }

    deinit {
        copies.forEach { free($0) }
    }

    var pointer: UnsafeMutablePointer<UnsafePointer<gchar>?> {
        array.withUnsafeMutableBufferPointer { $0.baseAddress! }
    }
}

/// Item proxies as the `GList` libsecret takes, for as long as the call that reads it lasts. The
/// list holds no references of its own: the items stay their owner's.
private final class ItemList {
    let pointer: UnsafeMutablePointer<GList>?

    init(_ items: [UnsafeMutablePointer<SecretItem>]) {
        pointer = items.reduce(nil) { list, item in g_list_prepend(list, item) }
    }

    deinit {
        g_list_free(pointer)
    }
}

/// A `GHashTable` of string copies of attributes, for as long as the call that reads it lasts:
/// the table owns its copies (`g_free` on keys and values), so one unref frees everything.
private final class AttributeTable {
    let pointer: OpaquePointer

    init(_ attributes: [String: String]) {
        pointer = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free)!
        for (name, value) in attributes {
            g_hash_table_insert(pointer, g_strdup(name), g_strdup(value))
        }
    }

    deinit {
        g_hash_table_unref(pointer)
    }
}

/// A `SecretSchema` for an item schema, released with this. `secret_schema_newv` copies the names
/// out of the table, so the table is freed as soon as the schema exists.
private final class Schema {
    let pointer: UnsafeMutablePointer<SecretSchema>

    init(_ definition: ItemSchema) {
        let types = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, nil)!
        // A value is the attribute's type; STRING is 0, so the "pointer" is NULL.
        let string = UnsafeMutableRawPointer(bitPattern: Int(SECRET_SCHEMA_ATTRIBUTE_STRING.rawValue))
        for name in definition.attributes {
            g_hash_table_insert(types, g_strdup(name), string)
        }
        pointer = secret_schema_newv(definition.name, SECRET_SCHEMA_NONE, types)!
        g_hash_table_unref(types)
    }

    deinit {
        secret_schema_unref(pointer)
    }
}

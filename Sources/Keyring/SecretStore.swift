import CSecret

/// One item of the `org.gitbay.Account` schema as the keyring holds it, nothing validated yet.
struct KeyringItem: Sendable {
    let label: String
    let attributes: [String: String]
    /// Seconds since the epoch; decides between two items for one account.
    let modified: UInt64
    /// Empty when the item has no secret.
    let secret: String
}

/// The blocking libsecret calls, one per thing the keyring does, for items of the
/// `org.gitbay.Account` schema (or another `SecretSchema`, such as the relay's). Each may wait on D-Bus and on an unlock prompt for as long as the
/// user takes: `Keyring` runs them off Swift's cooperative pool.
enum SecretStore {
    /// A Secret Service schema: its name (the items' `xdg:schema`) and its string attributes.
    struct Schema: Sendable {
        let name: String
        let attributes: [String]

        static let account = Schema(name: "org.gitbay.Account", attributes: [KeyringAttribute.instance, KeyringAttribute.user])
    }

    /// How often a listing searches before an item vanishing under it is reported.
    private static let searchAttempts = 5

    /// Creates the item, or replaces the secret and label of the item with exactly these
    /// attributes, in the default collection. libsecret adds `xdg:schema`.
    static func store(
        _ secret: String, label: String, attributes: [String: String], schema definition: Schema = .account
    ) throws(KeyringError) {
        let stored = try withSessionBus { () throws(GLibError) in
            try withSchema(definition) { schema throws(GLibError) in
                try GLibBridge.withAttributeTable(attributes) { table throws(GLibError) in
                    try GLibBridge.call { error in
                        // nil collection: the default one, where secret-tool stores too.
                        secret_password_storev_sync(schema, table, nil, label, secret, nil, error)
                    }
                }
            }
        }
        // FALSE without an error: a prompt (to unlock or to create the collection) was dismissed.
        guard stored != 0 else { throw .locked }
    }

    /// Every item of the schema in every collection, with its secret, after asking to unlock
    /// the locked ones.
    ///
    /// An item deleted by someone else between the search and the reading of it fails the
    /// whole search; the keyring changed under us, so the search starts over, a few times at
    /// most (another process deleting items nonstop made three attempts fall short in tests).
    static func allItems(of schema: Schema = .account) throws(KeyringError) -> [KeyringItem] {
        try withSessionBus { () throws(GLibError) in
            var searches = 1
            while true {
                do throws(GLibError) {
                    return try searchOnce(schema)
                } catch {
                    guard error.isVanishedItem && searches < searchAttempts else { throw error }
                    searches += 1
                }
            }
        }
    }

    /// Deletes the items whose attributes are exactly `attributes` (`xdg:schema` included), and
    /// says whether there were any. No schema is passed: libsecret checks attributes against a
    /// schema and refuses (with a critical warning) any it does not declare, and an item written
    /// by another tool may carry more than ours.
    static func deleteItems(withExactly attributes: [String: String]) throws(KeyringError) -> Bool {
        try withSessionBus { () throws(GLibError) in
            try GLibBridge.withAttributeTable(attributes) { table throws(GLibError) in
                try GLibBridge.call { error in secret_password_clearv_sync(nil, table, nil, error) }
            }
        } != 0
    }

    // MARK: - Pieces

    /// The secrets are read with `secret_retrievable_retrieve_secret_sync`, the one reader that
    /// works with every libsecret backend. `SECRET_SEARCH_LOAD_SECRETS` is left out on purpose:
    /// it would fetch all the secrets in bulk first, only for that reader to fetch each again.
    private static func searchOnce(_ definition: Schema) throws(GLibError) -> [KeyringItem] {
        let flags = SecretSearchFlags(rawValue: SECRET_SEARCH_ALL.rawValue | SECRET_SEARCH_UNLOCK.rawValue)
        // NULL without an error is an empty list.
        let list = try withSchema(definition) { schema throws(GLibError) in
            try GLibBridge.withAttributeTable([:]) { table throws(GLibError) in
                try GLibBridge.call { error in secret_password_searchv_sync(schema, table, flags, nil, error) }
            }
        }
        // The list and a reference to each item in it are ours; this drops both, also when
        // reading an item throws halfway through.
        defer { g_list_free_full(list) { g_object_unref($0) } }
        var items: [KeyringItem] = []
        var node = list
        while let current = node {
            items.append(try read(OpaquePointer(current.pointee.data)))
            node = current.pointee.next
        }
        return items
    }

    private static func read(_ item: OpaquePointer?) throws(GLibError) -> KeyringItem {
        // A locked item fails here with SECRET_ERROR_IS_LOCKED: the search's unlock prompt was
        // dismissed or could not be shown.
        let value = try GLibBridge.call { error in secret_retrievable_retrieve_secret_sync(item, nil, error) }
        // retrieve hands over a reference to the value; it is dropped once the bytes are copied.
        defer { if let value { secret_value_unref(UnsafeMutableRawPointer(value)) } }
        var secret = ""
        if let value {
            var length = 0
            if let bytes = secret_value_get(value, &length) {
                secret = String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
            }
        }
        return KeyringItem(
            label: GLibBridge.takeString(secret_retrievable_get_label(item)) ?? "",
            attributes: secret_retrievable_get_attributes(item).map(GLibBridge.takeAttributes) ?? [:],
            modified: UInt64(secret_retrievable_get_modified(item)),
            secret: secret)
    }

    /// Runs `body` while holding GLib's shared session-bus connection, the one libsecret then
    /// uses, and turns its GLib errors into `KeyringError`s. libsecret would report a missing bus
    /// as one of many GIO errors; asking for the bus first tells that case apart. The reference
    /// is dropped after `body`.
    private static func withSessionBus<Result>(
        _ body: () throws(GLibError) -> Result
    ) throws(KeyringError) -> Result {
        let bus: OpaquePointer?
        do {
            bus = try GLibBridge.call { error in g_bus_get_sync(G_BUS_TYPE_SESSION, nil, error) }
        } catch {
            throw .noSessionBus
        }
        defer { if let bus { g_object_unref(UnsafeMutableRawPointer(bus)) } }
        do {
            return try body()
        } catch {
            throw KeyringError(error)
        }
    }

    /// Runs `body` with a new schema, released after it. `secret_schema_newv` copies the names
    /// out of the table, so the table is freed as soon as the schema exists.
    private static func withSchema<Result>(
        _ definition: Schema, _ body: (UnsafeMutablePointer<SecretSchema>) throws(GLibError) -> Result
    ) throws(GLibError) -> Result {
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

/// The attribute names of the `org.gitbay.Account` schema.
enum KeyringAttribute {
    static let instance = "instance"
    static let user = "user"
}

extension GLibError {
    /// The error of reaching for an item that was deleted after a search found it: libsecret's
    /// own "No such secret item at path", or the service's answer for a gone object.
    fileprivate var isVanishedItem: Bool {
        `is`(g_dbus_error_quark(), G_DBUS_ERROR_UNKNOWN_METHOD.rawValue)
            || `is`(g_dbus_error_quark(), G_DBUS_ERROR_UNKNOWN_OBJECT.rawValue)
            || `is`(secret_error_get_quark(), SECRET_ERROR_NO_SUCH_OBJECT.rawValue)
    }
}

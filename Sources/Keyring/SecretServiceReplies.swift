import DBus

/// A secret as the Secret Service's `(oayays)` struct carries it: the session it is encrypted
/// for, the cipher's parameters (the IV), the value and its content type.
struct WireSecret: Equatable {
    let session: String
    let parameters: [UInt8]
    let value: [UInt8]
    let contentType: String

    var dbusValue: DBusValue {
        .struct([.objectPath(session), .byteArray(parameters), .byteArray(value), .string(contentType)])
    }

    init(session: String, parameters: [UInt8], value: [UInt8], contentType: String) {
        self.session = session
        self.parameters = parameters
        self.value = value
        self.contentType = contentType
    }

    init?(_ value: DBusValue) {
        guard let fields = value.structValue, fields.count == 4, let session = fields[0].objectPathValue,
            let parameters = fields[1].byteArrayValue, let bytes = fields[2].byteArrayValue,
            let contentType = fields[3].stringValue
        else { return nil }
        self.init(session: session, parameters: parameters, value: bytes, contentType: contentType)
    }
}

/// An item's properties, as `org.freedesktop.DBus.Properties.GetAll` answers them.
struct ItemProperties: Equatable {
    let label: String
    let attributes: [String: String]
    /// Seconds since the epoch.
    let modified: UInt64
}

/// The shapes of the Secret Service's answers, checked before anything in them is used. A
/// service answering in another shape is a clear error naming the method, never a crash.
enum SecretServiceReplies {
    /// `SearchItems`: (unlocked ao, locked ao).
    static func searchItems(_ reply: [DBusValue]) throws(KeyringError) -> (unlocked: [String], locked: [String]) {
        guard reply.count == 2, let unlocked = reply[0].objectPaths, let locked = reply[1].objectPaths else {
            throw unexpected("SearchItems", reply)
        }
        return (unlocked, locked)
    }

    /// Methods that may need a prompt (`Unlock`, `CreateItem`, `CreateCollection`): (a value,
    /// prompt o), the prompt "/" when none is needed.
    static func withPrompt(_ method: String, _ reply: [DBusValue]) throws(KeyringError) -> (DBusValue, prompt: String) {
        guard reply.count == 2, let prompt = reply[1].objectPathValue else { throw unexpected(method, reply) }
        return (reply[0], prompt)
    }

    /// `Item.Delete`: (prompt o), "/" when none is needed.
    static func promptOnly(_ method: String, _ reply: [DBusValue]) throws(KeyringError) -> String {
        guard reply.count == 1, let prompt = reply[0].objectPathValue else { throw unexpected(method, reply) }
        return prompt
    }

    /// `CreateItem`'s or `CreateCollection`'s object path, or its prompt's result (o).
    static func objectPath(_ method: String, _ value: DBusValue) throws(KeyringError) -> String {
        guard let path = value.objectPathValue else { throw unexpected(method, [value]) }
        return path
    }

    /// `ReadAlias`: (o), "/" when the alias is not set.
    static func readAlias(_ reply: [DBusValue]) throws(KeyringError) -> String {
        guard reply.count == 1, let path = reply[0].objectPathValue else { throw unexpected("ReadAlias", reply) }
        return path
    }

    /// `OpenSession`: (output v, result o).
    static func openSession(_ reply: [DBusValue]) throws(KeyringError) -> (output: DBusValue, session: String) {
        guard reply.count == 2, let output = reply[0].variantValue, let session = reply[1].objectPathValue else {
            throw unexpected("OpenSession", reply)
        }
        return (output, session)
    }

    /// `GetSecrets`: a{o(oayays)}, by item path.
    static func secrets(_ reply: [DBusValue]) throws(KeyringError) -> [String: WireSecret] {
        guard reply.count == 1, let entries = reply[0].dictionaryValue else { throw unexpected("GetSecrets", reply) }
        var secrets: [String: WireSecret] = [:]
        for entry in entries {
            guard let path = entry.key.objectPathValue, let secret = WireSecret(entry.value) else {
                throw unexpected("GetSecrets", reply)
            }
            secrets[path] = secret
        }
        return secrets
    }

    /// `GetAll("org.freedesktop.Secret.Item")`: a{sv} with at least Label (s), Attributes
    /// (a{ss}) and Modified (t).
    static func itemProperties(_ reply: [DBusValue]) throws(KeyringError) -> ItemProperties {
        guard reply.count == 1, let properties = reply[0].vardictValue, let label = properties["Label"]?.stringValue,
            let attributeEntries = properties["Attributes"]?.dictionaryValue,
            let modified = properties["Modified"]?.uint64Value
        else { throw unexpected("GetAll", reply) }
        var attributes: [String: String] = [:]
        for entry in attributeEntries {
            guard let name = entry.key.stringValue, let value = entry.value.stringValue else {
                throw unexpected("GetAll", reply)
            }
            attributes[name] = value
        }
        return ItemProperties(label: label, attributes: attributes, modified: modified)
    }

    /// `Prompt.Completed`: (dismissed b, result v).
    static func promptCompleted(_ arguments: [DBusValue]) throws(KeyringError) -> (dismissed: Bool, result: DBusValue) {
        guard arguments.count == 2, let dismissed = arguments[0].boolValue, let result = arguments[1].variantValue else {
            throw unexpected("Prompt.Completed", arguments)
        }
        return (dismissed, result)
    }

    /// Names the types, never the values: a reply may hold secrets.
    private static func unexpected(_ method: String, _ values: [DBusValue]) -> KeyringError {
        let signature = values.map(\.signature).joined()
        return .failed("the Secret Service answered \(method) with values of type '\(signature.prefix(80))', which is not what the Secret Service API says")
    }
}

extension DBusValue {
    static func byteArray(_ bytes: [UInt8]) -> DBusValue {
        .array(elementSignature: "y", bytes.map(DBusValue.byte))
    }

    static func stringDictionary(_ entries: [String: String]) -> DBusValue {
        .dictionary(
            keySignature: "s", valueSignature: "s",
            entries.sorted { $0.key < $1.key }.map { DBusDictEntry(key: .string($0.key), value: .string($0.value)) })
    }

    static func objectPathArray(_ paths: [String]) -> DBusValue {
        .array(elementSignature: "o", paths.map(DBusValue.objectPath))
    }

    var byteArrayValue: [UInt8]? {
        guard case .array("y", let elements) = self else { return nil }
        return elements.compactMap(\.byteValue)
    }

    var objectPaths: [String]? {
        guard case .array("o", let elements) = self else { return nil }
        return elements.compactMap(\.objectPathValue)
    }
}

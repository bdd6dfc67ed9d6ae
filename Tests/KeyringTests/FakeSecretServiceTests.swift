import DBus
import Keyring
import PushCore
import Synchronization
import TestSupport
import Testing

/// What gnome-keyring does not do headless, against a Secret Service of the tests' making on a
/// private bus: a prompt the user accepts, a service that speaks only `plain`, no default
/// collection yet, an item deleted while it is read.
@Suite(.timeLimit(.minutes(3)))
struct FakeSecretServiceTests {
    @Test func plainOnlyServiceWithAnAcceptedUnlockPromptIsRead() async throws {
        try await PrivateSession.run(keyring: .none) {
            let service = try await FakeSecretService.start()
            let listing = try await Keyring().list()

            #expect(listing.accounts.map(\.account.displayName) == ["faker@fake-service.example"])
            #expect(listing.accounts.map(\.token.secret) == [FakeSecretService.storedSecret])
            // The deleted item the search still found is left out, not an error.
            #expect(listing.skipped.isEmpty)
            let seen = service.seen
            #expect(seen.algorithms == ["dh-ietf1024-sha256-aes128-cbc-pkcs7", "plain"])
            #expect(seen.prompts == [FakeSecretService.unlockPrompt])
        }
    }

    /// libsecret drops a secret it cannot decode without a word (kwalletd5's, in about one
    /// session in 200, see `SecretServiceCalls`): such a session is not a keyring without
    /// accounts, and the listing is read again in a new one.
    @Test func secretsTheSessionCannotDecodeAreReadAgainInANewSession() async throws {
        try await PrivateSession.run(keyring: .none) {
            let service = try await FakeSecretService.start(undecodableSecretsInFirstSession: true)
            let listing = try await Keyring().list()

            #expect(listing.accounts.map(\.token.secret) == [FakeSecretService.storedSecret])
            #expect(service.seen.sessions == [FakeSecretService.session, FakeSecretService.secondSession])
        }
    }

    @Test func storeCreatesTheDefaultCollectionThroughItsPrompt() async throws {
        try await PrivateSession.run(keyring: .none) {
            let service = try await FakeSecretService.start()
            let account = try Account(instance: try GitbayInstance(parsing: "https://new.example"), username: "newcomer")
            let token = try APIToken("gb_storedthroughthefake")
            try await Keyring().store(token, for: account)

            let seen = service.seen
            #expect(seen.prompts.first == FakeSecretService.createPrompt)
            let created = try #require(seen.created.first)
            #expect(seen.created.count == 1)
            #expect(created.collection == FakeSecretService.defaultAlias)
            #expect(created.label == "gitbay token for newcomer@new.example")
            #expect(created.attributes == [
                "xdg:schema": "org.gitbay.Account", "instance": "https://new.example", "user": "newcomer",
            ])
            #expect(created.secret == .struct([
                .objectPath(FakeSecretService.session), .array(elementSignature: "y", []),
                .array(elementSignature: "y", Array(token.secret.utf8).map(DBusValue.byte)), .string("text/plain"),
            ]))
            #expect(created.replace)
        }
    }
}

/// The least of the Secret Service API that the keyring's calls need, answering as the
/// freedesktop spec says, with one locked item of the account schema.
final class FakeSecretService: Sendable {
    static let root = "/org/freedesktop/secrets"
    static let collection = "\(root)/collection/fake"
    static let item = "\(collection)/1"
    /// Deleted, yet still found by the search and given a secret, as gnome-keyring does for a
    /// moment after a deletion; its object is gone from the bus.
    static let deletedItem = "\(collection)/0"
    /// Where `CreateItem` with no collection named goes: the object the default alias names.
    static let defaultAlias = "\(root)/aliases/default"
    static let session = "\(root)/session/plain1"
    /// The session a keyring that dropped the first one opens next.
    static let secondSession = "\(root)/session/plain2"
    static let unlockPrompt = "\(root)/prompt/unlock"
    static let createPrompt = "\(root)/prompt/create"
    static let storedSecret = "gb_fromthefakeservice"

    struct Created: Sendable {
        let collection: String
        let label: String?
        let attributes: [String: String]
        let secret: DBusValue
        let replace: Bool
    }

    struct Seen: Sendable {
        var algorithms: [String] = []
        var prompts: [String] = []
        var created: [Created] = []
        /// The plain sessions opened, in order.
        var sessions: [String] = []
        var itemUnlocked = false
        var collectionExists = false
    }

    let connection: DBusConnection
    private let undecodableSecretsInFirstSession: Bool
    private let state = Mutex(Seen())

    var seen: Seen { state.withLock { $0 } }

    private init(connection: DBusConnection, undecodableSecretsInFirstSession: Bool) {
        self.connection = connection
        self.undecodableSecretsInFirstSession = undecodableSecretsInFirstSession
    }

    /// - Parameter undecodableSecretsInFirstSession: the secrets of the first session come with
    ///   parameters, which a `plain` secret must not have: libsecret cannot decode them.
    static func start(undecodableSecretsInFirstSession: Bool = false) async throws -> FakeSecretService {
        let service = FakeSecretService(
            connection: try await DBusConnection.connect(), undecodableSecretsInFirstSession: undecodableSecretsInFirstSession)
        try await service.exportAll()
        try #require(try await service.connection.requestName("org.freedesktop.secrets"))
        return service
    }

    private func export(_ path: String, _ interface: String, _ methods: [DBusMethod]) async throws {
        try await connection.export(
            path: path, interface: interface, introspection: "<interface name=\"\(interface)\"/>", methods: methods)
    }

    private func exportAll() async throws {
        try await export(Self.root, "org.freedesktop.Secret.Service", [
            DBusMethod("OpenSession", input: "sv", output: "vo") { call in
                let algorithm = call.arguments[0].stringValue ?? ""
                self.state.withLock { $0.algorithms.append(algorithm) }
                guard algorithm == "plain" else {
                    throw DBusError(name: "org.freedesktop.DBus.Error.NotSupported", message: "plain only")
                }
                let session = self.state.withLock { seen in
                    seen.sessions.append(seen.sessions.isEmpty ? Self.session : Self.secondSession)
                    return seen.sessions.last!
                }
                return [.variant(.string("")), .objectPath(session)]
            },
            DBusMethod("SearchItems", input: "a{ss}", output: "aoao") { _ in
                let unlocked = self.state.withLock { $0.itemUnlocked }
                let items = DBusValue.array(elementSignature: "o", [.objectPath(Self.deletedItem), .objectPath(Self.item)])
                let none = DBusValue.array(elementSignature: "o", [])
                return unlocked ? [items, none] : [none, items]
            },
            DBusMethod("Unlock", input: "ao", output: "aoo") { _ in
                [.array(elementSignature: "o", []), .objectPath(Self.unlockPrompt)]
            },
            DBusMethod("GetSecrets", input: "aoo", output: "a{o(oayays)}") { call in
                let session = call.arguments[1].objectPathValue ?? ""
                let undecodable = self.undecodableSecretsInFirstSession && session == Self.session
                let secret = DBusValue.struct([
                    .objectPath(session), .array(elementSignature: "y", undecodable ? [.byte(1)] : []),
                    .array(elementSignature: "y", Array(Self.storedSecret.utf8).map(DBusValue.byte)),
                    .string("text/plain"),
                ])
                return [.dictionary(
                    keySignature: "o", valueSignature: "(oayays)",
                    [Self.deletedItem, Self.item].map { DBusDictEntry(key: .objectPath($0), value: secret) })]
            },
            DBusMethod("ReadAlias", input: "s", output: "o") { _ in
                [.objectPath(self.state.withLock { $0.collectionExists } ? Self.collection : "/")]
            },
            DBusMethod("CreateCollection", input: "a{sv}s", output: "oo") { _ in
                [.objectPath("/"), .objectPath(Self.createPrompt)]
            },
        ])
        try await export(Self.unlockPrompt, "org.freedesktop.Secret.Prompt", [
            DBusMethod("Prompt", input: "s") { call in
                self.state.withLock { $0.prompts.append(Self.unlockPrompt) }
                self.state.withLock { $0.itemUnlocked = true }
                try self.complete(Self.unlockPrompt, for: call, with: .array(elementSignature: "o", [.objectPath(Self.item)]))
                return []
            },
        ])
        try await export(Self.createPrompt, "org.freedesktop.Secret.Prompt", [
            DBusMethod("Prompt", input: "s") { call in
                self.state.withLock {
                    $0.prompts.append(Self.createPrompt)
                    $0.collectionExists = true
                }
                try self.complete(Self.createPrompt, for: call, with: .objectPath(Self.collection))
                return []
            },
        ])
        let createItem = DBusMethod("CreateItem", input: "a{sv}(oayays)b", output: "oo") { call in
            guard self.state.withLock({ $0.collectionExists }) else {
                // As gnome-keyring answers for an alias that names no collection.
                throw DBusError(name: "org.freedesktop.Secret.Error.NoSuchObject", message: "no such collection")
            }
            let properties = call.arguments[0].vardictValue ?? [:]
            var attributes: [String: String] = [:]
            for entry in properties["org.freedesktop.Secret.Item.Attributes"]?.dictionaryValue ?? [] {
                attributes[entry.key.stringValue ?? ""] = entry.value.stringValue
            }
            let created = Created(
                collection: call.path, label: properties["org.freedesktop.Secret.Item.Label"]?.stringValue,
                attributes: attributes, secret: call.arguments[1], replace: call.arguments[2].boolValue ?? false)
            self.state.withLock { $0.created.append(created) }
            return [.objectPath("\(Self.collection)/2"), .objectPath("/")]
        }
        for path in [Self.collection, Self.defaultAlias] {
            try await export(path, "org.freedesktop.Secret.Collection", [createItem])
        }
        try await export(Self.item, "org.freedesktop.DBus.Properties", [
            DBusMethod("GetAll", input: "s", output: "a{sv}") { _ in
                [.vardict([
                    "Label": .string("fake item"), "Modified": .uint64(1_700_000_000), "Locked": .bool(false),
                    "Attributes": .dictionary(
                        keySignature: "s", valueSignature: "s",
                        [
                            ("xdg:schema", "org.gitbay.Account"), ("instance", "https://fake-service.example"),
                            ("user", "faker"),
                        ].map { DBusDictEntry(key: .string($0.0), value: .string($0.1)) }),
                ])]
            },
        ])
        for session in [Self.session, Self.secondSession] {
            try await export(session, "org.freedesktop.Secret.Session", [DBusMethod("Close") { _ in [] }])
        }
    }

    /// `Completed`, sent to the caller alone, as gnome-keyring does.
    private func complete(_ prompt: String, for call: DBusMethodCall, with result: DBusValue) throws {
        try connection.emitSignal(
            path: prompt, interface: "org.freedesktop.Secret.Prompt", member: "Completed",
            arguments: [.bool(false), .variant(result)], destination: call.sender)
    }
}

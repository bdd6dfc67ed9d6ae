import DBus
@testable import Keyring
import Testing

/// Answers of the Secret Service in the wrong shape are clear errors naming the method and the
/// types, never the values (they may be secrets), and never a crash.
struct SecretServiceRepliesTests {
    static let secret = WireSecret(
        session: "/org/freedesktop/secrets/session/s1", parameters: [], value: Array("gb_plainsecret".utf8),
        contentType: "text/plain")

    @Test func getSecretsAnswerIsReadByItem() throws {
        let reply: [DBusValue] = [.dictionary(
            keySignature: "o", valueSignature: "(oayays)",
            [DBusDictEntry(key: .objectPath("/org/freedesktop/secrets/collection/login/1"), value: Self.secret.dbusValue)])]
        #expect(try SecretServiceReplies.secrets(reply) == ["/org/freedesktop/secrets/collection/login/1": Self.secret])
    }

    @Test(arguments: [
        ("no value", [DBusValue]()),
        ("a string map", [DBusValue.stringDictionary(["item": "gb_plainsecret"])]),
        ("a struct of three", [DBusValue.dictionary(
            keySignature: "o", valueSignature: "(oays)",
            [DBusDictEntry(
                key: .objectPath("/item"),
                value: .struct([.objectPath("/s"), .byteArray(Array("gb_plainsecret".utf8)), .string("text/plain")]))])]),
        ("two values", [DBusValue.dictionary(keySignature: "o", valueSignature: "(oayays)", []), .string("extra")]),
    ])
    func getSecretsAnswerOfTheWrongShapeIsAClearError(_ name: String, _ reply: [DBusValue]) {
        let error = #expect(throws: KeyringError.self, "\(name)") { try SecretServiceReplies.secrets(reply) }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("GetSecrets") && text.contains("not what the Secret Service API says"))
        #expect(!text.contains("gb_plainsecret"))
    }

    @Test func itemPropertiesNeedLabelAttributesAndModified() throws {
        let complete = DBusValue.vardict([
            "Label": .string("gitbay token"), "Attributes": .stringDictionary(["user": "cmc"]),
            "Modified": .uint64(1_700_000_000), "Locked": .bool(false),
        ])
        #expect(try SecretServiceReplies.itemProperties([complete]) == ItemProperties(
            label: "gitbay token", attributes: ["user": "cmc"], modified: 1_700_000_000))

        let withoutModified = DBusValue.vardict(["Label": .string("x"), "Attributes": .stringDictionary([:])])
        let modifiedAsString = DBusValue.vardict([
            "Label": .string("x"), "Attributes": .stringDictionary([:]), "Modified": .string("yesterday"),
        ])
        for reply in [withoutModified, modifiedAsString] {
            #expect(throws: KeyringError.self) { try SecretServiceReplies.itemProperties([reply]) }
        }
    }

    @Test func searchAndPromptAnswersOfTheWrongShapeAreErrors() {
        #expect(throws: KeyringError.self) { try SecretServiceReplies.searchItems([.objectPathArray(["/a"])]) }
        #expect(throws: KeyringError.self) {
            try SecretServiceReplies.searchItems([.stringArray(["/a"]), .objectPathArray([])])
        }
        #expect(throws: KeyringError.self) { try SecretServiceReplies.withPrompt("Unlock", [.objectPathArray([]), .string("/")]) }
        #expect(throws: KeyringError.self) { try SecretServiceReplies.promptCompleted([.bool(false)]) }
        #expect(throws: KeyringError.self) { try SecretServiceReplies.openSession([.byteArray([1]), .objectPath("/s")]) }
    }

    @Test func aPlainSessionPassesSecretsAsTheyAre() throws {
        let session = SecretSession(path: Self.secret.session, cipher: nil)
        #expect(try session.decode(Self.secret) == "gb_plainsecret")
        #expect(try session.encode("gb_plainsecret") == Self.secret)
    }

    @Test func anEncryptedSessionRoundTripsAndRefusesAnotherSessionsSecret() throws {
        let session = SecretSession(path: "/org/freedesktop/secrets/session/s2", cipher: SessionCipher(key: Array(repeating: 9, count: 16)))
        let encoded = try session.encode("gb_encrypted")
        #expect(encoded.parameters.count == 16 && encoded.value != Array("gb_encrypted".utf8))
        #expect(try session.decode(encoded) == "gb_encrypted")
        #expect(throws: KeyringError.self) { try session.decode(Self.secret) }
    }
}

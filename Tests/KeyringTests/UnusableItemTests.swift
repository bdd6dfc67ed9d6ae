import DesktopSuites
import Keyring
import PushCore
import Testing
import TestSupport

/// Items of our schema written by hand can be anything. Each is skipped with a sentence naming
/// it, or accepted where the item is a deliberate statement; none crashes a listing or leaks
/// its secret.
@Suite(.timeLimit(.minutes(3)), .needsDesktopSession)
struct UnusableItemTests {
    let keyring = Keyring()

    init() async throws {
        try await TestSession.requireSecretService()
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let attributes: [String: String]
        let secret: String
        let reason: SkippedItem.Reason
        /// Words the sentence must contain beyond the label.
        let explanation: String
        /// The label as the sentence shows it, when not as it is: one line, control characters
        /// as spaces.
        var shownLabel: String? = nil

        var testDescription: String { label }
    }

    static let cases: [Case] = [
        Case(
            label: "no instance", attributes: ["user": "no-instance"], secret: "gb_secretnoinstance1",
            reason: .missingInstance, explanation: "no instance attribute"),
        Case(
            label: "garbage instance", attributes: ["instance": "not a url", "user": "garbage"],
            secret: "gb_secretgarbage2", reason: .unparsableInstance(.whitespaceOrControl),
            explanation: "not a gitbay URL"),
        Case(
            label: "ftp instance", attributes: ["instance": "ftp://files.example", "user": "ftp"],
            secret: "gb_secretftp3", reason: .unparsableInstance(.unsupportedScheme("ftp")),
            explanation: "'ftp://' is not supported"),
        Case(
            label: "empty instance", attributes: ["instance": "", "user": "empty-instance"],
            secret: "gb_secretemptyinstance4", reason: .unparsableInstance(.empty), explanation: "is empty"),
        Case(
            label: "no user", attributes: ["instance": "https://no-user.example"], secret: "gb_secretnouser5",
            reason: .missingUser, explanation: "no user attribute"),
        Case(
            label: "bad user", attributes: ["instance": "https://bad-user.example", "user": "bad user!"],
            secret: "gb_secretbaduser6", reason: .invalidUser(.usernameCharacters), explanation: "not a gitbay username"),
        Case(
            label: "empty secret", attributes: ["instance": "https://empty-secret.example", "user": "empty"],
            secret: "", reason: .unusableSecret(.empty), explanation: "the API token is empty"),
        Case(
            label: "spaced secret", attributes: ["instance": "https://spaced-secret.example", "user": "spaced"],
            secret: "gb_secret with space7", reason: .unusableSecret(.invalidCharacter),
            explanation: "not a usable API token"),
        Case(
            label: "control\u{1b}[31m label\nsecond line", attributes: ["instance": "https://control.example"],
            secret: "gb_secretcontrol8", reason: .missingUser, explanation: "no user attribute",
            shownLabel: "control [31m label second line"),
    ]

    @Test(arguments: cases)
    func unusableItemIsSkippedAndNamed(_ item: Case) async throws {
        try await SecretTool.store(label: item.label, attributes: item.attributes, secret: item.secret)

        let listing = try await keyring.list()
        let skipped = try #require(listing.skipped.first { $0.label == item.label })
        #expect(skipped.reason == item.reason)
        #expect(skipped.instance == item.attributes["instance"])
        #expect(skipped.user == item.attributes["user"])
        let sentence = skipped.description
        #expect(sentence.contains("\"\(item.shownLabel ?? item.label)\""))
        #expect(sentence.contains(item.explanation))
        #expect(!sentence.contains(where: \.isNewline) && !sentence.unicodeScalars.contains("\u{1b}"))
        if !item.secret.isEmpty {
            #expect(!listing.skipped.contains { $0.description.contains(item.secret) })
            #expect(!listing.accounts.contains { $0.token.secret == item.secret })
        }
    }

    @Test func longAttributesAreCutInTheSentence() async throws {
        let longHost = String(repeating: "a", count: 300) + ".example"
        try await SecretTool.store(
            label: "long instance", attributes: ["instance": "https://\(longHost)", "user": "long"],
            secret: "gb_secretlong9")

        let skipped = try #require(try await keyring.list().skipped.first { $0.label == "long instance" })
        #expect(skipped.reason == .unparsableInstance(.invalidHost))
        #expect(skipped.description.count < 400)
        #expect(skipped.description.contains("…"))
    }

    /// Plain http is refused when the user types a URL for a non-loopback host, but an item in
    /// the keyring is the user's own statement that this is what they want.
    @Test func plainHTTPInstanceInTheKeyringIsAccepted() async throws {
        try await SecretTool.store(
            label: "plain http", attributes: ["instance": "http://plain-http.example:8080", "user": "plain"],
            secret: "gb_secretplainhttp10")

        let account = try testAccount("plain", on: "http://plain-http.example:8080")
        #expect(try await keyring.token(for: account)?.secret == "gb_secretplainhttp10")
        let listed = try await keyring.list().accounts.first { $0.account == account }
        #expect(listed?.account.instance.url == "http://plain-http.example:8080")
    }

    @Test func unusableItemsDoNotHideUsableOnes() async throws {
        try await SecretTool.store(
            label: "mixed, broken", attributes: ["instance": "https://mixed.example", "user": "mixed"], secret: "")
        try await SecretTool.store(
            label: "mixed, fine", attributes: ["instance": "https://mixed.example", "user": "mixed-ok"],
            secret: "gb_secretmixed11")

        let listing = try await keyring.list()
        #expect(listing.accounts.contains { $0.account.username == "mixed-ok" && $0.token.secret == "gb_secretmixed11" })
        #expect(listing.skipped.contains { $0.label == "mixed, broken" && $0.reason == .unusableSecret(.empty) })
        #expect(try await keyring.token(for: try testAccount("mixed", on: "https://mixed.example")) == nil)
    }
}

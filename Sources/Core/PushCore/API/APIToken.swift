/// A gitbay API token. It reaches the Authorization header and the keyring through `secret`;
/// everything that prints a token (`description`, `debugDescription`, `dump`, errors) shows only
/// that it is redacted.
public struct APIToken: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The raw token. Use it for the Authorization header and the keyring, nowhere else.
    public let secret: String

    public static let maximumLength = 512

    /// Takes a token as pasted or piped: surrounding whitespace (a trailing newline included) is
    /// dropped; the rest must be 1...512 bytes of printable ASCII without spaces, which is also
    /// what an HTTP header can carry unchanged.
    ///
    /// The `gb_` prefix is not required: test stand-ins and older servers mint tokens without it,
    /// and the server is the judge of what it minted. `hasGitbayPrefix` tells callers who care.
    public init(_ raw: String) throws(TokenError) {
        let token = raw.trimmingWhitespace
        guard !token.isEmpty else { throw .empty }
        guard token.utf8.count <= Self.maximumLength else { throw .tooLong }
        guard token.utf8.allSatisfy(ASCII.isVisible) else { throw .invalidCharacter }
        secret = String(token)
    }

    public var hasGitbayPrefix: Bool { secret.hasPrefix("gb_") }

    public var description: String { hasGitbayPrefix ? "gb_…(redacted)" : "…(redacted)" }

    public var debugDescription: String { "APIToken(\(description))" }

    /// No children, so `dump` and test-failure output cannot reach `secret`.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// Why a string is not a usable API token. Never carries the token text.
public enum TokenError: Error, Equatable, CustomStringConvertible {
    case empty
    case tooLong
    case invalidCharacter

    public var description: String {
        switch self {
        case .empty:
            "the API token is empty"
        case .tooLong:
            "the API token is longer than \(APIToken.maximumLength) bytes; is it really a token?"
        case .invalidCharacter:
            "the API token contains a space, a control or a non-ASCII character; paste it exactly as minted"
        }
    }
}

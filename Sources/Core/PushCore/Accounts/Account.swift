/// One gitbay identity: a user on an instance. The token that acts for it lives in the keyring,
/// not here.
///
/// Usernames are compared exactly, case included: gitbay treats them as case-sensitive, and
/// folding case here could route one user's notice to another's account.
public struct Account: Hashable, Sendable {
    public let instance: GitbayInstance
    public let username: String

    public static let maximumUsernameLength = 64

    public init(instance: GitbayInstance, username: String) throws(AccountError) {
        let bytes = username.utf8
        guard let first = bytes.first else { throw .emptyUsername }
        guard bytes.count <= Self.maximumUsernameLength else { throw .usernameTooLong }
        guard bytes.allSatisfy(ASCII.isNameCharacter) else { throw .usernameCharacters }
        guard first != UInt8(ascii: "."), first != UInt8(ascii: "-") else { throw .usernameStart }
        self.instance = instance
        self.username = username
    }

    /// Stable and unique across instances: `cmc@https://gitbay.org`. A username holds no "@",
    /// so the first "@" always splits it unambiguously.
    public var id: String { "\(username)@\(instance.url)" }

    /// For people: `cmc@gitbay.org`.
    public var displayName: String { "\(username)@\(instance.displayName)" }

    /// For a command line: `cmc@gitbay.org`, with the instance's path prefix when it has one
    /// (`cmc@example.com/git`), so that `AccountReference` finds this account and no other.
    public var reference: String { "\(username)@\(instance.displayName)\(instance.path)" }
}

/// In state files, as `{"instance": URL, "user": NAME}`, checked again when read back.
extension Account: Codable {
    private enum CodingKeys: String, CodingKey {
        case instance, user
    }

    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        let url = try fields.decode(String.self, forKey: .instance)
        let user = try fields.decode(String.self, forKey: .user)
        do {
            try self.init(instance: GitbayInstance(parsing: url, allowInsecureHTTP: true), username: user)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .instance, in: fields, debugDescription: "\(error)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var fields = encoder.container(keyedBy: CodingKeys.self)
        try fields.encode(instance.url, forKey: .instance)
        try fields.encode(username, forKey: .user)
    }
}

public enum AccountError: Error, Equatable, CustomStringConvertible {
    case emptyUsername
    case usernameTooLong
    case usernameCharacters
    case usernameStart

    public var description: String {
        switch self {
        case .emptyUsername:
            "the username is empty"
        case .usernameTooLong:
            "the username is longer than \(Account.maximumUsernameLength) characters"
        case .usernameCharacters:
            "the username may only contain letters, digits, '.', '_' and '-'"
        case .usernameStart:
            "the username must not start with '.' or '-'"
        }
    }
}

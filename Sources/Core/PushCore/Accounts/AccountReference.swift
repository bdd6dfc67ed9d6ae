/// How a user names an account on the command line: `USER@HOST` (the `displayName` that
/// `account list` prints, host with any non-default port and path), or the instance URL with an
/// optional user. Resolved against the accounts that exist, never turned into a new one.
public enum AccountReference: Sendable, Equatable {
    case userAtHost(user: String, host: String)
    case instance(GitbayInstance, user: String?)

    public init(parsing text: String, user: String? = nil) throws(AccountReferenceError) {
        if text.contains("://") {
            // Only compared with stored accounts, never fetched, so http is no risk here.
            guard let instance = try? GitbayInstance(parsing: text, allowInsecureHTTP: true) else {
                throw .unparsable(text)
            }
            self = .instance(instance, user: user)
            return
        }
        guard user == nil else { throw .userGivenTwice }
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw .unparsable(text) }
        self = .userAtHost(user: String(parts[0]), host: parts[1].lowercased())
    }

    public func resolve(among accounts: [Account]) throws(AccountReferenceError) -> Account {
        let matches = accounts.filter(matches)
        switch matches.count {
        case 1:
            return matches[0]
        case 0:
            throw .noMatch(description)
        default:
            throw .ambiguous(description, candidates: matches.map(\.username).sorted())
        }
    }

    private func matches(_ account: Account) -> Bool {
        switch self {
        case .userAtHost(let user, let host):
            return account.username == user && (account.instance.displayName + account.instance.path).lowercased() == host
        case .instance(let instance, let user):
            return account.instance == instance && (user == nil || account.username == user)
        }
    }

    private var description: String {
        switch self {
        case .userAtHost(let user, let host): "\(user)@\(host)"
        case .instance(let instance, let user?): "\(user) on \(instance.url)"
        case .instance(let instance, nil): "any account on \(instance.url)"
        }
    }
}

public enum AccountReferenceError: Error, Equatable, CustomStringConvertible {
    case unparsable(String)
    case userGivenTwice
    case noMatch(String)
    case ambiguous(String, candidates: [String])

    public var description: String {
        switch self {
        case .unparsable(let text):
            "'\(text.displaySafe(truncatedTo: 200))' names no account; use USER@HOST or the instance URL"
        case .userGivenTwice:
            "--user goes with an instance URL, not with USER@HOST"
        case .noMatch(let what):
            "there is no account \(what); 'gbnotifyctl account list' shows them"
        case .ambiguous(let what, let candidates):
            "\(what) matches several accounts (\(candidates.joined(separator: ", "))); pick one with --user"
        }
    }
}

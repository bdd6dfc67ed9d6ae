/// Why the terminal view could not read (or change) what it was asked for: an account's item,
/// its inbox, or the rows to mark read. Decided here from what the server answered, so that the
/// error screens' words are unit-tested; drawn whole by the view, printed on one line by the
/// commands when there is no terminal.
public struct ReadProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// No such item or repository (gitbay says the same of one the account may not read).
        case notFound
        /// The account may not: disabled, not yet active, or a read-only token for a write.
        case noAccess
        /// The token was rejected: revoked, expired, or never valid.
        case tokenRejected
        /// No answer from the instance at all.
        case unreachable
        /// Rate limited or busy: the same request works later.
        case busy
        /// No account by that name, or no keyring to find it in.
        case noAccount
        /// Anything else the server or the keyring did.
        case failed
    }

    public let kind: Kind
    /// A few words: `No such item`.
    public let headline: String
    /// What happened, with the server's own words where it gave some.
    public let detail: String
    /// What to do about it; nil when there is nothing to do but try again.
    public let fix: String?

    public init(_ kind: Kind, _ headline: String, _ detail: String, fix: String? = nil) {
        // Details quote servers and keyrings: one harmless line, bounded.
        self.kind = kind
        self.headline = headline
        self.detail = detail.displaySafe(truncatedTo: 600)
        self.fix = fix.map { $0.displaySafe(truncatedTo: 400) }
    }

    /// `headline: detail. fix`, for standard error.
    public var description: String {
        "\(headline.lowercased()): \(detail)" + (fix.map { ". \($0)" } ?? "")
    }

    /// An answer other than success to a request of `account`'s.
    public init(_ result: APIResult, account: Account) {
        let host = account.instance.displayName
        switch result {
        case .notFound(let message):
            let repository = message.hasPrefix("repository ")
            self.init(
                .notFound, repository ? "No such repository" : "No such item",
                repository ? "\(message) (gitbay says the same of a repository \(account.displayName) may not read)" : message,
                fix: repository ? "check that \(account.displayName) is the account that can read it" : nil)
        case .forbidden(let message):
            self.init(.noAccess, "No access", "\(host) refused \(account.displayName): \(message)", fix: "ask an admin of \(host)")
        case .readOnlyToken(let message):
            self.init(.noAccess, "Read-only token", message, fix: Self.newToken(for: account))
        case .unauthorized(let message):
            self.init(
                .tokenRejected, "Token rejected",
                "\(host) rejected the API token of \(account.displayName) (HTTP 401: \(message)); it was revoked, expired or never valid",
                fix: Self.newToken(for: account))
        case .rateLimited, .busy, .tooManyWrites:
            self.init(.busy, "Busy", "\(host) \(result)", fix: "wait a moment and reload")
        default:
            self.init(.failed, "The instance failed", "\(host): \(result)", fix: "reload; if it goes on, tell the admin of \(host)")
        }
    }

    /// No answer at all: the network, TLS, a timeout (`reason` says which).
    public static func unreachable(_ account: Account, reason: String) -> ReadProblem {
        ReadProblem(
            .unreachable, "Cannot reach \(account.instance.displayName)", "\(account.instance.url): \(reason)",
            fix: "check the network and that the instance is up, then reload")
    }

    /// An answer that is not the shape the contract gives.
    public static func unexpected(_ account: Account, _ error: APIDecodingError) -> ReadProblem {
        ReadProblem(.failed, "Unexpected answer", "\(account.instance.displayName): \(error)")
    }

    /// An account on plain http to another host, which is not sent its token unless the config
    /// allows it (as gbnotifyd would not send it).
    public static func plainHTTPRefused(_ account: Account, configPath: String) -> ReadProblem {
        ReadProblem(
            .noAccess, "Token not sent",
            "\(account.instance.url) is plain http to another machine, which would send the API token readable by anyone on the way",
            fix: "add the account again with its https URL, or set allow-http = true in \(configPath)")
    }

    /// The command that mints a new token for `account` with the user's SSH key and stores it,
    /// the token never shown.
    public static func newToken(for account: Account) -> String {
        "mint a new token with your SSH key and store it: gbnotifyctl account add \(account.instance.url) --ssh"
    }
}

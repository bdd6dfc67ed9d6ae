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

    /// `headline: detail. fix`, for standard error, the headline starting in lower case.
    public var description: String {
        let said = Localized.text(
            "{headline}: {detail}", note: "A problem on one line after \"gbnotifyctl: \". {headline}: its few words, starting in lower case; {detail}: what happened.",
            ["headline": headline.prefix(1).lowercased() + headline.dropFirst(), "detail": detail])
        guard let fix else { return said }
        return Localized.text(
            "{problem}. {fix}", note: "A problem on one line with what to do. {problem}: the message \"{headline}: {detail}\"; {fix}: what to do.",
            ["problem": said, "fix": fix])
    }

    /// An answer other than success to a request of `account`'s.
    public init(_ result: APIResult, account: Account) {
        let host = account.instance.displayName
        switch result {
        case .notFound(let message):
            let user: KeyValuePairs = ["account": account.displayName, "message": message]
            guard message.hasPrefix("repository ") else {
                self.init(.notFound, Localized.text("No such item", note: "The headline of a problem: the item is not on the instance."), message)
                return
            }
            self.init(
                .notFound, Localized.text("No such repository", note: "The headline of a problem: the repository is not on the instance."),
                Localized.text(
                    "{message} (gitbay says the same of a repository {account} may not read)",
                    note: "A problem's detail. {message}: the instance's words, in English; {account}: user@host.", user),
                fix: Localized.text(
                    "check that {account} is the account that can read it", note: "What to do about a problem. {account}: user@host.", user))
        case .forbidden(let message):
            self.init(
                .noAccess, Localized.text("No access", note: "The headline of a problem: the account may not do it."),
                Localized.text(
                    "{host} refused {account}: {message}",
                    note: "A problem's detail. {host}: the instance; {account}: user@host; {message}: the instance's words, in English.",
                    ["host": host, "account": account.displayName, "message": message]),
                fix: Localized.text("ask an admin of {host}", note: "What to do about a problem. {host}: the instance.", ["host": host]))
        case .readOnlyToken(let message):
            self.init(
                .noAccess, Localized.text("Read-only token", note: "The headline of a problem: the token may only read."), message,
                fix: Self.newToken(for: account))
        case .unauthorized(let message):
            self.init(
                .tokenRejected, Localized.text("Token rejected", note: "The headline of a problem: the instance refused the API token."),
                Localized.text(
                    "{host} rejected the API token of {account} (HTTP 401: {message}); it was revoked, expired or never valid",
                    note: "A problem's detail. {host}: the instance; {account}: user@host; {message}: the instance's words, in English.",
                    ["host": host, "account": account.displayName, "message": message]),
                fix: Self.newToken(for: account))
        case .rateLimited, .busy, .tooManyWrites:
            self.init(
                .busy, Localized.text("Busy", note: "The headline of a problem: the instance asks to wait."), "\(host) \(result)",
                fix: Localized.text("wait a moment and reload", note: "What to do about a problem."))
        default:
            self.init(
                .failed, Localized.text("The instance failed", note: "The headline of a problem: the instance answered with an error."), "\(host): \(result)",
                fix: Localized.text(
                    "reload; if it goes on, tell the admin of {host}", note: "What to do about a problem. {host}: the instance.", ["host": host]))
        }
    }

    /// No answer at all: the network, TLS, a timeout (`reason` says which).
    public static func unreachable(_ account: Account, reason: String) -> ReadProblem {
        ReadProblem(
            .unreachable,
            Localized.text(
                "Cannot reach {host}", note: "The headline of a problem: no answer at all. {host}: the instance.", ["host": account.instance.displayName]),
            "\(account.instance.url): \(reason)",
            fix: Localized.text("check the network and that the instance is up, then reload", note: "What to do about a problem."))
    }

    /// An answer that is not the shape the contract gives.
    public static func unexpected(_ account: Account, _ error: APIDecodingError) -> ReadProblem {
        ReadProblem(.failed, unexpectedAnswer, "\(account.instance.displayName): \(error)")
    }

    /// The headline of an answer that is not the shape the contract gives.
    public static var unexpectedAnswer: String {
        Localized.text("Unexpected answer", note: "The headline of a problem: the instance answered something gbnotify cannot read.")
    }

    /// An account on plain http to another host, which is not sent its token unless the config
    /// allows it (as gbnotifyd would not send it).
    public static func plainHTTPRefused(_ account: Account, configPath: String) -> ReadProblem {
        ReadProblem(
            .noAccess, Localized.text("Token not sent", note: "The headline of a problem: gbnotify kept the token back."),
            Localized.text(
                "{url} is plain http to another machine, which would send the API token readable by anyone on the way",
                note: "A problem's detail. {url}: the instance's address.", ["url": account.instance.url]),
            fix: Localized.text(
                "add the account again with its https URL, or set allow-http = true in {path}",
                note: "What to do about a refused plain-http account. {path}: the config file; allow-http = true is its line and stays as it is.", ["path": configPath]))
    }

    /// The command that mints a new token for `account` with the user's SSH key and stores it,
    /// the token never shown.
    public static func newToken(for account: Account) -> String {
        Localized.text(
            "mint a new token with your SSH key and store it: {command}",
            note: "What to do about a rejected or read-only token. {command}: the command (stays English).",
            ["command": "gbnotifyctl account add \(account.instance.url) --ssh"])
    }
}

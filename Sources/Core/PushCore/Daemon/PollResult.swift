/// What an account's last poll came to, as facts: its HTTP status, what the answer meant and how
/// many notices were new. `Status()` carries the facts, so `gbnotifyctl status` words them in the
/// user's language (`spoken`); the JSON's `last_result` and the log keep the English words
/// (`description`), which scripts and bug reports go by.
public struct PollResult: Sendable, Equatable, CustomStringConvertible {
    /// What the answer meant, one word for scripts (the JSON's `last_result_outcome`).
    public enum Outcome: String, Sendable, CaseIterable {
        /// The list came; `newNotices` of its rows were new.
        case ok
        /// A 200 whose body did not decode.
        case unreadable
        case notModified = "not_modified"
        case unauthorized
        case readOnlyToken = "read_only_token"
        case tooManyWrites = "too_many_writes"
        case denied
        case notFound = "not_found"
        case badRequest = "bad_request"
        case rateLimited = "rate_limited"
        case pushUnavailable = "push_unavailable"
        case busy
        case serverError = "server_error"
        /// A redirect, which gbnotify does not follow.
        case redirect
        // No answer came: `httpStatus` is nil.
        case timeout
        case noConnection = "no_connection"
        case unknownHost = "unknown_host"
        case tlsFailure = "tls_failure"
        case transferFailed = "transfer_failed"
    }

    /// Nil for an outcome this build does not know (from a newer daemon, or an older one that
    /// sent only its words): `said` is shown as it came.
    public let outcome: Outcome?
    /// The HTTP status of the answer; nil when none came.
    public let httpStatus: Int?
    /// How many notices the poll handed on as new (only an `ok` poll has any).
    public let newNotices: Int
    /// The daemon's English words, kept only for an outcome this build does not know.
    private let said: String?

    public init(_ outcome: Outcome, httpStatus: Int?, newNotices: Int = 0) {
        self.outcome = outcome
        self.httpStatus = httpStatus
        self.newNotices = newNotices
        said = nil
    }

    /// A result known only by the daemon's words.
    public init(said words: String, httpStatus: Int?) {
        outcome = nil
        self.httpStatus = httpStatus
        newNotices = 0
        said = words
    }

    /// `200 ok, 2 new`, `304 not modified`, `timeout`: in English, for the JSON and log lines.
    public var description: String {
        Localized.inEnglish { spoken }
    }

    /// `description` in the session's language, for a person.
    public var spoken: String {
        guard let outcome else { return said ?? "" }
        let code: KeyValuePairs = ["code": httpStatus.map(String.init) ?? "-"]
        switch outcome {
        case .ok where newNotices > 0:
            return Localized.plural(
                "{code} ok, {count} new", "{code} ok, {count} new", count: newNotices,
                note: "A poll's result in gbnotifyctl status's RESULT column (short: 24 characters at most in all). {code}: the HTTP status, 200; {count}: notices that were new.",
                ["code": httpStatus.map(String.init) ?? "-"])
        case .ok: return Localized.text("{code} ok", note: "A poll's result in gbnotifyctl status's RESULT column (short: 24 characters at most in all). {code}: the HTTP status, 200.", code)
        case .unreadable:
            return Localized.text(
                "{code} unreadable", note: "A poll's result in gbnotifyctl status's RESULT column (short: 24 characters at most in all): the answer did not read. {code}: the HTTP status.", code)
        case .notModified:
            return Localized.text(
                "{code} not modified", note: "A poll's result in gbnotifyctl status's RESULT column (short: 24 characters at most in all): nothing changed. {code}: the HTTP status, 304.", code)
        case .unauthorized:
            return Localized.text(
                "{code} unauthorized", note: "A poll's result in gbnotifyctl status's RESULT column (short: 24 characters at most in all): the token was rejected. {code}: the HTTP status, 401.", code)
        case .readOnlyToken:
            return Localized.text(
                "{code} read-only token", note: "A poll's result in gbnotifyctl status's RESULT column (short: 24 characters at most in all). {code}: the HTTP status, 403.", code)
        case .tooManyWrites:
            return Localized.text(
                "{code} too many writes", note: "A poll's result in gbnotifyctl status's RESULT column (short: 24 characters at most in all): a write limit. {code}: the HTTP status, 403.", code)
        case .denied:
            return Localized.text(
                "{code} denied", note: "A poll's result in gbnotifyctl status's RESULT column (short: 24 characters at most in all): access refused. {code}: the HTTP status, 403.", code)
        case .notFound:
            return Localized.text("{code} not found", note: "A poll's result in gbnotifyctl status's RESULT column (short: 24 characters at most in all). {code}: the HTTP status, 404.", code)
        case .badRequest:
            return Localized.text("{code} bad request", note: "A poll's result in gbnotifyctl status's RESULT column (short: 24 characters at most in all). {code}: the HTTP status, 400.", code)
        case .rateLimited:
            return Localized.text(
                "{code} rate limited", note: "A poll's result in gbnotifyctl status's RESULT column (short: 24 characters at most in all): too many requests. {code}: the HTTP status, 429.", code)
        case .pushUnavailable:
            return Localized.text(
                "{code} push unavailable", note: "A poll's result in gbnotifyctl status's RESULT column (short: 24 characters at most in all): the instance sends no push. {code}: the HTTP status.", code)
        case .busy:
            return Localized.text("{code} busy", note: "A poll's result in gbnotifyctl status's RESULT column (short: 24 characters at most in all): the server is busy. {code}: the HTTP status, 503.", code)
        case .serverError:
            return Localized.text("{code} server error", note: "A poll's result in gbnotifyctl status's RESULT column (short: 24 characters at most in all). {code}: the HTTP status, as 500.", code)
        case .redirect:
            return Localized.text(
                "{code} redirect", note: "A poll's result in gbnotifyctl status's RESULT column (short: 24 characters at most in all): the server redirected, which is not followed. {code}: the HTTP status, as 301.", code)
        case .timeout: return Localized.text("timeout", note: "A poll's result in gbnotifyctl status's RESULT column (short: 24 characters at most in all): no answer in time.")
        case .noConnection:
            return Localized.text("no connection", note: "A poll's result in gbnotifyctl status's RESULT column (short: 24 characters at most in all): the server could not be connected to.")
        case .unknownHost:
            return Localized.text("unknown host", note: "A poll's result in gbnotifyctl status's RESULT column (short: 24 characters at most in all): the host name does not resolve.")
        case .tlsFailure: return Localized.text("TLS failure", note: "A poll's result in gbnotifyctl status's RESULT column (short: 24 characters at most in all): the TLS handshake failed.")
        case .transferFailed:
            return Localized.text("transfer failed", note: "A poll's result in gbnotifyctl status's RESULT column (short: 24 characters at most in all): the connection failed otherwise.")
        }
    }
}

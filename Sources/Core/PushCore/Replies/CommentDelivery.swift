/// What one request of a write came to, as far as the client could tell.
public enum WriteAttempt: Sendable, Equatable {
    /// The server answered (whatever the status).
    case answered(APIResult)
    /// It failed before a byte could reach the server: no name, no connection, no TLS session.
    case neverSent(reason: String)
    /// It may have reached the server, but no answer came back: a timeout, a connection lost.
    case answerLost(reason: String)
}

/// Why a reply was not posted, in a few plain words: `spoken` for a person, `description` (the
/// same words in English) for the log and the draft kept with it. The values carried are the
/// server's or the transport's words, in English.
public enum NotPostedReason: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The instance could not be reached at all.
    case offline(String)
    case tokenRejected(String)
    case readOnlyToken(String)
    /// Denied: an archived repository, a disabled account.
    case denied(String)
    /// Rate limited or too many writes: the same reply goes through later.
    case tooManyWrites(retryAfter: Int?)
    /// No such item or repository (or one the account may not read).
    case notFound(String)
    /// The server refused it as a bad request.
    case refused(String)
    /// The request may have reached the server without an answer, and the thread, read
    /// afterwards, does not have the text.
    case lostAndNotInThread(String)

    public var description: String {
        Localized.inEnglish { spoken }
    }

    /// Starts in lower case: it follows a program's name or stands inside a sentence.
    public var spoken: String {
        switch self {
        case .offline(let reason):
            return Localized.text(
                "the instance could not be reached ({reason})", note: "Why a reply or reaction did not go through, in lower case. {reason}: the network's error, in English.",
                ["reason": reason])
        case .tokenRejected(let message):
            return Localized.text(
                "the token was rejected (HTTP 401: {message}); store a new one with {command}",
                note: "Why a reply or reaction did not go through, in lower case. {message}: the server's words, in English; {command}: the command (stays English).",
                ["message": message, "command": "gbnotifyctl account add"])
        case .readOnlyToken(let message):
            return Localized.text(
                "the token is read-only and cannot post ({message}); store a full-scope one with {command}",
                note: "Why a reply or reaction did not go through, in lower case. {message}: the server's words, in English; {command}: the command (stays English).",
                ["message": message, "command": "gbnotifyctl account add"])
        case .denied(let message), .refused(let message):
            return Localized.text(
                "the instance refused it ({message})", note: "Why a reply or reaction did not go through, in lower case. {message}: the server's words, in English.",
                ["message": message])
        case .tooManyWrites(let seconds?):
            return Localized.text(
                "too many writes for now; try again in {seconds} s",
                note: "Why a reply or reaction did not go through, in lower case: the instance's write limit. {seconds}: a number; s is the unit's symbol.",
                ["seconds": String(seconds)])
        case .tooManyWrites(nil):
            return Localized.text(
                "too many writes for now; try again in a minute", note: "Why a reply or reaction did not go through, in lower case: the instance's write limit.")
        case .notFound(let message):
            return Localized.text(
                "no such item, or one this account may not read ({message})",
                note: "Why a reply or reaction did not go through, in lower case. {message}: the server's words, in English.", ["message": message])
        case .lostAndNotInThread(let reason):
            return Localized.text(
                "no answer came ({reason}), and the thread does not have the reply",
                note: "Why a reply was not posted, in lower case. {reason}: the network's error, in English.", ["reason": reason])
        }
    }
}

/// What became of a comment, decided from what the client saw; the rule of gitbay-api.md: a
/// comment has no request id, so only what surely never reached the server, or what the server
/// answered it did not post, may be sent again. Everything else is looked for in the thread.
public enum CommentDelivery: Sendable, Equatable {
    case posted
    /// The server surely did not post it: the one outcome after which the same text may be
    /// sent again.
    case notPosted(NotPostedReason)
    /// The server may have posted it: read the thread before saying, never send it again.
    case checkThread(reason: String)

    public init(_ attempt: WriteAttempt) {
        switch attempt {
        case .neverSent(let reason):
            self = .notPosted(.offline(reason))
        case .answerLost(let reason):
            self = .checkThread(reason: reason)
        case .answered(let result):
            switch result {
            case .success: self = .posted
            case .unauthorized(let message): self = .notPosted(.tokenRejected(message))
            case .readOnlyToken(let message): self = .notPosted(.readOnlyToken(message))
            case .forbidden(let message): self = .notPosted(.denied(message))
            case .tooManyWrites(let seconds): self = .notPosted(.tooManyWrites(retryAfter: seconds))
            case .rateLimited(let seconds): self = .notPosted(.tooManyWrites(retryAfter: seconds))
            case .notFound(let message): self = .notPosted(.notFound(message))
            case .badRequest(let message): self = .notPosted(.refused(message))
            // A 5xx may come from a proxy whose server ran the command, and a 503 from a front
            // that lost its answer: the thread says.
            case .busy, .serverError, .notModified, .pushUnavailable: self = .checkThread(reason: result.description)
            }
        }
    }
}

/// Whether a thread holds a reply the client sent without hearing back.
public enum ThreadCheck {
    /// How far the server's clock may run behind this machine's: a comment is looked for from
    /// this long before it was sent. A text the user already posted within that time counts too,
    /// which says "posted" of a text that is there, never "not posted" of one that is.
    public static let clockSlack: Double = 600

    /// True when `comments` has `text` by `username`, created no earlier than `sentAt` (seconds
    /// since the epoch, this machine's clock) less `clockSlack`. Texts compare with blanks at
    /// either end ignored; a comment whose time does not parse counts (it is there).
    public static func holds(_ text: String, by username: String, sentAt: Double, in comments: [ItemComment]) -> Bool {
        let wanted = text.trimmingWhitespace
        return comments.contains { comment in
            guard comment.author == username, comment.body.trimmingWhitespace == wanted else { return false }
            guard let created = GitbayTime.seconds(since1970: comment.createdAt) else { return true }
            return created >= sentAt - clockSlack
        }
    }
}

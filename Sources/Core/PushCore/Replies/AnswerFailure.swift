/// Why an answer from a notification (a reaction, a reply) did not go through, as the daemon
/// decided it: said to the person in the session's language (`spoken`, in the notification) and
/// in English in the log (`description`).
public indirect enum AnswerFailure: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The instance surely did not post it (or set the reaction).
    case notPosted(NotPostedReason)
    /// The text was refused before it was sent.
    case refused(CommentTextError)
    /// The instance answered otherwise; its answer in English.
    case answered(String)
    /// No answer came (`reason`), and the thread could not be read to tell (`checkFailed`).
    case unknown(reason: String, checkFailed: String)
    /// The reply was not posted, and its draft could not be kept either: `because` why (in
    /// English), or nil when the drafts are full. Its text is in the log.
    case notKept(AnswerFailure, because: String?)

    public var description: String {
        Localized.inEnglish { spoken }
    }

    /// Starts in lower case, as the words inside a sentence.
    public var spoken: String {
        switch self {
        case .notPosted(let reason): reason.spoken
        case .refused(let error): error.spoken
        case .answered(let answer):
            Localized.text(
                "the instance answered {answer}", note: "Why a reply or reaction did not go through, in lower case. {answer}: the server's answer, in English.",
                ["answer": answer])
        case .unknown(let reason, let checkFailed):
            Localized.text(
                "no answer came ({reason}) and the thread could not be read to tell whether it was posted ({problem}); look at the thread before sending it again",
                note: "Why a reply may not have been posted, in lower case. {reason} and {problem}: the errors, in English.",
                ["reason": reason, "problem": checkFailed])
        case .notKept(let failure, let because?):
            Localized.text(
                "{reason}; and it could not be kept ({error}): it is in the log",
                note: "A reply not posted whose draft could not be saved. {reason}: why it was not posted (a message); {error}: why it could not be kept, in English.",
                ["reason": failure.spoken, "error": because])
        case .notKept(let failure, nil):
            Localized.text(
                "{reason}; and {limit} drafts are kept already, so it could not be kept: it is in the log",
                note: "A reply not posted whose draft could not be saved. {reason}: why it was not posted (a message); {limit}: how many drafts are kept at most, 50.",
                ["reason": failure.spoken, "limit": String(DraftRecord.maximumDrafts)])
        }
    }
}

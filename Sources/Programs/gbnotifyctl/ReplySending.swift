import GitbayClient
import Glibc
import LocalTime
import PushCore
import StateStore
import TerminalView

/// What `gbnotifyctl reply` and the view's reply key share once the text is written: posted
/// once with the account's token; kept as the item's draft when it was not posted, or may have
/// been; the editor's file removed once the text is safe, and named while it is not. Each
/// outcome is said here, once.
struct ReplySending {
    let account: Account
    let destination: NotificationDestination
    let state: StateDirectory

    /// Posts `comment`. `kept` is the item's draft when one is kept, `offered` whether the editor
    /// started from it: then what was posted is what became of it, and the draft goes; beside a
    /// text from elsewhere it stays.
    func send(
        _ comment: CommentText, with client: GitbayClient, kept: DraftRecord.Draft?, offered: Bool, editorFile: String?
    ) async -> ReplyOutcome {
        let report = await client.postComment(comment, on: destination, as: account.username) { Double(SystemZone.now()) }
        let name = destination.shortName
        switch report {
        case .posted, .postedUnanswered:
            var lines = ["Replied to \(name) as \(account.displayName)."]
            if case .postedUnanswered(let reason) = report {
                lines.append("no answer came (\(reason)), but the thread has the reply")
            }
            if kept != nil, offered {
                do {
                    try state.updateDrafts { $0.drop(of: account, for: destination.path) }
                } catch {
                    lines.append("the kept draft could not be dropped (\(error))")
                }
            } else if kept != nil {
                lines.append("a draft for \(name) is still kept; \(offeredAgain) offers it")
            }
            editorFile.map { _ = unlink($0) }
            return ReplyOutcome(isPosted: true, lines: lines)
        case .notPosted(let reason):
            return keep(comment.text, reason: "\(reason)", saying: "not posted to \(name): \(reason)", editorFile: editorFile)
        case .unknown(let reason, let checkFailed):
            return keep(
                comment.text, reason: "it may have been posted; look at the thread before sending it again",
                saying: """
                    no answer came from \(account.instance.displayName) (\(reason)), and the thread could not be \
                    read to tell whether the reply was posted (\(checkFailed)). Look before sending it again: \
                    gbnotifyctl show \(account.reference) \(destination.path)
                    """,
                editorFile: editorFile)
        }
    }

    /// Where a kept draft is offered again: the editor of `reply`, or of the view's reply key.
    private var offeredAgain: String {
        "'gbnotifyctl reply \(account.reference) \(destination.path)' (or \(ViewKeys.reply.keys) in 'gbnotifyctl show')"
    }

    /// Keeps `text` as the item's draft; says so, or where the text is when it cannot be kept.
    private func keep(_ text: String, reason: String, saying first: String, editorFile: String?) -> ReplyOutcome {
        let draft = DraftRecord.Draft(account: account, path: destination.path, text: text, savedAt: SystemZone.now(), reason: reason)
        let whereTheTextIs = editorFile.map { "the text is still in \($0)" } ?? "the text was not kept"
        do {
            guard try state.updateDrafts({ $0.keep(draft) }).result else {
                return ReplyOutcome(isPosted: false, lines: [first, "the drafts are full (\(DraftRecord.maximumDrafts)); \(whereTheTextIs)"])
            }
        } catch {
            return ReplyOutcome(isPosted: false, lines: [first, "the draft could not be kept (\(error)); \(whereTheTextIs)"])
        }
        editorFile.map { _ = unlink($0) }
        return ReplyOutcome(isPosted: false, lines: [first, "the reply is kept as a draft; \(offeredAgain) offers it again"])
    }
}

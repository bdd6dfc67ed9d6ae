import PushCore

/// What a reply came to, once the thread has been read where the answer was lost.
public enum ReplyReport: Sendable, Equatable {
    case posted
    /// No answer came, but the thread has the text: it was posted.
    case postedUnanswered(reason: String)
    /// Not posted; sending it again cannot post it twice.
    case notPosted(NotPostedReason)
    /// No answer came, and the thread could not be read to tell: it may have been posted. Not to
    /// be sent again before a look at the thread.
    case unknown(reason: String, checkFailed: String)
}

extension GitbayTransport {
    /// Posts `text` as a comment of `username`'s on `destination` (`issue|mr comment ... --file
    /// -`), sent once (`GitbayClient` sends it on a connection of its own,
    /// `TransferOptions.freshConnection`). Where no
    /// answer tells, the thread is read (`issue|mr show`) for the text by `username` since it
    /// was sent; nothing is ever sent twice. `now` is seconds since the epoch.
    public func postComment(
        _ text: CommentText, on destination: NotificationDestination, as username: String, now: @Sendable () -> Double
    ) async -> ReplyReport {
        let sentAt = now()
        switch CommentDelivery(await attempt(.comment(destination), stdin: text.text)) {
        case .posted:
            return .posted
        case .notPosted(let reason):
            return .notPosted(reason)
        case .checkThread(let reason):
            let thread: ItemDetails
            do {
                thread = try ItemDetails.decode(try await send(.show(destination)), as: destination.kind)
            } catch {
                return .unknown(reason: reason, checkFailed: "\(error)")
            }
            return ThreadCheck.holds(text.text, by: username, sentAt: sentAt, in: thread.comments)
                ? .postedUnanswered(reason: reason) : .notPosted(.lostAndNotInThread(reason))
        }
    }

    /// One write, sent once, told apart by whether it can have reached the server.
    public func attempt(_ command: GitbayCommand, stdin: String? = nil) async -> WriteAttempt {
        do {
            return .answered(try await send(command, stdin: stdin))
        } catch .transfer(let error) where error.wasNeverSent {
            return .neverSent(reason: error.description)
        } catch {
            return .answerLost(reason: error.description)
        }
    }
}

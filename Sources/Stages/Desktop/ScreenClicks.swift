import Logging
import MainLoop
import Notifications
import PushCore

/// Where a click goes: the server's signals for our notifications, and each action resolved by the
/// book to an entry, then to a request for the account's poller ("Mark read", "Mute", "Undo") or
/// a target to open.
extension Screen {
    // MARK: - The server

    func heard(_ event: NotificationEvent) async {
        switch event {
        case .closed(let id, let reason):
            // The old notification of an entry being shown anew closes as its show goes on (a
            // close before a fresh show, or GNOME closing one after its action): the entry stays.
            guard let entry = book.entry(serverID: id), flights[entry.id] == nil else { return }
            book.closedByServer(id)
            activationTokens[id] = nil
            logger.report(.closedByServer(notification: id, reason: reason), to: options.events)
            save()
        case .action(let id, let key):
            // One click, however many times the server says it (GNOME Shell 43 repeats it once
            // per Notify of the id); another action on a notification the server kept open
            // (mako, LXQt) counts.
            guard book.entry(serverID: id) != nil else {
                // Withdrawn or folded away as the user clicked: the server had not yet taken
                // it off the screen. Said, since the user did click.
                logger.debug("notification \(id): ignored the action \(key.displaySafe(truncatedTo: 40)), no longer ours")
                return
            }
            guard let entry = book.actionInvoked(key, on: id) else {
                logger.debug("notification \(id): ignored the action \(key.displaySafe(truncatedTo: 40)), heard again")
                return
            }
            await clicked(entry, key: key, activationToken: activationTokens.removeValue(forKey: id))
            options.events.tell(.clicked(notification: id, action: key))
            await apply()
        case .replied(let id, let text):
            // One taken over from an earlier daemon is answered by its entry.
            guard var target = replyTargets[id] ?? book.entry(serverID: id).flatMap(Self.replyTarget) else {
                logger.warning("notification \(id): a reply came for no notification of ours that offered one; nothing was sent")
                return
            }
            // Each text once per notification: a server that repeated the signal must not post
            // it twice.
            guard target.sentTexts.insert(text).inserted else {
                logger.debug("notification \(id): ignored a reply heard again")
                return
            }
            replyTargets[id] = target
            logger.info("\(target.account.displayName): a reply to \(target.destination.shortName) typed into notification \(id)")
            ask(.answer(target.account, ItemAnswer(destination: target.destination, rows: target.rows, kind: .comment(text))))
            options.events.tell(.clicked(notification: id, action: NotificationContent.inlineReplyAction))
        case .activationToken(let id, let token):
            // Bounded: a server may send them for notifications that are never clicked.
            guard book.entry(serverID: id) != nil else { return }
            if activationTokens.count >= 16 { activationTokens.removeAll() }
            activationTokens[id] = token
        case .serverChanged(let owner):
            await serverChanged(to: owner)
        }
    }

    private func clicked(_ entry: ScreenBook.Entry, key: String, activationToken: String?) async {
        let name = entry.account.displayName
        let id = entry.serverID ?? 0
        switch (key, entry.subject) {
        case (NotificationContent.markReadAction, .group(let group)):
            logger.info("\(name): \"Mark read\" on notification \(id)")
            ask(.markRead(entry.account, group.inboxIDs))
        case (NotificationContent.markReadAction, .summary(let summary)):
            // Offered only when the summary knows every row it counts.
            guard let ids = summary.markReadIDs else { return }
            logger.info("\(name): \"Mark all read\" on notification \(id)")
            ask(.markRead(entry.account, ids))
        case (NotificationContent.muteAction, .group(let group)):
            let undoUntil = options.wallClock + Self.saidFor.components.seconds
            guard let repository = group.key.repository, let muted = book.mute(entry.id, undoUntil: undoUntil) else { return }
            logger.info("\(name): \"Mute\" on notification \(id): muting \(repository)")
            ask(.setWatch(entry.account, repository: repository, .mute))
            // Said for a while, long enough to undo it, then gone.
            withdrawSaid(muted.id, after: Self.saidFor)
        case (NotificationContent.undoAction, .muted(let repository, _)):
            // The window is the one promised when it was muted, however many restarts since.
            guard ScreenBook.offersUndo(entry, at: options.wallClock) else {
                logger.info("\(name): \"Undo\" on notification \(id) came after its \(Self.saidFor.components.seconds) s: \(repository) stays muted")
                book.withdraw(entry.id)
                return
            }
            logger.info("\(name): \"Undo\" on notification \(id): unmuting \(repository)")
            ask(.setWatch(entry.account, repository: repository, .unwatch))
            book.withdraw(entry.id)
        case (NotificationContent.reactAction, .group(let group)):
            guard let destination = group.answerable else { return }
            logger.info("\(name): \"👍\" on notification \(id): reacting \(NotificationContent.thumbsUp) to \(destination.shortName)")
            ask(.answer(entry.account, ItemAnswer(
                destination: destination, rows: group.inboxIDs, kind: .react(reaction: NotificationContent.thumbsUp, remove: false))))
        case (NotificationContent.replyAction, .group(let group)):
            guard let destination = group.answerable else { return }
            logger.info("\(name): \"Reply…\" on notification \(id): composing a reply to \(destination.shortName) in the terminal")
            let (clicks, account) = (clicks, entry.account)
            Task { await clicks.reply(to: destination, of: account, activationToken: activationToken) }
        case (NotificationContent.undoAction, .said(.reacted(let path, let reaction), _)):
            book.withdraw(entry.id)
            guard ScreenBook.offersUndo(entry, at: options.wallClock), let destination = NotificationDestination(path: path) else {
                logger.info("\(name): \"Undo\" on notification \(id) came after its \(Self.saidFor.components.seconds) s: \(reaction) stays")
                return
            }
            logger.info("\(name): \"Undo\" on notification \(id): taking back \(reaction) from \(destination.shortName)")
            ask(.answer(entry.account, ItemAnswer(destination: destination, rows: [], kind: .react(reaction: reaction, remove: true))))
        case (NotificationContent.openAction, .group(let group)):
            logger.info("\(name): notification \(id) was clicked")
            open(group.target, activationToken: activationToken)
        case (NotificationContent.openAction, .summary):
            logger.info("\(name): notification \(id) was clicked")
            open(PushTarget(account: entry.account, destination: nil), activationToken: activationToken)
        default:
            logger.debug("\(name): notification \(id): ignored the action \(key.displaySafe(truncatedTo: 40))")
        }
    }

    /// What a text typed into a notification's field answers: kept for each notification shown
    /// with one, beyond its withdrawal (the user may be typing as a poll withdraws it), the
    /// `replyTargetsKept` shown last.
    struct ReplyTarget {
        let account: Account
        let destination: NotificationDestination
        let rows: [Int64]
        var sentTexts: Set<String> = []
    }

    static let replyTargetsKept = 64

    /// Where a reply to `entry`'s notification goes: its one notice's item, if it has one.
    static func replyTarget(of entry: ScreenBook.Entry) -> ReplyTarget? {
        guard case .group(let group) = entry.subject, let destination = group.answerable else { return nil }
        return ReplyTarget(account: entry.account, destination: destination, rows: group.inboxIDs)
    }

    /// Notification `id` shows `entry` with a text field: a reply to it goes to the entry's item.
    func offerReply(on id: UInt32, for entry: ScreenBook.Entry, actions: [String]) {
        guard actions.contains(NotificationContent.inlineReplyAction), let target = Self.replyTarget(of: entry) else { return }
        if replyTargets[id] == nil { replyTargetOrder.append(id) }
        replyTargets[id] = target
        while replyTargetOrder.count > Self.replyTargetsKept {
            replyTargets[replyTargetOrder.removeFirst()] = nil
        }
    }

    /// How long "Muted OWNER/REPO", "Reacted 👍 to ..." and "Replied to ..." stay, with the
    /// Undo of the first two.
    static let saidFor = Duration.seconds(10)

    /// The notification `id` said for a while goes once `delay` has passed.
    func withdrawSaid(_ id: UInt64, after delay: Duration) {
        let (timeline, timers) = (options.timeline, timers)
        Task {
            guard (try? await timeline.sleep(for: delay)) != nil else { return }
            timers.yield(.saidEnough(id))
        }
    }

    /// Off the stage's queue: the portal may take a while to answer, and the news must not wait.
    func open(_ target: PushTarget, activationToken: String?) {
        let clicks = clicks
        Task { await clicks.open(target, activationToken: activationToken) }
    }
}

import Accounts
import Desktop
import FoundationEssentials
import GitbayClient
import Logging
import PushCore
import Settings
import StateStore
import MainLoop

/// Where the pollers' news goes: the desktop stage (`Desktop.hand`), or a test's recorder.
/// Returns once the news is dealt with (on screen, or waiting for a notification server).
public typealias DesktopSink = @Sendable (DesktopNews) async -> Void

/// What every poller gets from the daemon.
struct PollerServices: Sendable {
    let state: StateFiles
    /// Registers the account's device token (`device add`) and records the outcome.
    let registrar: AccountManager
    let desktop: DesktopSink
    let logger: Logger
    let parts: Supervisor.Parts
    /// What `status` shows as times of day, read off the timeline.
    let wallClock: WallClock

    var timeline: Timeline { parts.timeline }
    var events: DaemonEvents { parts.events }
}

/// One account's polling, independent of every other account's: its own loop, timers, backoff
/// and requests (libcurl runs all transfers side by side), so a slow or dead instance delays
/// nobody else. Its news goes one way, to the desktop; "Mark read" comes to it, as the account's
/// requests are its own to make.
///
/// The supervisor starts it, starts it again on a reload (a new token, new settings, a reset
/// backoff, registration again) and retires it. What the loop learns lives on in `memory`
/// between runs of the loop.
///
/// Isolated to `LoopActor`, as the supervisor is (which says why not `@MainActor`), and so is
/// each run of its loop (`PollRun`).
@LoopActor
final class AccountPoller {
    nonisolated let account: Account
    nonisolated let board: AccountStatusBoard
    private let signal = WakeSignal()
    private let services: PollerServices
    private var memory: PollMemory
    private var loop: Task<PollMemory, Never>?
    /// What the loop polls with, from its start until it stops, by itself (a 401) or stopped.
    private var running: (token: APIToken, settings: DaemonSettings, number: Int)?
    private var startedLoops = 0
    /// The running loop's transport, for "Mark read".
    private var client: (any GitbayTransport)?
    private var isRetired = false

    init(account: Account, record: AccountRecord, services: PollerServices) {
        self.account = account
        self.services = services
        memory = PollMemory(record: record)
        board = AccountStatusBoard(storedDeviceID: record.deviceID, unread: record.unread)
    }

    /// Stops the running loop, if any, and starts one that registers the account's device
    /// token, then polls after `firstDelay`. Failures and a stop after a 401 are forgotten.
    func start(token: APIToken, settings: DaemonSettings, firstDelay: Duration) async {
        await stopLoop()
        // A retire() that came while the loop was stopping wins.
        guard !isRetired else { return }
        let client = services.parts.transport(account.instance, token, settings.client)
        self.client = client
        let run = PollRun(
            account: account, token: token, settings: settings, services: services, board: board, signal: signal,
            client: client)
        let memory = memory
        startedLoops += 1
        let number = startedLoops
        running = (token, settings, number)
        loop = Task {
            let memory = await run.loop(from: memory, firstDelay: firstDelay)
            if running?.number == number { running = nil }
            return memory
        }
    }

    /// Whether a loop polls with this token and these settings (none stopped by itself, on a 401).
    func isPolling(with token: APIToken, settings: DaemonSettings) -> Bool {
        running?.token == token && running?.settings == settings
    }

    /// Stops polling for good: the daemon is stopping, or the account left the keyring.
    func retire() async {
        isRetired = true
        client = nil
        await stopLoop()
    }

    /// A wake-up: poll soon rather than at the end of the interval (see `WakeSignal.Wake`).
    func wake(_ wake: WakeSignal.Wake) {
        signal.wake(wake)
    }

    /// Offline, nothing polls and no failure counts; back online, the supervisor wakes the
    /// account too.
    func setOnline(_ isOnline: Bool) {
        board.update { $0.isOffline = !isOnline }
        signal.setOnline(isOnline)
    }

    /// While the relay stream is connected the account polls at `relay-poll-interval`, its polls
    /// only a safety net for what a relay could miss; from the next poll on.
    func setRelayConnected(_ connected: Bool) {
        signal.setRelayConnected(connected)
    }

    /// "Mark read" on the account's notification: the rows are marked read on its instance with
    /// its own client, and the desktop hears of it as news like any other.
    func markRead(_ ids: [Int64]) async {
        guard let client, !ids.isEmpty else { return }
        let named = ids.map(String.init).joined(separator: ", ")
        let result: APIResult
        do {
            result = try await sendClicksWrite(.notificationsRead(ids: ids), with: client)
        } catch {
            services.logger.warning("\(account.displayName): could not mark notice \(named) read: \(error)")
            return
        }
        guard case .success = result else {
            services.logger.warning("\(account.displayName): could not mark notice \(named) read: \(result)")
            return
        }
        let changed = OutsideCount.clamped((try? result.decode(ReadResult.self))?.read ?? 0)
        services.logger.report(.markedRead(account, ids), to: services.events)
        let unread = board.lowerUnread(by: changed)
        await services.desktop(.update(AccountUpdate(account: account, unread: unread, read: .marked(ids))))
    }

    /// "Mute" on one of the account's notifications, or its "Undo" (`unwatch`): the
    /// repository's watch state on its instance, with its own client. The record of mutes
    /// (`gbnotifyctl mutes`) notes a mute and forgets an undone one, as `gbnotifyctl mute` does.
    func setWatch(_ change: GitbayCommand.WatchChange, of repository: String) async {
        guard let client else { return }
        let what = "\(change.rawValue) \(repository)"
        let result: APIResult
        do {
            result = try await sendClicksWrite(.repo(change, repository: repository), with: client)
        } catch {
            services.logger.warning("\(account.displayName): could not \(what): \(error)")
            return
        }
        guard case .success = result, let state = try? result.decode(WatchState.self), state.state == change.resultingState else {
            services.logger.warning("\(account.displayName): could not \(what): \(result)")
            return
        }
        let (account, at) = (account, Int64(services.wallClock.now.timeIntervalSince1970))
        do {
            let warning = try await services.state.updateNoise { record in
                _ = record.note(change, of: repository, account: account, at: at)
            }
            if let warning { services.logger.warning(warning) }
        } catch {
            services.logger.warning("\(account.displayName): \(what) is done, but the record of mutes could not be written: \(error)")
        }
        services.logger.report(.repositoryMuted(account, repository: repository, muted: change == .mute), to: services.events)
    }

    /// "👍" (or its "Undo") or a reply typed into a popup, on the item, on the account's
    /// instance with its own client. Once done, the notice's rows are marked read as "Mark read"
    /// does them, and the desktop says what became of it (`DesktopNews.answered`), failures too.
    func answer(_ answer: ItemAnswer) async {
        guard let client else { return }
        let destination = answer.destination
        switch answer.kind {
        case .react(let reaction, let remove):
            let failure: AnswerFailure
            do {
                let result = try await sendClicksWrite(.react(destination, reaction: reaction, remove: remove), with: client)
                if case .success = result {
                    if remove {
                        services.logger.report(.reactionTakenBack(account, path: destination.path, reaction: reaction), to: services.events)
                    } else {
                        await answered(.reacted(path: destination.path, reaction: reaction), rows: answer.rows)
                    }
                    return
                }
                failure = Self.failure(result)
            } catch {
                failure = .notPosted(.offline("\(error)"))
            }
            guard !remove else {
                services.logger.warning("\(account.displayName): could not take back \(reaction) from \(destination.shortName): \(failure)")
                return
            }
            await answered(.reactionFailed(path: destination.path, reaction: reaction, reason: failure), rows: [])
        case .comment(let text):
            let comment: CommentText
            do {
                comment = try CommentText(text)
            } catch .empty {
                await answered(.replyNotSent(path: destination.path, reason: .refused(.empty)), rows: [])
                return
            } catch {
                // Past gitbay's 64 KiB: nothing reached the instance; the text is kept, to be
                // shortened, and the words name the limit.
                await keep(text, on: destination, because: .refused(error))
                return
            }
            let wallClock = services.wallClock
            switch await client.postComment(comment, on: destination, as: account.username, now: { wallClock.now.timeIntervalSince1970 }) {
            case .posted, .postedUnanswered:
                await answered(.replied(path: destination.path), rows: answer.rows)
            case .notPosted(let reason):
                await keep(comment.text, on: destination, because: .notPosted(reason))
            case .unknown(let reason, let checkFailed):
                await keep(comment.text, on: destination, because: .unknown(reason: reason, checkFailed: checkFailed))
            }
        }
    }

    /// A reply not posted is kept in `drafts.json`, where `gbnotifyctl reply` offers it again,
    /// and said. When even that fails its text goes to the log, so that it is never lost.
    private func keep(_ text: String, on destination: NotificationDestination, because reason: AnswerFailure) async {
        let draft = DraftRecord.Draft(
            account: account, path: destination.path, text: text,
            savedAt: Int64(services.wallClock.now.timeIntervalSince1970), failure: reason)
        var said = reason
        do {
            let (kept, warning) = try await services.state.keepDraft(draft)
            if let warning { services.logger.warning(warning) }
            if !kept { said = .notKept(reason, because: nil) }
        } catch {
            said = .notKept(reason, because: "\(error)")
        }
        if said != reason {
            services.logger.warning("\(account.displayName): the reply to \(destination.shortName) that was not kept:\n\(text)")
        }
        await answered(.replyKept(path: destination.path, reason: said), rows: [])
    }

    /// Told, and said on screen; the rows marked read first, so the answered notification is
    /// withdrawn before the one that says so comes.
    private func answered(_ said: AnswerSaid, rows: [Int64]) async {
        if !rows.isEmpty { await markRead(rows) }
        services.logger.report(.answered(account, said), to: services.events)
        await services.desktop(.answered(account, said))
    }

    /// A click's write (Mark read, Mute, Undo), sent again when the server's limits turned it
    /// away and said when to come back (a 429, a 403 "too many writes", a 503): the click is not
    /// lost, and sending it twice does no harm, since each sets a state. At most
    /// `clickWriteAttempts` sends; a stop ends the wait.
    private func sendClicksWrite(_ command: GitbayCommand, with client: any GitbayTransport) async throws -> APIResult {
        var attempt = 1
        while true {
            let result = try await client.send(command)
            guard attempt < Self.clickWriteAttempts, let seconds = result.retryAfter else { return result }
            services.logger.info("\(account.displayName): \(command.argv.prefix(2).joined(separator: " ")): \(result); sending it again")
            try await services.timeline.sleep(for: .seconds(seconds))
            attempt += 1
        }
    }

    static let clickWriteAttempts = 3

    private func stopLoop() async {
        running = nil
        guard let loop else { return }
        self.loop = nil
        loop.cancel()
        memory = await loop.value
    }
}

/// What a poller knows beyond one run of its loop.
struct PollMemory: Sendable {
    /// The persisted state: high-water mark, ETag and the unread count that goes with it.
    var record: AccountRecord
    /// The unread count last handed to the desktop; nil until the first in this process.
    var presentedUnread: UnreadCount?
    /// This process's last registration outcome.
    var registration: Registration?
    /// The token the server last rejected, so the user hears of a rejected token once, not
    /// after every reload.
    var rejectedToken: APIToken?
    /// The token `whoami` last answered for, and the user it named: asked once per token.
    var tokenOwner: (token: APIToken, username: String)?
    /// The last write of `record` failed (a full disk): it is written again after the next
    /// poll, whatever that poll finds, so the mark reaches the disk once the disk has room.
    var isUnsaved = false
    /// When the last poll started, on the daemon's timeline: wake-ups wait out
    /// `PollSchedule.minimumWakeGap` after it, across reloads too.
    var lastPoll: Duration?
}

extension AccountPoller {
    /// Why the instance did not do an answer, as a reply's failure is said (`NotPostedReason`)
    /// where that fits.
    nonisolated static func failure(_ result: APIResult) -> AnswerFailure {
        if case .notPosted(let reason) = CommentDelivery(.answered(result)) { return .notPosted(reason) }
        return .answered("\(result)")
    }
}

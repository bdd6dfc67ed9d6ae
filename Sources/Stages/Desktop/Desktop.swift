import DBus
import Glibc
import LocalTime
import Logging
import MainLoop
import Notifications
import PushCore
import StateStore

/// What a click on a notification asks of an account: handed to the stage's `AccountRequests`
/// (the supervisor) by a call, never called back.
public enum DesktopRequest: Sendable, Equatable {
    /// "Mark read": these inbox rows of the account, on its instance.
    case markRead(Account, [Int64])
    /// "Mute" (`.mute`) or its "Undo" (`.unwatch`): the repository's watch state, on the
    /// account's instance.
    case setWatch(Account, repository: String, GitbayCommand.WatchChange)
    /// "👍" or its "Undo", or a reply typed into the popup: on the item, on the account's
    /// instance; what became of it comes back as `DesktopNews.answered`.
    case answer(Account, ItemAnswer)
}

/// Who takes what a click asks of an account: the supervisor, which hands it to the account's
/// poller. The desktop stage calls it on the loop, once per click, and does not keep it alive.
public protocol AccountRequests: AnyObject, Sendable {
    @LoopActor func asked(_ request: DesktopRequest)
}

/// What the rest of the daemon hands the desktop: plain values, never a question.
public enum DesktopNews: Sendable, Equatable {
    /// A poll's (or a "Mark read"'s) news of one account.
    case update(AccountUpdate)
    /// The server rejected the account's token: polling stopped until it has a new one.
    case tokenRejected(Account)
    /// The accounts polled now: the others' notifications and counts go.
    case accounts([Account])
    /// The config was read again: what a click opens, `max-notifications`, the rules and the
    /// quiet hours follow it.
    case config(Config)
    /// The snoozes in force (read at the start and on every reload).
    case snoozes([NoiseRecord.Snooze])
    /// What became of an answer from a notification (`DesktopRequest.answer`): said in a
    /// short notification.
    case answered(Account, AnswerSaid)
}

/// The last stage, from what the pollers learnt to the screen: notifications (through the
/// notification server), the launcher badge, and what a click on one opens.
///
/// Everything it is told or hears (news, the server's signals, a server coming and going, a
/// dock appearing) goes through one queue and is handled in order by one task, so no two of
/// them ever interleave. It answers nothing: what a click asks of an account goes to its
/// `AccountRequests` (`sendRequests(to:)`) by a call, and news is handed over like a letter, not asked about: `hand` returns once the
/// stage has dealt with it.
public final class Desktop: Sendable {
    public struct Options: Sendable {
        public var config: Config
        /// The daemon's environment, inherited by what a click opens.
        public var environment: [String: String]
        /// The program a URL is handed to when no OpenURI portal takes it.
        public var browser: [String]
        /// `app_icon` of every notification; by default the one `AppIcon` finds.
        public var icon: String?
        /// The programs trusted to be xdg-desktop-portal (`Opener`); the system's unless given.
        public var trustedPortals: Set<String>?
        public var timeline: Timeline
        /// Where what the stage did is told, for whoever watches.
        public var events: DaemonEvents
        /// The local time zone's rules and the wall clock (seconds since the Unix epoch) at the
        /// timeline's start: when quiet hours and snoozes hold.
        public var zone: ZoneOffsets
        public var wallClockAtStart: Int64

        public init(
            config: Config, environment: [String: String], icon: String? = nil, browser: [String] = ClickLaunch.defaultBrowser,
            timeline: Timeline = Timeline(), events: DaemonEvents = .none, zone: ZoneOffsets = SystemZone.offsets,
            wallClockAtStart: Int64 = SystemZone.now()
        ) {
            self.config = config
            self.environment = environment
            self.icon = icon
            self.browser = browser
            self.timeline = timeline
            self.events = events
            self.zone = zone
            self.wallClockAtStart = wallClockAtStart
        }

        /// The wall clock now, read off the timeline.
        var wallClock: Int64 { wallClockAtStart + timeline.now.components.seconds }
    }

    enum Input: Sendable {
        /// Answered once the news is handled: shown, or waiting for a server.
        case news(DesktopNews, NewsReply)
        case notification(NotificationEvent)
        case broadcast(DBusSignal)
        case dockAppeared
        /// A hold (snooze, quiet hours) may have ended: the one timer of them fired.
        case holdsDue
        /// The notification of this entry said for a while ("Muted OWNER/REPO", "Reacted 👍 to
        /// ...") has been shown long enough.
        case saidEnough(UInt64)
        /// The server answered the show `flight` of the entry (`Screen.startShowing`).
        case showAnswered(entry: UInt64, flight: UInt64, ShowOutcome)
        case open(PushTarget, activationToken: String?)
        case stop(CheckedContinuation<Void, Never>)
    }

    private let screen: Screen
    private let inputs: AsyncStream<Input>.Continuation
    private let tasks: [Task<Void, Never>]

    private init(screen: Screen, inputs: AsyncStream<Input>.Continuation, tasks: [Task<Void, Never>]) {
        self.screen = screen
        self.inputs = inputs
        self.tasks = tasks
    }

    /// Where what clicks ask of the accounts goes from now on (the supervisor, once it exists:
    /// it takes the stage's news, so it is made after the stage). Clicks before this wait for it.
    @LoopActor public func sendRequests(to taker: any AccountRequests) {
        screen.sendRequests(to: taker)
    }

    /// Starts the stage: the notification client, the watches on `connection` (the server's
    /// owner and broadcast signals, the dock), and the notifications an earlier daemon left on
    /// screen, taken over when the same server still shows them.
    /// `server` is the desktop's notification server over `connection` unless given.
    public static func start(
        on connection: DBusConnection, server: (any NotificationServer)? = nil, state: StateFiles, options: Options, logger: Logger
    ) async throws -> Desktop {
        let client: any NotificationServer
        if let server {
            client = server
        } else {
            client = try await NotificationClient(on: connection, appName: NotificationContent.appName)
        }
        let broadcasts = try await connection.signals(matching: ServerSignals.matchRule)
        let dockOwners = try await connection.watchNameOwner(Badge.dockName)
        let owner = await client.serverOwner()
        // Whether what an earlier daemon left can be taken over depends on the server.
        let server = owner == nil ? nil : await client.serverInformation()

        var saved: ScreenBook.Saved?
        do {
            let (loaded, warning) = try await state.loadScreen()
            if let warning { logger.warning(warning) }
            saved = loaded
        } catch {
            logger.warning("cannot read which notifications an earlier gbnotifyd left open (\(error)); none is taken over")
        }

        var options = options
        options.icon = options.icon ?? Notification.appIcon(environment: options.environment)
        let (stream, inputs) = AsyncStream.makeStream(of: Input.self)
        let screen = Screen(
            client: client, signals: ServerSignals(connection: connection), badge: Badge(connection: connection),
            clicks: Clicks(connection: connection, options: options, logger: logger), state: state, options: options,
            timers: inputs, logger: logger, saved: saved, serverOwner: owner,
            server: server)
        let tasks = [
            Task {
                await screen.begin()
                for await input in stream {
                    if await screen.handle(input) { break }
                }
            },
            Task { for await event in client.events { inputs.yield(.notification(event)) } },
            Task { for await signal in broadcasts { inputs.yield(.broadcast(signal)) } },
            Task { for await owner in dockOwners where owner != nil { inputs.yield(.dockAppeared) } },
        ]
        return Desktop(screen: screen, inputs: inputs, tasks: tasks)
    }

    /// Hands news on, and returns once it is on screen (or waits for a server there): a poller
    /// saves its high-water mark only after that, so a kill -9 in between shows a notice again
    /// rather than never. News handed after the stop is dropped.
    /// A cancelled caller (a poller retired at the stop) returns at once.
    public func hand(_ news: DesktopNews) async {
        let reply = NewsReply()
        if case .terminated = inputs.yield(.news(news, reply)) { reply.answer() }
        await withTaskCancellationHandler {
            try? await reply.value()
        } onCancel: {
            reply.answer()
        }
    }

    /// Opens what a click on a notice of `target` opens: the tray's menu asks this.
    public func open(_ target: PushTarget, activationToken: String?) {
        inputs.yield(.open(target, activationToken: activationToken))
    }

    /// The longest a stop waits for the server to withdraw our notifications: one that does
    /// not answer holds the daemon's stop up by no more.
    public static let stopLimit = Duration.milliseconds(1_500)

    /// The clean stop: everything handed over before is handled, our notifications are
    /// withdrawn (within `stopLimit`), the badge is cleared, and listening ends. Stopping again
    /// does nothing.
    public func stop() async {
        await withCheckedContinuation { reply in
            if case .terminated = inputs.yield(.stop(reply)) { reply.resume() }
        }
        inputs.finish()
        tasks.forEach { $0.cancel() }
    }
}

/// The answer to news handed over: given once, by the stage when it has dealt with the news or
/// by the caller's cancellation, whichever comes first.
typealias NewsReply = OneAnswer<Void>

import Curl
import PushCore
import Synchronization

/// Everything a relay stream is started with; a reload that changes any of it starts a new one.
struct RelaySettings: Sendable, Equatable {
    let subscription: RelaySubscription
    /// Sent as `Authorization: Bearer`; from the keyring, never the config file.
    let token: APIToken?
    let liveness: RelayLiveness
    let caFile: String?
}

/// The relay stream: `GET RELAY/TOPIC/json?since=LAST_ID`, read line by line for as long as the
/// relay keeps it open, each `message` handed to `deliver`, then its id saved, so that a
/// reconnect and a restart resume right after the last message handled and lose nothing.
///
/// Whatever ends a connection (the relay closing it, a broken connection, an error status, no
/// bytes for two keepalive periods), the stream connects again after `RelayBackoff`'s wait.
/// Bad lines are dropped and counted; the connection goes on.
actor RelayStream {
    nonisolated let settings: RelaySettings
    nonisolated let board: RelayStatusBoard
    private let cursors: RelayCursorStore
    private let deliver: @Sendable (String) async -> DeliveryOutcome
    private let pace: PollPace
    private let logger: Logger
    private var lastMessageID: String?
    /// The relay's time at its first `open` while no message has come yet: where a reconnect
    /// resumes until one does.
    private var firstOpened: Int64?
    /// Dropped lines of the current connection; the first is a warning, the rest debug lines,
    /// so a relay sending garbage cannot flood the log.
    private var droppedOnConnection = 0
    private var loop: Task<Void, Never>?

    /// Loads the saved position, then connects in the background.
    static func start(
        _ settings: RelaySettings, cursors: RelayCursorStore, pace: PollPace, logger: Logger,
        deliver: @escaping @Sendable (String) async -> DeliveryOutcome
    ) async -> RelayStream {
        var saved: RelayCursor?
        do {
            let (cursor, warning) = try await cursors.load()
            if let warning { logger.warning(warning) }
            saved = cursor
        } catch {
            logger.error("cannot read the relay cursor (\(error)); the relay stream starts from now")
        }
        let stream = RelayStream(
            settings, lastMessageID: settings.subscription.resumeID(from: saved), cursors: cursors, pace: pace,
            logger: logger, deliver: deliver)
        await stream.begin()
        return stream
    }

    private init(
        _ settings: RelaySettings, lastMessageID: String?, cursors: RelayCursorStore, pace: PollPace, logger: Logger,
        deliver: @escaping @Sendable (String) async -> DeliveryOutcome
    ) {
        self.settings = settings
        self.lastMessageID = lastMessageID
        self.cursors = cursors
        self.pace = pace
        self.logger = logger
        self.deliver = deliver
        board = RelayStatusBoard(url: settings.subscription.relay.url, lastMessageID: lastMessageID)
    }

    private func begin() {
        loop = Task { await self.run() }
    }

    /// Closes the connection and stops reconnecting; returns once the stream has stopped and its
    /// position is on disk.
    func stop() async {
        loop?.cancel()
        await loop?.value
        loop = nil
        await cursors.flush()
    }

    // MARK: - Connecting

    private var relayName: String { settings.subscription.relay.url }

    private func run() async {
        var backoff = RelayBackoff()
        var random = SystemRandomNumberGenerator()
        var isFirstAttempt = true
        while !Task.isCancelled {
            if !isFirstAttempt { board.update { $0.reconnects += 1 } }
            isFirstAttempt = false
            let (uptime, ending) = await connectOnce()
            guard !Task.isCancelled else { break }
            let delay = backoff.delay(afterConnectionLasting: uptime, random: &random)
            board.update { $0.lastError = ending }
            logger.warning("relay \(relayName): \(ending); connecting again in \(Self.words(delay))")
            do {
                try await Task.sleep(for: delay)
            } catch {
                break
            }
        }
        disconnected()
    }

    /// One connection, from the request to its end; how long it was open (zero when it never
    /// opened) and why it ended.
    private func connectOnce() async -> (uptime: Duration, ending: String) {
        var headers: [String: String] = [:]
        if let token = settings.token { headers["Authorization"] = "Bearer \(token.secret)" }
        let position: RelayPosition = lastMessageID.map { .after($0) } ?? firstOpened.map { .since($0) } ?? .now
        let request = HTTPRequest(url: settings.subscription.url(from: position), headers: headers)
        let stream: HTTPStream
        do {
            stream = try await HTTPSession.shared.stream(request, options: StreamOptions(caFile: settings.caFile))
        } catch {
            return (.zero, "\(error)")
        }
        guard stream.status == 200 else { return (.zero, Self.refusal(stream.status, hasToken: settings.token != nil)) }

        let opened = ContinuousClock.now
        droppedOnConnection = 0
        board.update {
            $0.connected = true
            $0.lastError = nil
        }
        pace.setRelayConnected(true)
        logger.info("relay \(relayName): connected\(lastMessageID.map { ", resuming after message \($0)" } ?? "")")
        let ending = await read(stream)
        disconnected()
        return (ContinuousClock.now - opened, ending)
    }

    private func disconnected() {
        board.update { $0.connected = false }
        pace.setRelayConnected(false)
    }

    /// Reads until the stream ends, breaks, or falls silent for two keepalive periods; why it
    /// stopped.
    private func read(_ stream: HTTPStream) async -> String {
        let heartbeat = Heartbeat()
        let liveness = settings.liveness
        return await withTaskGroup(of: String.self) { group in
            group.addTask {
                var splitter = RelayLineSplitter()
                var ending: String
                do {
                    for try await chunk in stream {
                        heartbeat.beat()
                        for line in splitter.lines(in: chunk) { await self.take(line) }
                    }
                    ending = "the relay closed the stream"
                } catch {
                    ending = "the stream broke: \(error)"
                }
                // Not a dropped line: the message it was comes again after `since=`.
                if splitter.hasPartialLine { ending += " in the middle of a line" }
                return ending
            }
            group.addTask {
                while true {
                    let silence = ContinuousClock.now - heartbeat.last
                    if liveness.isDead(afterSilence: silence) {
                        return "no bytes for \(Self.words(liveness.silenceLimit)) (two keepalive periods); taken for dead"
                    }
                    do {
                        try await Task.sleep(for: liveness.silenceLimit - silence)
                    } catch {
                        return "stopped"
                    }
                }
            }
            let ending = await group.next() ?? "stopped"
            group.cancelAll()
            return ending
        }
    }

    // MARK: - Lines

    private func take(_ line: RelayLineSplitter.Line) async {
        board.eventArrived()
        let event: RelayEvent
        switch line {
        case .oversized(let byteCount):
            return drop(RelayLineError.tooLong(byteCount: byteCount))
        case .line(let bytes):
            do {
                event = try RelayEvent(line: bytes)
            } catch {
                return drop(error)
            }
        }
        switch event {
        case .open(let time):
            if lastMessageID == nil, firstOpened == nil { firstOpened = time }
        case .keepalive:
            break
        case .other(let name):
            logger.debug("relay \(relayName): ignored a '\(name)' event")
        case .message(let message):
            await handle(message)
        }
    }

    /// Delivers, then moves the resume point past the message and saves it. A crash before the
    /// save is on disk resumes before the message: it comes again rather than never.
    private func handle(_ message: RelayMessage) async {
        let outcome = await deliver(message.text)
        lastMessageID = message.id
        board.update { $0.lastMessageID = message.id }
        let subscription = settings.subscription
        let (logger, relayName) = (logger, relayName)
        cursors.save(RelayCursor(relayURL: subscription.relay.url, topic: subscription.topic, lastMessageID: message.id)) { error in
            logger.error("relay \(relayName): cannot save the stream's position (\(error)); a restart resumes from an earlier message")
        }
        logger.debug("relay \(relayName): message \(message.id): \(Self.words(outcome))")
    }

    private func drop(_ error: RelayLineError) {
        board.update { $0.droppedLines += 1 }
        droppedOnConnection += 1
        if droppedOnConnection == 1 {
            logger.warning("relay \(relayName): dropped a line: \(error); later ones on this connection are logged at debug level")
        } else {
            logger.debug("relay \(relayName): dropped a line: \(error)")
        }
    }

    // MARK: - Words

    private static func refusal(_ status: Int, hasToken: Bool) -> String {
        switch status {
        case 401, 403:
            hasToken
                ? "the relay refused the subscription (\(status)); the relay token may be wrong or expired: gbnotifyctl relay login URL"
                : "the relay refused the subscription (\(status)); it needs an access token: gbnotifyctl relay login URL"
        case 429:
            "the relay is rate-limiting this client (429)"
        default:
            "the relay answered \(status) instead of a stream"
        }
    }

    private static func words(_ outcome: DeliveryOutcome) -> String {
        switch outcome {
        case .shown: "shown"
        case .alreadyShown: "shown already"
        case .wokeUp: "its account polls now"
        case .dropped(let reason): "dropped: \(reason)"
        }
    }

    /// `250 ms`, `12 s`.
    private static func words(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds < 1000 ? "\(milliseconds) ms" : "\((milliseconds + 500) / 1000) s"
    }
}

/// When the stream last received bytes, for the dead-connection rule.
private final class Heartbeat: Sendable {
    private let instant = Mutex(ContinuousClock.now)

    func beat() {
        instant.withLock { $0 = .now }
    }

    var last: ContinuousClock.Instant { instant.withLock { $0 } }
}

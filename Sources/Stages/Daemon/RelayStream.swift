import Curl
import Logging
import PushCore
import StateStore
import MainLoop

/// Everything a relay stream is started with; a reload that changes any of it (an account
/// coming or going changes the topics) starts a new one, which resumes where this one stopped.
struct RelaySettings: Sendable, Equatable {
    let subscription: RelaySubscription
    /// Sent as `Authorization: Bearer`; from the keyring, never the config file.
    let token: APIToken?
    let liveness: RelayLiveness
    let caFile: String?
}

/// The relay stream: `GET RELAY/T1,T2,.../json?since=LAST_ID`, read line by line for as long as
/// the relay keeps it open. Each `message` is handed to the supervisor by a call, as a wake-up for
/// the account whose topic it came on, and so is each connection and its end; the message's id
/// is saved after, so a reconnect and a restart resume right after the last message handed on.
///
/// Whatever ends a connection (the relay closing it, a broken connection, an error status, no
/// bytes for two keepalive periods), the stream connects again after `RelayBackoff`'s wait; at
/// once after a resume or the network's return. While offline it does not try. Bad lines are
/// dropped and counted; the connection goes on.
///
/// Isolated to `LoopActor`, as the supervisor is (which says why not `@MainActor`).
@LoopActor
final class RelayStream {
    nonisolated let settings: RelaySettings
    nonisolated let board: RelayStatusBoard
    private let signal = WakeSignal()
    private let state: StateFiles
    /// The supervisor, which started the stream and stops it (so not kept alive by it).
    private weak var supervisor: Supervisor?
    private var hasConnected = false
    private let logger: Logger
    private let timeline: Timeline
    private let random: RandomSource
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
        _ settings: RelaySettings, state: StateFiles, isOnline: Bool, timeline: Timeline, random: RandomSource, logger: Logger,
        telling supervisor: Supervisor
    ) async -> RelayStream {
        var saved: RelayCursor?
        do {
            let (cursor, warning) = try await state.loadRelayCursor()
            if let warning { logger.warning(warning) }
            saved = cursor
        } catch {
            logger.error("cannot read the relay cursor (\(error)); the relay stream starts from now")
        }
        let stream = RelayStream(
            settings, lastMessageID: settings.subscription.resumeID(from: saved), state: state, timeline: timeline,
            random: random, logger: logger, supervisor: supervisor)
        stream.setOnline(isOnline)
        stream.begin()
        return stream
    }

    private init(
        _ settings: RelaySettings, lastMessageID: String?, state: StateFiles, timeline: Timeline, random: RandomSource,
        logger: Logger, supervisor: Supervisor
    ) {
        self.random = random
        self.settings = settings
        self.lastMessageID = lastMessageID
        self.state = state
        self.timeline = timeline
        self.logger = logger
        self.supervisor = supervisor
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
        await state.flush()
    }

    /// The system resumed or the network came back: the connection is likely dead, so it is
    /// dropped and made again at once, resuming with `since=`.
    func reconnectNow() {
        signal.wake(.networkReturned(notBefore: .zero))
    }

    /// Offline, the stream closes and does not try again until the network is back.
    func setOnline(_ isOnline: Bool) {
        signal.setOnline(isOnline)
    }

    // MARK: - Connecting

    private var relayName: String { settings.subscription.relay.url }

    private func run() async {
        var backoff = RelayBackoff()
        var random = self.random.generator()
        var isFirstAttempt = true
        while !Task.isCancelled {
            let (snapshot, generation) = signal.look()
            guard snapshot.isOnline else {
                // No timer: an offline daemon sleeps until the network comes back.
                await signal.changed(after: generation)
                continue
            }
            signal.clearWake()
            if !isFirstAttempt { board.update { $0.reconnects += 1 } }
            isFirstAttempt = false
            let (uptime, ending) = await connectOnce()
            guard !Task.isCancelled else { break }
            board.update { $0.lastError = ending }
            let now = signal.look().snapshot
            guard now.isOnline else {
                logger.info("relay \(relayName): \(ending); connecting again once the network is back")
                continue
            }
            if case .networkReturned? = now.wake {
                backoff = RelayBackoff()
                logger.info("relay \(relayName): \(ending); connecting again now")
                continue
            }
            let delay = backoff.delay(afterConnectionLasting: uptime, random: &random)
            logger.warning("relay \(relayName): \(ending); connecting again in \(Self.words(delay))")
            // The wait ends early when the network comes back, goes, or the system resumes.
            await signal.changed(after: signal.look().generation, notAfter: (timeline.now + delay, on: timeline))
            if Task.isCancelled { break }
        }
        disconnected()
    }

    /// One connection, from the request to its end; how long it was open (zero when it never
    /// opened) and why it ended.
    private func connectOnce() async -> (uptime: Duration, ending: String) {
        var headers: [String: String] = [:]
        if let token = settings.token { headers["Authorization"] = "Bearer \(token.secret)" }
        let position: RelayPosition = lastMessageID.map { .after($0) } ?? firstOpened.map { .since($0) } ?? .now
        let request = HTTPRequest(
            mayUseProxy: settings.subscription.relay.mayUseProxy, url: settings.subscription.url(from: position),
            headers: headers)
        let stream: HTTPStream
        switch await open(request) {
        case .success(let opened): stream = opened
        case .failure(let failure): return (.zero, failure.why)
        }
        guard stream.status == 200 else { return (.zero, Self.refusal(stream.status, hasToken: settings.token != nil)) }

        let opened = timeline.now
        droppedOnConnection = 0
        board.update {
            $0.connected = true
            $0.lastError = nil
        }
        logger.info("relay \(relayName): connected\(lastMessageID.map { ", resuming after message \($0)" } ?? "")")
        // A relay may send the backlog of several topics out of publication order (ntfy sorts
        // it by the second), so `since=` can step over a message published in the same second
        // as the last one read: after a gap, every account polls once, and nothing is missed.
        supervisor?.relayConnected(afterGap: hasConnected)
        hasConnected = true
        let ending = await read(stream)
        disconnected()
        return (timeline.now - opened, ending)
    }

    /// Why a stream did not open.
    private struct OpenFailure: Error {
        let why: String
    }

    /// The response head, within one keepalive period: a relay that takes the request and
    /// never answers is as dead as one fallen silent. Given up at once, too, when the system
    /// resumes or the network comes or goes. TCP keepalive at the same period ends a connection
    /// whose relay vanished without a word.
    private func open(_ request: HTTPRequest) async -> Result<HTTPStream, OpenFailure> {
        let limit = settings.liveness.keepalivePeriod
        let options = StreamOptions(caFile: settings.caFile, tcpKeepalive: limit)
        let generation = signal.look().generation
        return await withTaskGroup(of: Result<HTTPStream, OpenFailure>.self) { group in
            group.addTask {
                do {
                    return .success(try await HTTPSession.shared.stream(request, options: options))
                } catch {
                    return .failure(OpenFailure(why: "\(error)"))
                }
            }
            group.addTask { .failure(OpenFailure(why: await self.noAnswer(within: limit, after: generation))) }
            let first = await group.next() ?? .failure(OpenFailure(why: "stopped"))
            group.cancelAll()
            return first
        }
    }

    /// Why the relay was given up on while its answer was awaited: no answer within `limit`, or
    /// the system resumed or the network changed after `generation`; "stopped" when cancelled.
    private func noAnswer(within limit: Duration, after generation: Int) async -> String {
        await signal.changed(after: generation, notAfter: (timeline.now + limit, on: timeline))
        if Task.isCancelled { return "stopped" }
        if signal.look().generation != generation {
            return "the system resumed or the network changed before the relay answered"
        }
        return "no response within \(Self.words(limit)) (one keepalive period); taken for dead"
    }

    private func disconnected() {
        guard board.status.connected else { return }
        board.update { $0.connected = false }
        supervisor?.relayDisconnected()
    }

    /// Reads until the stream ends, breaks, falls silent for two keepalive periods, or the
    /// network goes or comes back; why it stopped.
    private func read(_ stream: HTTPStream) async -> String {
        let heartbeat = Heartbeat(timeline.now)
        let generation = signal.look().generation
        // Each child's work is isolated to the loop, so the heartbeat they share needs no lock.
        return await withTaskGroup(of: String.self) { group in
            group.addTask { await self.readChunks(of: stream, beating: heartbeat) }
            group.addTask { await self.watchSilence(of: heartbeat, andTheNetworkAfter: generation) }
            let ending = await group.next() ?? "stopped"
            group.cancelAll()
            return ending
        }
    }

    /// Takes the stream's lines until it ends or breaks; why it ended.
    private func readChunks(of stream: HTTPStream, beating heartbeat: Heartbeat) async -> String {
        var splitter = RelayLineSplitter()
        var ending: String
        do {
            for try await chunk in stream {
                heartbeat.last = timeline.now
                for line in splitter.lines(in: chunk) { take(line) }
            }
            ending = "the relay closed the stream"
        } catch {
            ending = "the stream broke: \(error)"
        }
        // Not a dropped line: the message it was comes again after `since=`.
        if splitter.hasPartialLine { ending += " in the middle of a line" }
        return ending
    }

    /// Returns once no bytes came for two keepalive periods, the system resumed or the network
    /// came or went after `generation`, or the wait is cancelled.
    private func watchSilence(of heartbeat: Heartbeat, andTheNetworkAfter generation: Int) async -> String {
        let liveness = settings.liveness
        while true {
            let silence = timeline.now - heartbeat.last
            if liveness.isDead(afterSilence: silence) {
                return "no bytes for \(Self.words(liveness.silenceLimit)) (two keepalive periods); taken for dead"
            }
            await signal.changed(after: generation, notAfter: (timeline.now + liveness.silenceLimit - silence, on: timeline))
            if Task.isCancelled { return "stopped" }
            let (snapshot, now) = signal.look()
            if now != generation {
                return snapshot.isOnline ? "the system resumed or the network came back" : "the system is offline"
            }
        }
    }

    // MARK: - Lines

    private func take(_ line: RelayLineSplitter.Line) {
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
            handle(message)
        }
    }

    /// Hands the message on as a wake-up, then moves the resume point past the message and saves
    /// it. Should the daemon die between the two, the account's next regular poll finds the
    /// notice all the same: a message only ever says "poll now".
    private func handle(_ message: RelayMessage) {
        supervisor?.relayed(message)
        lastMessageID = message.id
        board.update { $0.lastMessageID = message.id }
        let (logger, relayName) = (logger, relayName)
        state.saveRelayCursor(RelayCursor(relayURL: settings.subscription.relay.url, lastMessageID: message.id)) { error in
            logger.error("relay \(relayName): cannot save the stream's position (\(error)); a restart resumes from an earlier message")
        }
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

    /// `250 ms`, `12 s`.
    nonisolated static func words(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds < 1000 ? "\(milliseconds) ms" : "\((milliseconds + 500) / 1000) s"
    }
}

/// When the stream last received bytes, on the daemon's timeline, for the dead-connection rule.
@LoopActor
private final class Heartbeat {
    var last: Duration

    init(_ now: Duration) {
        last = now
    }
}

import Glibc
import MainLoop
import PushCore
import Terminal

/// Runs the view at the terminal: keys and signals in, the source's answers in, each turned into
/// a new `ViewState` and drawn whole. One task owns the state; the effects run as tasks of
/// their own and come back as events.
///
/// The terminal is restored exactly (termios, cursor, alternate screen, line wrap) however the
/// view ends: `q`, ^C, a signal, an error, or the terminal going away.
public enum ViewLoop {
    public struct Options: Sendable {
        /// False under `NO_COLOR`.
        public var colors: Bool
        /// How long a lone ESC waits for the rest of a sequence before it counts as the Escape
        /// key.
        public var escapeDelay: Duration
        public var timeline: Timeline

        public init(colors: Bool, escapeDelay: Duration = .milliseconds(50), timeline: Timeline = Timeline()) {
            self.colors = colors
            self.escapeDelay = escapeDelay
            self.timeline = timeline
        }
    }

    /// The size assumed when the terminal does not tell its own.
    public static let fallbackSize = TerminalSize(rows: 24, columns: 80)

    /// Runs the view that `start` begins at the terminal's size, until it ends; returns the exit
    /// status: 0 for `q`, 130 for ^C, 128 + N for signal N, 129 when the terminal hung up, 1
    /// when it could not be used. `report` prints a failure after the terminal is restored.
    public static func run(
        _ start: (TerminalSize) -> (ViewState, [ViewEffect]), source: any ViewSource, options: Options,
        report: (String) -> Void
    ) async -> Int32 {
        let terminal: RawTerminal
        do {
            terminal = try RawTerminal()
        } catch {
            report("\(error)")
            return 1
        }
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        // Signals are handled before the terminal changes: none may leave it raw.
        let input: TerminalInput
        do {
            input = try Running.input(continuation)
        } catch {
            report("\(error)")
            return 1
        }
        do {
            try terminal.enter()
        } catch {
            input.stop()
            terminal.restore()
            input.releaseSignals()
            report("\(error)")
            return 1
        }
        var loop = Running(
            terminal: terminal, input: input, source: source, renderer: FrameRenderer(colors: options.colors), options: options,
            continuation: continuation)
        let status = await loop.run(start, events: events)
        loop.cancelEffects()
        loop.input.stop()
        terminal.restore()
        loop.input.releaseSignals()
        continuation.finish()
        return status
    }

    enum Event: Sendable {
        case input(TerminalInput.Event)
        case view(ViewEvent)
        /// The wait for the rest of an escape sequence is over (the `generation`th one).
        case escapeTimeout(Int)
    }

    /// The loop's own state: the view, the key decoder, the effects under way.
    private struct Running {
        let terminal: RawTerminal
        /// A new one each time the terminal comes back from the editor.
        var input: TerminalInput
        let source: any ViewSource
        let renderer: FrameRenderer
        let options: Options
        let continuation: AsyncStream<Event>.Continuation
        var decoder = KeyDecoder()
        var escapeGeneration = 0
        /// The wait for the rest of an escape sequence; the next key starts a new one.
        var escapeAlarm: Timeline.Alarm?
        /// Cancelled when the view ends; at a person's pace of keys, they never pile up.
        var effects: [Task<Void, Never>] = []
        /// An effect that needs the terminal (the editor), run by the loop itself between events.
        var handOver: ViewEffect?

        init(
            terminal: RawTerminal, input: TerminalInput, source: any ViewSource, renderer: FrameRenderer, options: Options,
            continuation: AsyncStream<Event>.Continuation
        ) {
            self.terminal = terminal
            self.input = input
            self.source = source
            self.renderer = renderer
            self.options = options
            self.continuation = continuation
        }

        mutating func run(_ start: (TerminalSize) -> (ViewState, [ViewEffect]), events: AsyncStream<Event>) async -> Int32 {
            var (state, started) = start(currentSize())
            guard draw(state, clear: false) else { return Self.hungUp }
            perform(started)
            for await event in events {
                var clear = false
                switch event {
                case .input(.bytes(let bytes)):
                    for key in decoder.decode(bytes) {
                        switch key {
                        case .control("z"):
                            guard suspend() else { return Self.hungUp }
                            clear = true
                        case .control("l"):
                            clear = true
                        default:
                            perform(state.handle(.key(key)))
                        }
                        if state.exitStatus != nil { break }
                    }
                    if decoder.isWaiting { waitForRestOfEscape() }
                case .escapeTimeout(let generation):
                    guard generation == escapeGeneration else { continue }
                    for key in decoder.flush() { perform(state.handle(.key(key))) }
                case .input(.signal(let number)):
                    switch number {
                    case SIGWINCH:
                        perform(state.handle(.resized(currentSize())))
                        clear = true
                    case SIGTSTP:
                        guard suspend() else { return Self.hungUp }
                        clear = true
                    case SIGCONT:
                        // Continued after a stop this view did not make: the shell may have
                        // changed the terminal meanwhile.
                        guard (try? terminal.enter()) != nil else { return Self.hungUp }
                        clear = true
                    default:
                        return 128 + number
                    }
                case .input(.closed):
                    return Self.hungUp
                case .view(let viewEvent):
                    perform(state.handle(viewEvent))
                }
                if let status = state.exitStatus { return status }
                if let effect = handOver {
                    handOver = nil
                    guard await handTerminal(effect, to: &state) else { return Self.hungUp }
                    clear = true
                }
                guard draw(state, clear: clear) else { return Self.hungUp }
            }
            return Self.hungUp
        }

        static func input(_ continuation: AsyncStream<Event>.Continuation) throws(TerminalInput.Failure) -> TerminalInput {
            try TerminalInput { continuation.yield(.input($0)) }
        }

        /// Runs `effect` (the editor) with the terminal handed over: as it was found, nothing
        /// read from it and no signal taken meanwhile; then the view again, at the terminal's
        /// size now. What ^C, ^\ and ^Z sent meanwhile was the editor's, and is dropped. False
        /// when the terminal cannot be had back.
        mutating func handTerminal(_ effect: ViewEffect, to state: inout ViewState) async -> Bool {
            input.pause()
            terminal.restore()
            let answer = await Self.answer(effect, from: source)
            TerminalInput.discardPending([SIGINT, SIGQUIT, SIGTSTP])
            guard let input = try? Self.input(continuation), (try? terminal.enter()) != nil else { return false }
            self.input = input
            perform(state.handle(answer))
            perform(state.handle(.resized(currentSize())))
            return true
        }

        /// The status when the terminal went away: as if by SIGHUP.
        static let hungUp: Int32 = 128 + SIGHUP

        func currentSize() -> TerminalSize {
            terminal.size().map { TerminalSize(rows: $0.rows, columns: $0.columns) } ?? ViewLoop.fallbackSize
        }

        /// False when the terminal cannot be written to any more.
        func draw(_ state: ViewState, clear: Bool) -> Bool {
            terminal.write(renderer.render(state.frame(), clearFirst: clear))
        }

        /// ^Z: the terminal as it was found, stopped until continued, then the view again; no
        /// stop at all where no shell could continue it.
        func suspend() -> Bool {
            guard RawTerminal.canSuspend else { return true }
            terminal.restore()
            kill(getpid(), SIGSTOP)
            return (try? terminal.enter()) != nil
        }

        mutating func waitForRestOfEscape() {
            escapeGeneration += 1
            let generation = escapeGeneration
            let continuation = self.continuation
            escapeAlarm?.cancel()
            escapeAlarm = options.timeline.alarm(after: options.escapeDelay) {
                continuation.yield(.escapeTimeout(generation))
            }
        }

        mutating func perform(_ requested: [ViewEffect]) {
            for effect in requested {
                if case .compose = effect {
                    handOver = effect
                    continue
                }
                let (source, continuation) = (self.source, self.continuation)
                effects.append(Task {
                    continuation.yield(.view(await Self.answer(effect, from: source)))
                })
            }
        }

        func cancelEffects() {
            escapeAlarm?.cancel()
            effects.forEach { $0.cancel() }
        }

        /// Runs one effect against the source; its answer, failures included.
        static func answer(_ effect: ViewEffect, from source: any ViewSource) async -> ViewEvent {
            switch effect {
            case .loadItem(let screen, let reference, let destination):
                let account: Account
                do throws(ReadProblem) {
                    account = try await source.account(reference)
                } catch {
                    return .itemLoaded(screen: screen, account: nil, .failure(error))
                }
                do throws(ReadProblem) {
                    return .itemLoaded(screen: screen, account: account, .success(try await source.item(destination, of: account)))
                } catch {
                    return .itemLoaded(screen: screen, account: account, .failure(error))
                }
            case .loadInbox(let screen, let reference):
                do throws(ReadProblem) {
                    let accounts = try await source.accounts(named: reference)
                    return .inboxLoaded(screen: screen, .success(await inboxes(of: accounts, source)))
                } catch {
                    return .inboxLoaded(screen: screen, .failure(error))
                }
            case .markRead(let account, let path):
                do throws(ReadProblem) {
                    return .markedRead(account: account, path: path, .success(try await source.markRead(path, of: account)))
                } catch {
                    return .markedRead(account: account, path: path, .failure(error))
                }
            case .open(let target):
                do throws(ReadProblem) {
                    return .opened(.success(try await source.open(target)))
                } catch {
                    return .opened(.failure(error))
                }
            case .loadDraft(let screen, let account, let destination):
                do throws(ReadProblem) {
                    return .draftLoaded(screen: screen, .success(try await source.draft(on: destination, of: account)))
                } catch {
                    return .draftLoaded(screen: screen, .failure(error))
                }
            case .compose(let screen, let template):
                return .composed(screen: screen, await source.compose(template))
            case .reply(let screen, let account, let destination, let comment, let file, let offered):
                return .replied(
                    screen: screen, await source.reply(comment, file: file, offered: offered, on: destination, of: account))
            case .react(let screen, let account, let destination, let reaction, let remove):
                do throws(ReadProblem) {
                    _ = try await source.react(reaction, remove: remove, on: destination, of: account)
                    return .reacted(screen: screen, reaction: reaction, remove: remove, failure: nil)
                } catch {
                    return .reacted(screen: screen, reaction: reaction, remove: remove, failure: error)
                }
            }
        }

        /// Every account's inbox at once, so that a dead instance costs one timeout, not one each.
        private static func inboxes(of accounts: [Account], _ source: any ViewSource) async -> [AccountInbox] {
            await withTaskGroup(of: (Int, AccountInbox).self) { group in
                for (index, account) in accounts.enumerated() {
                    group.addTask {
                        do throws(ReadProblem) {
                            return (index, AccountInbox(account: account, listing: .success(try await source.inbox(of: account))))
                        } catch {
                            return (index, AccountInbox(account: account, listing: .failure(error)))
                        }
                    }
                }
                var inboxes: [(Int, AccountInbox)] = []
                for await inbox in group { inboxes.append(inbox) }
                return inboxes.sorted { $0.0 < $1.0 }.map(\.1)
            }
        }
    }
}

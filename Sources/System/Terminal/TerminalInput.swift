import Glibc
import MainLoop
import SystemCalls

/// What arrives from the terminal's side: bytes typed, signals (a resize, a request to stop or
/// suspend, the terminal hanging up), and the end of input.
///
/// Standard input is a source on the main loop, and the signals come off it too
/// (`SignalWatch`), so no thread waits for either; each event goes to `deliver`. `stop()` ends
/// the reading; `releaseSignals()`, once the terminal is restored, gives the signals back to
/// their default actions (until then one that would end the process is held, so that none
/// leaves the terminal raw). The signals must be blocked from the program's start
/// (`LoopMain.run(blocking: TerminalInput.signals)`).
public final class TerminalInput: Sendable {
    public enum Event: Sendable, Equatable {
        case bytes([UInt8])
        case signal(Int32)
        /// Standard input ended or failed: the terminal is gone.
        case closed
    }

    /// The signals the view handles: resize, the ones that end it, and job control.
    public static let signals: [Int32] = [SIGWINCH, SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGTSTP, SIGCONT]

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Standard input's source, used on the loop's thread alone.
    private final class Reading: @unchecked Sendable {
        var source: LoopSource?
    }

    private let reading = Reading()
    private let signalReader: Task<Void, Never>

    public init(deliver: @escaping @Sendable (Event) -> Void) throws(Failure) {
        let signals: AsyncStream<Int32>
        do {
            signals = try SignalWatch.signals(Self.signals)
        } catch {
            throw Failure(description: "\(error)")
        }
        signalReader = Task { for await number in signals { deliver(.signal(number)) } }
        let reading = reading
        MainLoop.shared.submit {
            reading.source = LoopSource.watch(0, for: .readable) { _ in
                var buffer = [UInt8](repeating: 0, count: 4096)
                let read = buffer.withUnsafeMutableBytes { bytes in
                    Result { () throws(Errno) in try FileDescriptor.standardInput.read(into: bytes) }
                }
                switch read {
                case .success(let count) where count > 0:
                    deliver(.bytes(Array(buffer[..<count])))
                case .failure(.wouldBlock):
                    // Woken with nothing to read (another reader of the terminal took it).
                    break
                default:
                    // End of input, or an error such as EIO from a terminal that hung up.
                    reading.source?.cancel()
                    deliver(.closed)
                }
            }
        }
    }

    /// Nothing is read from the terminal after this.
    public func stop() {
        let reading = reading
        MainLoop.shared.submit { reading.source?.cancel() }
    }

    /// Nothing is read from the terminal and no signal is taken after this, and the signals stay
    /// blocked: while another program has the terminal (the editor), what it is sent waits in
    /// the kernel, for `discardPending` or the next `TerminalInput`.
    public func pause() {
        stop()
        signalReader.cancel()
    }

    /// Drops what of `numbers` came while nothing took them: setting a signal's action to
    /// ignore discards it when it is pending, blocked or not (POSIX); the action is then put
    /// back.
    public static func discardPending(_ numbers: [Int32]) {
        for number in numbers {
            let action = signal(number, SIG_IGN)
            signal(number, action)
        }
    }

    /// Gives the signals back their default actions; after `stop()`.
    public func releaseSignals() {
        signalReader.cancel()
        var mask = sigset_t()
        sigemptyset(&mask)
        for number in Self.signals { sigaddset(&mask, number) }
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
    }
}

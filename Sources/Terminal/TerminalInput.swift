import Glibc
import Threads

/// What arrives from the terminal's side: bytes typed, signals (a resize, a request to stop or
/// suspend, the terminal hanging up), and the end of input.
///
/// A thread of its own sleeps in `poll` on standard input and the `SignalPipe`, and hands each
/// event to `deliver`. `stop()` ends it; `releaseSignals()`, once the terminal is restored,
/// gives the signals back their default actions (until then one that would end the process is
/// held, so that none leaves the terminal raw).
public final class TerminalInput: Sendable {
    public enum Event: Sendable, Equatable {
        case bytes([UInt8])
        case signal(Int32)
        /// Standard input ended or failed: the terminal is gone.
        case closed
    }

    /// The signals the view handles: resize, the ones that end it, and job control.
    public static let signals: [Int32] = [SIGWINCH, SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGTSTP, SIGCONT]

    private let stopPipe: (read: Int32, write: Int32)
    private let signalPipe: SignalPipe

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public init(deliver: @escaping @Sendable (Event) -> Void) throws(Failure) {
        guard let signals = SignalPipe(), let stopPipe = Self.pipe() else {
            throw Failure(description: "cannot make a pipe: \(String(cString: strerror(errno)))")
        }
        self.stopPipe = stopPipe
        signalPipe = signals
        let watched = (input: Int32(0), signals: signals, stop: stopPipe.read)
        guard startDetachedThread({ Self.serve(watched, deliver) }) else {
            signals.close()
            [stopPipe.read, stopPipe.write].forEach { _ = close($0) }
            throw Failure(description: "cannot start a thread to read the terminal")
        }
        signals.handle(Self.signals)
    }

    /// Ends the reading thread; nothing is read from the terminal after it.
    public func stop() {
        var byte: UInt8 = 0
        _ = write(stopPipe.write, &byte, 1)
        _ = close(stopPipe.write)
    }

    /// Gives the signals back their default actions; after `stop()`.
    public func releaseSignals() {
        for number in Self.signals { signal(number, SIG_DFL) }
        signalPipe.close()
    }

    private static func pipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { return nil }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        return (ends[0], ends[1])
    }

    private static func serve(_ watched: (input: Int32, signals: SignalPipe, stop: Int32), _ deliver: @Sendable (Event) -> Void) {
        var descriptors = [
            pollfd(fd: watched.input, events: Int16(POLLIN), revents: 0),
            pollfd(fd: watched.signals.readEnd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: watched.stop, events: Int16(POLLIN), revents: 0),
        ]
        var buffer = [UInt8](repeating: 0, count: 4096)
        var inputOpen = true
        while true {
            if !inputOpen { descriptors[0].fd = -1 }
            let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                deliver(.closed)
                break
            }
            if descriptors[2].revents != 0 { break }
            if descriptors[1].revents & Int16(POLLIN) != 0 {
                var byte: UInt8 = 0
                if read(watched.signals.readEnd, &byte, 1) == 1 { deliver(.signal(Int32(byte))) }
            }
            if inputOpen && descriptors[0].revents != 0 {
                let count = read(watched.input, &buffer, buffer.count)
                if count > 0 {
                    deliver(.bytes(Array(buffer[..<count])))
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    // End of input, or an error such as EIO from a terminal that hung up.
                    inputOpen = false
                    deliver(.closed)
                }
            }
        }
        _ = close(watched.stop)
    }
}

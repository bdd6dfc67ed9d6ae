import Glibc
import Threads

/// What a signal asks of the daemon.
public enum SignalRequest: Sendable, Equatable {
    /// SIGTERM or SIGINT: stop cleanly.
    case stop(signal: Int32)
    /// SIGHUP: read the config and the accounts again.
    case reload
}

/// SIGTERM, SIGINT and SIGHUP, delivered as `SignalRequest`s. An asynchronous signal handler
/// may do next to nothing safely, so the handler only writes the signal's number to a pipe;
/// a thread of its own, asleep in `read` until then, turns it into a request. Handling lasts as
/// long as this value is kept; after it the signals are ignored.
public struct SignalHandlers: ~Copyable {
    private static let requests: [(Int32, SignalRequest)] = [
        (SIGTERM, .stop(signal: SIGTERM)), (SIGINT, .stop(signal: SIGINT)), (SIGHUP, .reload),
    ]

    public init(_ deliver: @escaping @Sendable (SignalRequest) -> Void) {
        // Without a pipe or a thread the signals keep their default action: they still stop
        // the daemon, only less cleanly.
        guard let pipe = SignalPipe() else { return }
        let readEnd = pipe.readEnd
        guard startDetachedThread({ Self.serve(readEnd, deliver) }) else {
            pipe.close()
            return
        }
        pipe.handle(Self.requests.map(\.0))
    }

    deinit {
        for (number, _) in Self.requests {
            signal(number, SIG_IGN)
        }
    }

    /// Reads signal numbers until the pipe fails, which it does not while the process lives.
    private static func serve(_ readEnd: Int32, _ deliver: @Sendable (SignalRequest) -> Void) {
        while true {
            var byte: UInt8 = 0
            let count = read(readEnd, &byte, 1)
            if count == 1, let request = requests.first(where: { $0.0 == Int32(byte) })?.1 {
                deliver(request)
            } else if count == 0 || (count < 0 && errno != EINTR) {
                return
            }
        }
    }
}

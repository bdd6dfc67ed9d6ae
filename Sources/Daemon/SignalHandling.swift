import Glibc
import Threads

/// What a signal asks of the daemon.
public enum SignalRequest: Sendable, Equatable {
    /// SIGTERM or SIGINT: stop cleanly.
    case stop(signal: Int32)
    /// SIGHUP: read the config and the accounts again.
    case reload
}

/// The write end of the pipe the signal handler writes to; -1 while none is handled. Set
/// before the handler is installed, so the handler never reads it half-initialised.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// SIGTERM, SIGINT and SIGHUP, delivered as `SignalRequest`s. An asynchronous signal handler
/// may do next to nothing safely, so the handler only writes the signal's number to a pipe;
/// a thread of its own, asleep in `read` until then, turns it into a request. Handling lasts as
/// long as this value is kept; after it the signals are ignored.
public struct SignalHandlers: ~Copyable {
    private static let requests: [(Int32, SignalRequest)] = [
        (SIGTERM, .stop(signal: SIGTERM)), (SIGINT, .stop(signal: SIGINT)), (SIGHUP, .reload),
    ]

    public init(_ deliver: @escaping @Sendable (SignalRequest) -> Void) {
        var ends: [Int32] = [-1, -1]
        // Without a pipe or a thread the signals keep their default action: they still stop
        // the daemon, only less cleanly.
        guard pipe(&ends) == 0 else { return }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        // A handler must never block: a pipe full of unread signals drops the newest.
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
        let readEnd = ends[0]
        guard startDetachedThread({ Self.serve(readEnd, deliver) }) else {
            close(ends[0])
            close(ends[1])
            return
        }
        signalPipeWriteEnd = ends[1]
        for (number, _) in Self.requests {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                let savedErrno = errno
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipeWriteEnd, &byte, 1)
                errno = savedErrno
            }
            // Interrupted system calls elsewhere in the daemon carry on rather than fail.
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
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

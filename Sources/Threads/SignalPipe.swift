import Glibc

/// The write end the signal handler writes to; -1 while none is handled. Set before any
/// handler is installed, so a handler never reads it half-initialised.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// Signals as bytes on a pipe. An asynchronous signal handler may do next to nothing safely,
/// so the handler only writes the signal's number to the pipe, and whoever reads the pipe (a
/// thread of its own, asleep until then) acts on it. A process has one such handler: `handle`
/// points every signal it names at this pipe.
public struct SignalPipe: Sendable {
    public let readEnd: Int32
    private let writeEnd: Int32

    /// A new pipe, both ends close-on-exec; nil when none can be made.
    public init?() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        // A handler must never block: a pipe full of unread signals drops the newest.
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    /// Each of `signals` from now on writes its number to this pipe.
    public func handle(_ signals: [Int32]) {
        signalPipeWriteEnd = writeEnd
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                let savedErrno = errno
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipeWriteEnd, &byte, 1)
                errno = savedErrno
            }
            // Interrupted system calls elsewhere carry on rather than fail.
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
    }

    /// Closes both ends; call it only once no signal is handled through it any more.
    public func close() {
        if signalPipeWriteEnd == writeEnd { signalPipeWriteEnd = -1 }
        _ = Glibc.close(readEnd)
        _ = Glibc.close(writeEnd)
    }
}

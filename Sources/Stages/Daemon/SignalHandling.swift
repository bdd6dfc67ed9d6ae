import Glibc
import MainLoop

/// What a signal asks of the daemon.
public enum SignalRequest: Sendable, Equatable {
    /// SIGTERM or SIGINT: stop cleanly.
    case stop(signal: Int32)
    /// SIGHUP: read the config and the accounts again.
    case reload

    /// The signals the daemon takes: gbnotifyd blocks them from its start (`LoopMain`), so that
    /// they arrive only through `requests()`.
    public static let signals: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    init?(signal number: Int32) {
        switch number {
        case SIGTERM, SIGINT: self = .stop(signal: number)
        case SIGHUP: self = .reload
        default: return nil
        }
    }

    /// Each request from now on, read off the main loop (a signalfd).
    static func requests() throws(SignalWatchError) -> AsyncCompactMapSequence<AsyncStream<Int32>, SignalRequest> {
        try SignalWatch.signals(signals).compactMap { SignalRequest(signal: $0) }
    }
}

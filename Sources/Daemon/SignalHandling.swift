import Dispatch
import Glibc

/// What a signal asks of the daemon.
public enum SignalRequest: Sendable, Equatable {
    /// SIGTERM or SIGINT: stop cleanly.
    case stop(signal: Int32)
    /// SIGHUP: read the config and the accounts again.
    case reload
}

/// SIGTERM, SIGINT and SIGHUP, delivered as `SignalRequest`s through Dispatch signal sources,
/// which run ordinary code on a queue: an asynchronous signal handler could do next to nothing
/// safely. Handling lasts as long as this value is kept.
public struct SignalHandlers: ~Copyable {
    private let sources: [any DispatchSourceSignal]

    public init(_ deliver: @escaping @Sendable (SignalRequest) -> Void) {
        let queue = DispatchQueue(label: "org.gitbay.gbnotifyd.signals")
        let requests: [(Int32, SignalRequest)] = [
            (SIGTERM, .stop(signal: SIGTERM)), (SIGINT, .stop(signal: SIGINT)), (SIGHUP, .reload),
        ]
        sources = requests.map { number, request in
            // The default action (terminate) must not run first: the source then sees the signal.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { deliver(request) }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources {
            source.cancel()
        }
    }
}

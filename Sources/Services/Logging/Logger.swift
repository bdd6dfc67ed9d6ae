import PushCore
import Synchronization
import SystemCalls

/// The daemon's log: one line per event on standard error, each starting with journald's
/// priority prefix (`<3>` error ... `<7>` debug), which the journal turns into the priority and
/// a terminal shows as is.
///
/// Nothing here can tell a token from other text, so the rule is upstream: no message is ever
/// built from a token (tokens print as "redacted", and no error of the HTTP or keyring layers
/// carries one). Every message is made one line, and a bounded one, so server text can neither
/// forge log lines nor flood the journal.
public final class Logger: Sendable {
    public typealias Sink = @Sendable (String) -> Void

    private let sink: Sink
    /// `--verbose`: debug lines whatever the config says.
    private let verbose: Bool
    /// The priority of the least important level logged.
    private let threshold: Atomic<Int>

    /// - Parameter sink: receives each finished line, prefix included, without the newline.
    public init(level: Config.LogLevel, verbose: Bool = false, sink: @escaping Sink = Logger.standardError) {
        self.sink = sink
        self.verbose = verbose
        threshold = Atomic(verbose ? Config.LogLevel.debug.priority : level.priority)
    }

    /// The config's `log-level`, applied at start and on each reload.
    public func setLevel(_ level: Config.LogLevel) {
        threshold.store(verbose ? Config.LogLevel.debug.priority : level.priority, ordering: .relaxed)
    }

    public func error(_ message: @autoclosure () -> String) { log(.error, message) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message) }
    public func notice(_ message: @autoclosure () -> String) { log(.notice, message) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message) }
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message) }

    /// Writes the line that says what `event` says (`DaemonEvent.logLine`), then tells `events`
    /// of it: the two say the same because one is written from the other.
    public func report(_ event: DaemonEvent, to events: DaemonEvents) {
        if let (level, text) = event.logLine { log(level) { text } }
        events.tell(event)
    }

    /// The longest message, in Unicode scalars; longer ones are cut and end in "…".
    public static let maximumMessageLength = 2000

    private func log(_ level: Config.LogLevel, _ message: () -> String) {
        guard level.priority <= threshold.load(ordering: .relaxed) else { return }
        var line = String.UnicodeScalarView()
        for (index, scalar) in message().displaySafe.unicodeScalars.enumerated() {
            guard index < Self.maximumMessageLength else {
                line.append("…")
                break
            }
            line.append(scalar)
        }
        sink("<\(level.priority)>\(String(line))")
    }

    /// Writes each line whole on file descriptor 2, in one write(2) unless the journal's
    /// socket or a pipe takes less, so lines from several threads do not interleave (stdio's
    /// `stderr` is a global that strict concurrency rejects anyway). A log that cannot be
    /// written has nowhere to say so.
    public static let standardError: Sink = { line in
        try? FileDescriptor.standardError.writeAll((line + "\n").utf8)
    }
}

import FoundationEssentials
import Glibc
import Logging
import PushCore
import Synchronization
import SystemCalls

/// `--events-fd N`: every `DaemonEvent` as one line of JSON on descriptor N, for a test or a
/// script that follows what the daemon does without reading the log's wording.
///
/// Written as told, blocking, like the log on standard error: a reader that stops reading a pipe
/// stops the daemon, as it would by not reading the log. A write that fails (the reader closed
/// its end) ends the lines, said once in the log; the daemon goes on. Given standard error (2),
/// the lines come in order among the log's, each after the log line that says the same.
enum EventLines {
    /// A descriptor that is not open is refused, so that a mistyped number is an error at
    /// start, not lines written nowhere.
    static func events(writingTo descriptor: Int32, logger: Logger) throws(EventLinesError) -> DaemonEvents {
        let flags = fcntl(descriptor, F_GETFD)
        guard flags >= 0 else { throw EventLinesError(descriptor: descriptor, reason: String(cString: strerror(errno))) }
        // Nothing the daemon starts (a browser) inherits it, unless it is a standard stream
        // (standard error, interleaved with the log), which children share as they do anyway.
        if descriptor > 2 { _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
        let open = Mutex(true)
        return DaemonEvents { event in
            open.withLock { open in
                guard open else { return }
                var line = (try? JSONEncoder().encode(event)) ?? Data()
                line.append(UInt8(ascii: "\n"))
                do {
                    try FileDescriptor(rawValue: descriptor).writeAll(line)
                } catch {
                    open = false
                    logger.warning("--events-fd \(descriptor): \(error); no more event lines")
                }
            }
        }
    }
}

public struct EventLinesError: Error, CustomStringConvertible {
    let descriptor: Int32
    let reason: String

    public var description: String { "--events-fd \(descriptor): \(reason)" }
}

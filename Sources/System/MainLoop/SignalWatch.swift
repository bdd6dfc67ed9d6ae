internal import CGlibc
import Glibc

/// Signals as a source on the main loop: read from a signalfd, so no handler runs at some
/// arbitrary point of some thread and no thread waits for them. That needs them blocked in every
/// thread, which `LoopMain.run(blocking:)` (or `block` before any thread exists) does.
public enum SignalWatch {
    /// Blocks `signals` in the calling thread, and so in every thread it starts from now on.
    public static func block(_ signals: [Int32]) {
        guard !signals.isEmpty else { return }
        var mask = sigset_t()
        sigemptyset(&mask)
        for number in signals { sigaddset(&mask, number) }
        pthread_sigmask(SIG_BLOCK, &mask, nil)
    }

    /// Each of `signals` from now on, by number, until the stream is dropped. Throws when the
    /// system gives no descriptor for them.
    public static func signals(_ signals: [Int32]) throws(SignalWatchError) -> AsyncStream<Int32> {
        var mask = sigset_t()
        sigemptyset(&mask)
        for number in signals { sigaddset(&mask, number) }
        let descriptor = gbn_signal_fd(&mask)
        guard descriptor >= 0 else { throw SignalWatchError(errno: errno) }
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let watch = Watch(descriptor)
        MainLoop.shared.submit {
            watch.source = LoopSource.watch(descriptor, for: .readable) { _ in
                while case let number = gbn_signal_fd_read(descriptor), number > 0 { continuation.yield(number) }
            }
        }
        continuation.onTermination = { _ in MainLoop.shared.submit { watch.end() } }
        return stream
    }

    /// The descriptor and its source, touched on the loop's thread only.
    private final class Watch: @unchecked Sendable {
        let descriptor: Int32
        var source: LoopSource?

        init(_ descriptor: Int32) {
            self.descriptor = descriptor
        }

        func end() {
            source?.cancel()
            source = nil
            close(descriptor)
        }
    }
}

public struct SignalWatchError: Error, CustomStringConvertible {
    public let errno: Int32
    public var description: String { "cannot watch signals: \(String(cString: strerror(errno)))" }
}

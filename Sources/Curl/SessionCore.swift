import CCurl
import Synchronization
import Threads

/// What a session shares with its loop thread: the libcurl multi handle and the inbox of
/// submitted requests.
///
/// `@unchecked Sendable`: the multi handle is driven by the loop thread alone; the only call
/// made on it from other threads is `curl_multi_wakeup`, which libcurl documents as callable
/// from any thread. The inbox is behind a mutex.
final class SessionCore: @unchecked Sendable {
    struct Inbox {
        var submissions: [Submission] = []
        var isClosed = false
    }

    let multi: UnsafeMutableRawPointer
    private let inbox = Mutex(Inbox())

    /// A multi handle whose connection cache keeps up to `maxIdleConnections` connections, and
    /// the loop thread that drives it; nil if libcurl or the system could not provide them.
    static func start(maxIdleConnections: Int) -> SessionCore? {
        guard libcurlGlobalInit == CURLE_OK, let multi = curl_multi_init() else { return nil }
        _ = gbn_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(1, maxIdleConnections))
        let core = SessionCore(multi: multi)
        guard startDetachedThread({ TransferLoop(core: core).run() }) else { return nil }
        return core
    }

    private init(multi: UnsafeMutableRawPointer) {
        self.multi = multi
    }

    /// Runs once the session and its loop have both let go, so nothing uses the handle any more.
    deinit {
        curl_multi_cleanup(multi)
    }

    func submit(_ submission: Submission) {
        inbox.withLock { $0.submissions.append(submission) }
        wake()
    }

    /// Interrupts the loop's wait so it looks at the inbox and at cancellations.
    func wake() {
        _ = curl_multi_wakeup(multi)
    }

    /// Asks the loop thread to finish and exit.
    func close() {
        inbox.withLock { $0.isClosed = true }
        wake()
    }

    /// Empties the inbox, for the loop thread.
    func takeInbox() -> Inbox {
        inbox.withLock { inbox in
            defer { inbox.submissions.removeAll() }
            return inbox
        }
    }
}

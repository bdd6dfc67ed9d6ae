import CCurl
import Glibc

/// The loop thread: runs every transfer of one session on one libcurl multi handle.
///
/// One thread serves any number of concurrent transfers (a hundred accounts polling at once cost
/// sockets, not threads), a slow or stalled server delays nobody else, and the multi handle's
/// connection cache lets consecutive requests to one server reuse the TCP and TLS connection.
/// With nothing to do it sleeps in `curl_multi_poll` until a submission wakes it.
final class TransferLoop {
    /// Finished easy handles kept for the next transfers; more concurrent transfers than this
    /// create handles that are freed when they end.
    private static let maxIdleHandles = 8

    private let core: SessionCore
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]
    private var idleHandles: [UnsafeMutableRawPointer] = []

    init(core: SessionCore) {
        self.core = core
    }

    func run() {
        // This thread takes no signals. With CURLOPT_NOSIGNAL, a write to a socket the server has
        // closed can raise SIGPIPE (libcurl leaves that to the application); blocked, it stays
        // pending on this thread instead of ending the process. And signals meant for the
        // program reach the threads that wait for them.
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        pthread_sigmask(SIG_BLOCK, &allSignals, nil)

        while true {
            let inbox = core.takeInbox()
            guard !inbox.isClosed else { break }
            for submission in inbox.submissions { start(submission) }
            for transfer in active.values where transfer.submission.cancellation.isRaised {
                end(transfer, with: .failure(.cancelled))
            }
            // A stream's reader made room: libcurl hands over the chunk it kept, then reads on.
            for transfer in active.values where transfer.channel?.takeResumeRequest() == true {
                _ = curl_easy_pause(transfer.easy, gbn_curlpause_cont)
            }
            var running: Int32 = 0
            _ = curl_multi_perform(core.multi, &running)
            endFinishedTransfers()
            // Waits for socket activity, libcurl's next timeout or a wake-up, whichever is first.
            _ = curl_multi_poll(core.multi, nil, 0, Int32.max, nil)
        }
        shutDown()
    }

    private func start(_ submission: Submission) {
        guard !submission.cancellation.isRaised else { return submission.complete(.failure(.cancelled)) }
        guard let easy = idleHandles.popLast() ?? curl_easy_init() else {
            return submission.complete(.failure(.other(
                code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "could not create a libcurl handle")))
        }
        let transfer = Transfer(easy: easy, submission: submission)
        do throws(CurlError) {
            try transfer.configure()
            let added = curl_multi_add_handle(core.multi, easy)
            guard added == CURLM_OK else {
                throw .other(code: Int(added.rawValue), message: String(cString: curl_multi_strerror(added)))
            }
            active[easy] = transfer
        } catch {
            recycle(easy)
            submission.complete(.failure(error))
        }
    }

    private func endFinishedTransfers() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(core.multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                  let transfer = active[easy]
            else { continue }
            end(transfer, with: transfer.outcome(of: message.pointee.data.result))
        }
    }

    /// Takes the handle out before resuming the waiting task, so the handle is free (and the
    /// transfer's memory unreferenced) by the time the caller can send the next request.
    private func end(_ transfer: Transfer, with result: Result<HTTPResponse, CurlError>) {
        active[transfer.easy] = nil
        _ = curl_multi_remove_handle(core.multi, transfer.easy)
        recycle(transfer.easy)
        transfer.submission.complete(result)
    }

    /// Resets the handle (dropping its pointers into the ended transfer) and keeps or frees it.
    /// The connection it used stays in the multi handle's cache either way.
    private func recycle(_ easy: UnsafeMutableRawPointer) {
        curl_easy_reset(easy)
        if idleHandles.count < Self.maxIdleHandles {
            idleHandles.append(easy)
        } else {
            curl_easy_cleanup(easy)
        }
    }

    /// The session is gone, so no task waits any more; anything left is cancelled and freed.
    private func shutDown() {
        for transfer in active.values { end(transfer, with: .failure(.cancelled)) }
        for submission in core.takeInbox().submissions { submission.complete(.failure(.cancelled)) }
        for easy in idleHandles { curl_easy_cleanup(easy) }
        idleHandles.removeAll()
    }
}

import CCurl
import MainLoop

/// Every transfer of one session on one libcurl multi handle, driven by the main loop through
/// libcurl's multi socket interface: libcurl names the sockets to watch and the moment it wants
/// to be called back, and each becomes a loop source. Used on the loop's thread only.
///
/// One handle serves any number of concurrent transfers (a hundred accounts polling at once cost
/// sockets, not threads), a slow or stalled server delays nobody else, and the multi handle's
/// connection cache lets consecutive requests to one server reuse the TCP and TLS connection.
/// With nothing to do, nothing of it is in the loop's poll but the idle connections' sockets.
final class TransferLoop {
    /// Finished easy handles kept for the next transfers; more concurrent transfers than this
    /// create handles that are freed when they end.
    private static let maxIdleHandles = 8

    private let multi: UnsafeMutableRawPointer
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]
    private var idleHandles: [UnsafeMutableRawPointer] = []
    /// The sockets libcurl asked to have watched, each with its source.
    private var sockets: [curl_socket_t: LoopSource] = [:]
    /// When libcurl wants to be called back with no socket ready (a timeout, or "at once").
    private var timer: LoopSource?
    private var isClosed = false
    /// Handles were freed since the last time no transfer ran (`recycle`).
    private var freedHandles = false

    init?(maxIdleConnections: Int) {
        guard let multi = curl_multi_init() else { return nil }
        self.multi = multi
        _ = gbn_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(1, maxIdleConnections))
        // Unretained: the multi handle is freed in `shutDown`, before this object can go.
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = gbn_curl_multi_setopt_socket_callback(multi, { _, socket, what, context, _ in
            Unmanaged<TransferLoop>.fromOpaque(context!).takeUnretainedValue().watch(socket, what)
            return 0
        }, context)
        _ = gbn_curl_multi_setopt_timer_callback(multi, { _, milliseconds, context in
            Unmanaged<TransferLoop>.fromOpaque(context!).takeUnretainedValue().setTimer(milliseconds)
            return 0
        }, context)
    }

    func start(_ submission: Submission) {
        guard !isClosed, !submission.cancellation.isRaised else { return submission.complete(.failure(.cancelled)) }
        guard let easy = idleHandles.popLast() ?? curl_easy_init() else {
            return submission.complete(.failure(.other(
                code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "could not create a libcurl handle")))
        }
        let transfer = Transfer(easy: easy, submission: submission)
        do throws(CurlError) {
            try transfer.configure()
            // libcurl asks for a timer at once, which starts the transfer from the loop.
            let added = curl_multi_add_handle(multi, easy)
            guard added == CURLM_OK else {
                throw .other(code: Int(added.rawValue), message: String(cString: curl_multi_strerror(added)))
            }
            active[easy] = transfer
        } catch {
            recycle(easy)
            submission.complete(.failure(error))
        }
    }

    /// Ends the transfers whose task was cancelled, and resumes the streams whose reader made
    /// room (libcurl hands over the chunk it kept, then reads on).
    func serviceRequests() {
        for transfer in active.values where transfer.submission.cancellation.isRaised {
            end(transfer, with: .failure(.cancelled))
        }
        for transfer in active.values where transfer.channel?.takeResumeRequest() == true {
            _ = curl_easy_pause(transfer.easy, gbn_curlpause_cont)
        }
    }

    /// The session is gone, so no task waits any more; anything left is cancelled and freed.
    func shutDown() {
        guard !isClosed else { return }
        isClosed = true
        for transfer in active.values { end(transfer, with: .failure(.cancelled)) }
        for easy in idleHandles { curl_easy_cleanup(easy) }
        idleHandles.removeAll()
        curl_multi_cleanup(multi)
        sockets.values.forEach { $0.cancel() }
        sockets = [:]
        timer?.cancel()
        timer = nil
    }

    // MARK: - libcurl's callbacks

    /// CURLMOPT_SOCKETFUNCTION: watch `socket` for what libcurl asks, or no longer.
    private func watch(_ socket: curl_socket_t, _ what: Int32) {
        sockets.removeValue(forKey: socket)?.cancel()
        guard what != gbn_curl_poll_remove else { return }
        var readiness: Readiness = []
        if what & gbn_curl_poll_in != 0 { readiness.insert(.readable) }
        if what & gbn_curl_poll_out != 0 { readiness.insert(.writable) }
        sockets[socket] = LoopSource.watch(socket, for: readiness) { [unowned self] ready in
            var events: Int32 = 0
            if ready.contains(.readable) { events |= gbn_curl_cselect_in }
            if ready.contains(.writable) { events |= gbn_curl_cselect_out }
            if !ready.isDisjoint(with: [.error, .hangUp]) { events |= gbn_curl_cselect_err }
            act(on: socket, events)
        }
    }

    /// CURLMOPT_TIMERFUNCTION: call libcurl back after `milliseconds` (-1: never). Never from
    /// inside the callback itself, which libcurl does not allow.
    private func setTimer(_ milliseconds: Int) {
        timer?.cancel()
        timer = nil
        guard milliseconds >= 0 else { return }
        timer = LoopSource.timeout(milliseconds: UInt32(min(milliseconds, Int(UInt32.max)))) { [unowned self] in
            timer = nil
            act(on: gbn_curl_socket_timeout, 0)
            return false
        }
    }

    private func act(on socket: curl_socket_t, _ events: Int32) {
        guard !isClosed else { return }
        var running: Int32 = 0
        _ = curl_multi_socket_action(multi, socket, events, &running)
        endFinishedTransfers()
    }

    // MARK: - Ending transfers

    private func endFinishedTransfers() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
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
        _ = curl_multi_remove_handle(multi, transfer.easy)
        recycle(transfer.easy)
        // A burst of transfers (every account polled at once, after a resume, a reload or the
        // network's return) freed handles, buffers and TLS state all over the heap, which glibc
        // keeps as the process's own: given back once the burst is over.
        if active.isEmpty && freedHandles {
            freedHandles = false
            MainLoop.shared.trimHeapSoon()
        }
        transfer.submission.complete(result)
    }

    /// Resets the handle (dropping its pointers into the ended transfer) and keeps or frees it.
    /// The connection it used stays in the multi handle's cache either way.
    private func recycle(_ easy: UnsafeMutableRawPointer) {
        curl_easy_reset(easy)
        if idleHandles.count < Self.maxIdleHandles && !isClosed {
            idleHandles.append(easy)
        } else {
            curl_easy_cleanup(easy)
            freedHandles = true
        }
    }
}

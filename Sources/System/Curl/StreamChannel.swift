import Synchronization

/// The bounded hand-over between the main loop, which receives a stream's bytes, and the one
/// task that reads them.
///
/// Back-pressure rather than a growing buffer: once `limit` bytes wait unread, the loop
/// pauses the transfer (libcurl keeps the chunk it could not hand over and stops reading the
/// socket, so TCP slows the server down); when the reader has taken enough, it asks the loop to
/// go on. At most `limit` plus one libcurl chunk (16 KiB) is ever buffered.
final class StreamChannel: Sendable {
    struct Head: Sendable {
        let status: Int
        let headers: [String: String]
    }

    private struct State {
        var headWaiter: CheckedContinuation<Result<Head, CurlError>, Never>?
        var chunks: [[UInt8]] = []
        var bufferedBytes = 0
        var chunkWaiter: CheckedContinuation<Result<[UInt8]?, CurlError>, Never>?
        /// How the transfer ended, once it has.
        var end: Result<Void, CurlError>?
        var isPaused = false
        var resumeRequested = false
    }

    let limit: Int
    let cancellation = CancellationFlag()
    /// Shared by the loop's thread, where libcurl's callbacks hand over the head and the
    /// chunks, and the reading task's thread (the same one in gbnotifyd; a pool thread for a
    /// reader that is not isolated to the loop, as in the tests).
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = limit
    }

    // MARK: - The reading task

    /// Set before the submission is handed to the loop, so the head cannot come first.
    func awaitHead(_ continuation: CheckedContinuation<Result<Head, CurlError>, Never>) {
        state.withLock { $0.headWaiter = continuation }
    }

    /// The next chunk, nil at a clean end. `wake` is called when the loop has to resume
    /// a paused transfer. Only one task reads at a time.
    func next(wake: () -> Void) async -> Result<[UInt8]?, CurlError> {
        await withCheckedContinuation { continuation in
            let (ready, resume) = state.withLock { state -> (Result<[UInt8]?, CurlError>?, Bool) in
                if !state.chunks.isEmpty {
                    let chunk = state.chunks.removeFirst()
                    state.bufferedBytes -= chunk.count
                    // Half empty before reading on, so a paused transfer is not woken per chunk.
                    if state.isPaused && state.bufferedBytes <= limit / 2 {
                        state.isPaused = false
                        state.resumeRequested = true
                        return (.success(chunk), true)
                    }
                    return (.success(chunk), false)
                }
                if let end = state.end { return (end.map { nil }, false) }
                state.chunkWaiter = continuation
                return (nil, false)
            }
            if resume { wake() }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    // MARK: - The loop

    func deliverHead(_ head: Head) {
        state.withLock { $0.headWaiter.take() }?.resume(returning: .success(head))
    }

    /// Takes a chunk; false when the buffer is full, and the transfer must pause.
    func offer(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let waiter = state.withLock { state -> CheckedContinuation<Result<[UInt8]?, CurlError>, Never>?? in
            if let waiter = state.chunkWaiter.take() { return waiter }
            guard state.bufferedBytes < limit else {
                state.isPaused = true
                return nil
            }
            state.chunks.append(Array(bytes))
            state.bufferedBytes += bytes.count
            return .some(nil)
        }
        switch waiter {
        case nil: return false
        case .some(nil): return true
        case .some(let continuation?):
            continuation.resume(returning: .success(Array(bytes)))
            return true
        }
    }

    /// Whether the reader has made room since the transfer paused; answers true once per pause.
    func takeResumeRequest() -> Bool {
        state.withLock { state in
            defer { state.resumeRequested = false }
            return state.resumeRequested
        }
    }

    func finish(_ end: Result<Void, CurlError>) {
        let (headWaiter, chunkWaiter) = state.withLock { state in
            state.end = end
            return (state.headWaiter.take(), state.chunkWaiter.take())
        }
        // A transfer that ends before its head fails the `stream` call itself; one that ends
        // cleanly without a head (impossible over HTTP) fails too rather than invent one.
        headWaiter?.resume(returning: .failure(end.failure ?? .other(code: 0, message: "the server sent no response")))
        chunkWaiter?.resume(returning: end.map { nil })
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

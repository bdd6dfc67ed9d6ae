import CCurl

/// Runs HTTP requests with libcurl, any number at once, from any task.
///
/// Every transfer of a session runs on the main loop (see `TransferLoop`), so `perform` never
/// blocks a thread: the awaiting task is suspended on a continuation until the loop has the
/// response. Connections are kept and reused across requests. Use `shared` unless a separate
/// connection cache is wanted.
public final class HTTPSession: Sendable {
    public static let shared = HTTPSession()

    /// Nil when libcurl could not be initialised; every request then fails with that.
    let core: SessionCore?

    /// - Parameter maxIdleConnections: connections kept open for reuse; the oldest idle one is
    ///   closed to make room.
    public init(maxIdleConnections: Int = 16) {
        core = SessionCore.start(maxIdleConnections: maxIdleConnections)
    }

    deinit {
        core?.close()
    }

    /// Sends `request` and returns the response, whatever its status (redirects are never
    /// followed). Cancelling the calling task aborts the transfer with `CurlError.cancelled`.
    public func perform(
        _ request: HTTPRequest, options: TransferOptions = TransferOptions()
    ) async throws(CurlError) -> HTTPResponse {
        try request.validate()
        guard let core else {
            throw .other(code: Int(CURLE_FAILED_INIT.rawValue), message: "libcurl could not be initialised")
        }
        let cancellation = CancellationFlag()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                core.submit(Submission(
                    request: request, options: options, cancellation: cancellation, receiver: .response(continuation)))
            }
        } onCancel: {
            cancellation.raise()
            core.wake()
        }
        return try result.get()
    }
}

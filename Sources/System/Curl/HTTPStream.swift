import CCurl

/// Limits and trust settings for a streamed response (`HTTPSession.stream`).
public struct StreamOptions: Sendable, Equatable {
    /// How long the TCP connect and the TLS handshake may take.
    public var connectTimeout: Duration
    /// A PEM file of CA certificates to trust instead of the system's.
    public var caFile: String?
    /// The most body bytes held for a reader that has not taken them yet; past it the transfer
    /// pauses until the reader catches up (back-pressure, never an unbounded buffer).
    public var bufferLimit: Int
    /// TCP keepalive (`TransferOptions.tcpKeepalive`); nil for none.
    public var tcpKeepalive: Duration?

    public init(
        connectTimeout: Duration = .seconds(10), caFile: String? = nil, bufferLimit: Int = 256 * 1024,
        tcpKeepalive: Duration? = nil
    ) {
        self.connectTimeout = connectTimeout
        self.caFile = caFile
        self.bufferLimit = bufferLimit
        self.tcpKeepalive = tcpKeepalive
    }
}

/// A response whose body is read as it arrives: the status and headers first, then the body as
/// chunks of bytes, for as long as the server keeps the connection open.
///
/// Read it once. The transfer is aborted when the reading task is cancelled, and when the stream
/// and its iterator are dropped, so breaking out of `for try await` closes the connection. A
/// stream has no overall or stall timeout: how long silence may last is the reader's call.
/// A clean end of the body ends the sequence; a broken connection throws.
public struct HTTPStream: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    public typealias Failure = CurlError

    public let status: Int
    /// Names lowercased; when a header repeats, the last value wins.
    public let headers: [String: String]
    private let lease: Lease

    init(head: StreamChannel.Head, lease: Lease) {
        status = head.status
        headers = head.headers
        self.lease = lease
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(lease: lease)
    }

    public struct Iterator: AsyncIteratorProtocol {
        public typealias Element = [UInt8]
        public typealias Failure = CurlError

        private let lease: Lease

        init(lease: Lease) {
            self.lease = lease
        }

        public mutating func next() async throws(CurlError) -> [UInt8]? {
            try await lease.next()
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(CurlError) -> [UInt8]? {
            try await lease.next()
        }
    }

    /// Holds the transfer open while a stream or iterator exists; the last one to go aborts it.
    final class Lease: Sendable {
        private let channel: StreamChannel
        private let core: SessionCore

        init(channel: StreamChannel, core: SessionCore) {
            self.channel = channel
            self.core = core
        }

        deinit {
            abort()
        }

        func next() async throws(CurlError) -> [UInt8]? {
            let result = await withTaskCancellationHandler {
                await channel.next { core.wake() }
            } onCancel: {
                abort()
            }
            return try result.get()
        }

        private func abort() {
            channel.cancellation.raise()
            core.wake()
        }
    }
}

extension HTTPSession {
    /// Sends a GET `request` and returns once the response's status and headers are in, whatever
    /// the status (redirects are never followed); the body follows through the returned stream.
    /// TLS is verified as for `perform`. Cancelling the calling task before the head arrives
    /// aborts the transfer with `CurlError.cancelled`.
    public func stream(_ request: HTTPRequest, options: StreamOptions = StreamOptions()) async throws(CurlError) -> HTTPStream {
        guard request.method == .get else { throw .invalidRequest("only GET requests can be streamed") }
        try request.validate()
        guard let core else {
            throw .other(code: Int(CURLE_FAILED_INIT.rawValue), message: "libcurl could not be initialised")
        }
        let channel = StreamChannel(limit: max(1, options.bufferLimit))
        // From here on, the lease's end aborts the transfer: when the head fails, or when the
        // caller is cancelled while waiting for it.
        let lease = HTTPStream.Lease(channel: channel, core: core)
        let transferOptions = TransferOptions(
            connectTimeout: options.connectTimeout, caFile: options.caFile, acceptGzip: false, tcpKeepalive: options.tcpKeepalive)
        let head = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                channel.awaitHead(continuation)
                core.submit(Submission(
                    request: request, options: transferOptions, cancellation: channel.cancellation,
                    receiver: .stream(channel)))
            }
        } onCancel: {
            channel.cancellation.raise()
            core.wake()
        }
        return HTTPStream(head: try head.get(), lease: lease)
    }
}

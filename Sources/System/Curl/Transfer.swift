import CCurl

/// One request in flight on an easy handle: sets the handle up, owns the memory libcurl points
/// at while it runs, and collects what arrives (or, for a stream, hands it on as it arrives).
/// Used on the main loop's thread only.
///
/// The owner must take the handle out of the multi handle and reset it before dropping the
/// transfer: the handle points at the error buffer and header list freed here.
final class Transfer {
    let easy: UnsafeMutableRawPointer
    let submission: Submission
    /// Set for a stream, whose body goes there instead of into `body`.
    let channel: StreamChannel?
    private var headDelivered = false
    private var headers = ResponseHeaders()
    private var body: [UInt8] = []
    /// Set when a callback refused data, which libcurl then reports only as a write error.
    private var overflow: CurlError?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    private var headerList: UnsafeMutablePointer<curl_slist>?

    init(easy: UnsafeMutableRawPointer, submission: Submission) {
        self.easy = easy
        self.submission = submission
        if case .stream(let channel) = submission.receiver { self.channel = channel } else { channel = nil }
        errorBuffer.initialize(to: 0)
    }

    deinit {
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    func configure() throws(CurlError) {
        let request = submission.request
        let options = submission.options
        try set(CURLOPT_ERRORBUFFER, pointer: errorBuffer)
        try set(CURLOPT_URL, request.url)
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        // Never follow: a bearer token must not travel to another host. A 3xx is a response.
        try set(CURLOPT_FOLLOWLOCATION, 0)
        try set(CURLOPT_SSL_VERIFYPEER, 1)
        try set(CURLOPT_SSL_VERIFYHOST, 2)
        // libcurl's timeouts are the loop's timers, never signals (SIGALRM for name lookups).
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_VERBOSE, 0)
        // Without CURLOPT_NOPROXY libcurl honours http_proxy, https_proxy and no_proxy from the
        // environment; "*" keeps every proxy out.
        if !request.mayUseProxy { try set(CURLOPT_NOPROXY, "*") }
        // The CAs come from one place, never a file and a directory together: with both, libcurl
        // parses the file into a new store for every connection (the system's bundle: about
        // 0.9 MiB each), and a `caFile` would be trusted beside the system's CAs, not instead.
        // A `caFile` is parsed once per session, its store kept for all connections (24 hours,
        // libcurl's default); the system's hashed directory is read a CA at a time as
        // handshakes need one (`SystemTrust`).
        if let caFile = options.caFile {
            if let problem = CAFileCheck.problem(with: caFile) { throw .unusableCAFile(problem) }
            try set(CURLOPT_CAINFO, caFile)
            try set(CURLOPT_CAPATH, pointer: nil)
        } else if let directory = options.caDirectory {
            try set(CURLOPT_CAINFO, pointer: nil)
            try set(CURLOPT_CAPATH, directory)
        } else {
            try set(CURLOPT_CAPATH, pointer: nil)
        }
        try set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(options.connectTimeout))
        // A stream stays open as long as the server keeps it: its reader judges silence.
        if channel == nil {
            try set(CURLOPT_TIMEOUT_MS, Self.milliseconds(options.overallTimeout))
            try set(CURLOPT_LOW_SPEED_LIMIT, max(1, options.stallBytesPerSecond))
            try set(CURLOPT_LOW_SPEED_TIME, Self.wholeSecondsRoundedUp(options.stallTimeout))
        }
        if options.acceptGzip { try set(CURLOPT_ACCEPT_ENCODING, "gzip") }
        // A transfer that finds a connection to its server still being set up waits to learn
        // whether it multiplexes (HTTP/2) and then goes on it, rather than opening one of its own:
        // a burst of requests to one instance (every account polled at once after a resume)
        // shares one connection from the start. Over HTTP/1.1 the others then open their own.
        // Not for a stream (the relay's, one at a time): with it, a stream to a plain-HTTP relay
        // was never sent (CurlStreamTests' cancellingTheReaderClosesTheConnection, libcurl 7.88).
        if channel == nil { try set(CURLOPT_PIPEWAIT, 1) }
        if options.freshConnection { try set(CURLOPT_FRESH_CONNECT, 1) }
        if let idle = options.tcpKeepalive {
            // libcurl 7.88 has no CURLOPT_TCP_KEEPCNT: the kernel's 9 probes at a ninth of the
            // idle time each make a dead peer's connection fail within twice the idle time.
            let seconds = Self.wholeSecondsRoundedUp(idle)
            try set(CURLOPT_TCP_KEEPALIVE, 1)
            try set(CURLOPT_TCP_KEEPIDLE, seconds)
            try set(CURLOPT_TCP_KEEPINTVL, max(1, (seconds + 8) / 9))
        }

        var headerLines = request.headers.sorted { $0.key < $1.key }.map { name, value in
            // "Name:" alone would tell libcurl to drop the header; "Name;" sends it empty.
            value.isEmpty ? "\(name);" : "\(name): \(value)"
        }
        switch request.method {
        case .get:
            try set(CURLOPT_HTTPGET, 1)
        case .post(let body):
            try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: curl_off_t(body.count))
            // Never a null pointer: with no post fields libcurl would read the body from stdin.
            let bytes = body.isEmpty ? [0] : body
            try check(bytes.withUnsafeBytes {
                gbn_curl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress))
            })
            // No "Expect: 100-continue" round trip before a larger body.
            headerLines.append("Expect:")
        }
        for line in headerLines {
            guard let appended = curl_slist_append(headerList, line) else {
                throw .other(code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "out of memory")
            }
            headerList = appended
        }
        try check(gbn_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList))

        // Unretained: the loop keeps this transfer alive while the handle is in the multi handle,
        // which is the only time libcurl calls back.
        let context = Unmanaged.passUnretained(self).toOpaque()
        try set(CURLOPT_HEADERDATA, pointer: context)
        try check(gbn_curl_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
        })
        try set(CURLOPT_WRITEDATA, pointer: context)
        try check(gbn_curl_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
        })
    }

    /// The response, or why there is none, once libcurl reports the transfer done with `code`.
    func outcome(of code: CURLcode) -> Result<HTTPResponse, CurlError> {
        if let overflow { return .failure(overflow) }
        guard code == CURLE_OK else { return .failure(CurlError(code: code, message: errorMessage(code))) }
        var status = 0
        var newConnections = 0
        _ = gbn_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        _ = gbn_curl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &newConnections)
        return .success(HTTPResponse(
            status: status, headers: headers.fields, body: body, reusedConnection: newConnections == 0))
    }

    private func receiveHeader(_ line: UnsafeRawBufferPointer) -> Bool {
        guard headers.add(line: line) else {
            overflow = .headersTooLarge(limit: ResponseHeaders.maximumBytes)
            return false
        }
        // The blank line ends a block of headers; a stream's head is the first final one.
        if channel != nil, line.allSatisfy({ $0 == 0x0D || $0 == 0x0A }), responseStatus >= 200 {
            deliverHead()
        }
        return true
    }

    /// The bytes taken (all of them), 0 to fail the transfer, or libcurl's pause code.
    private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if let channel {
            deliverHead()
            return channel.offer(bytes) ? bytes.count : gbn_curl_writefunc_pause
        }
        let limit = submission.options.maxBodyBytes
        guard body.count + bytes.count <= limit else {
            overflow = .bodyTooLarge(limit: limit)
            return 0
        }
        body.append(contentsOf: bytes)
        return bytes.count
    }

    private func deliverHead() {
        guard let channel, !headDelivered else { return }
        headDelivered = true
        channel.deliverHead(StreamChannel.Head(status: responseStatus, headers: headers.fields))
    }

    private var responseStatus: Int {
        var status = 0
        _ = gbn_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return status
    }

    private func errorMessage(_ code: CURLcode) -> String {
        let message = errorBuffer.pointee == 0 ? String(cString: curl_easy_strerror(code)) : String(cString: errorBuffer)
        return String(message.reversed().drop(while: \.isWhitespace).reversed())
    }

    // MARK: - Typed setopt

    private func set(_ option: CURLoption, _ value: Int) throws(CurlError) {
        try check(gbn_curl_easy_setopt_long(easy, option, value))
    }

    /// libcurl copies string options, so the C string only has to live for the call.
    private func set(_ option: CURLoption, _ value: String) throws(CurlError) {
        try check(value.withCString { gbn_curl_easy_setopt_string(easy, option, $0) })
    }

    private func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) throws(CurlError) {
        try check(gbn_curl_easy_setopt_pointer(easy, option, pointer))
    }

    private func set(_ option: CURLoption, offset: curl_off_t) throws(CurlError) {
        try check(gbn_curl_easy_setopt_off_t(easy, option, offset))
    }

    private func check(_ code: CURLcode) throws(CurlError) {
        guard code == CURLE_OK else {
            throw .other(code: Int(code.rawValue), message: String(cString: curl_easy_strerror(code)))
        }
    }

    /// At least 1: libcurl reads 0 as "no timeout". At most a year, so that no configured value
    /// can overflow.
    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let whole = Int(min(max(seconds, 0), longestWaitInSeconds))
        return max(1, whole * 1000 + Int(max(attoseconds, 0) / 1_000_000_000_000_000))
    }

    private static func wholeSecondsRoundedUp(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let whole = Int(min(max(seconds, 0), longestWaitInSeconds))
        return max(1, whole + (attoseconds > 0 ? 1 : 0))
    }

    private static let longestWaitInSeconds: Int64 = 365 * 24 * 3600
}

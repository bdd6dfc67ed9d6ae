/// One HTTP request: what to send, not how (see `TransferOptions`).
public struct HTTPRequest: Sendable, Equatable {
    /// The methods gbnotify needs; a body only exists where the method has one.
    public enum Method: Sendable, Equatable {
        case get
        case post(body: [UInt8])
    }

    public var method: Method
    /// An absolute `http` or `https` URL without user name or password.
    public var url: String
    /// Extra request headers, sent in name order. Names and values must not contain line breaks.
    public var headers: [String: String]
    /// Whether the proxy the environment names (`http_proxy`, `https_proxy`, `no_proxy`) may
    /// carry the request. Never for this machine, nor for plain http: a proxy would read the
    /// bearer token in the clear.
    public var mayUseProxy: Bool

    public init(mayUseProxy: Bool, method: Method = .get, url: String, headers: [String: String] = [:]) {
        self.method = method
        self.url = url
        self.headers = headers
        self.mayUseProxy = mayUseProxy
    }
}

/// Limits and trust settings for one transfer.
public struct TransferOptions: Sendable, Equatable {
    /// How long the TCP connect and the TLS handshake may take.
    public var connectTimeout: Duration
    /// A transfer slower than `stallBytesPerSecond` for this long is aborted as stalled.
    /// libcurl counts in whole seconds, so this is rounded up to at least one second.
    public var stallTimeout: Duration
    public var stallBytesPerSecond: Int
    /// The whole transfer, connect included, may take no longer than this.
    public var overallTimeout: Duration
    /// A PEM file of CA certificates to trust instead of the system's.
    public var caFile: String?
    /// Without a `caFile`: the hashed directory the system's CAs are read from, one at a time as
    /// handshakes need them (`SystemTrust`); nil leaves libcurl's bundle.
    public var caDirectory: String?
    /// A larger (decompressed) body aborts the transfer with `CurlError.bodyTooLarge`.
    public var maxBodyBytes: Int
    /// Ask for a gzip-compressed body and inflate it.
    public var acceptGzip: Bool
    /// TCP keepalive probes after this long idle, then every ninth of it, so that the kernel
    /// gives up a connection whose peer vanished (and keeps a NAT's mapping alive); nil for none.
    public var tcpKeepalive: Duration?
    /// A new connection of its own, never one kept from an earlier request. For a write that
    /// is not idempotent (a comment): when a reused connection dies before any answer, libcurl
    /// sends the request again on a fresh one by its own decision ("Connection died, retrying a
    /// fresh connect"), which would be a second post. libcurl does that only for a reused
    /// connection (7.88 has no option to forbid it otherwise; CURLOPT_FORBID_RETRY_ON_REUSE came
    /// in 8.16), so a fresh one is never resent. What it still resends is an HTTP/2 stream the
    /// server refused (REFUSED_STREAM, or beyond a GOAWAY's last stream), which the server
    /// promises it never processed.
    public var freshConnection: Bool

    public init(
        connectTimeout: Duration = .seconds(10),
        stallTimeout: Duration = .seconds(30),
        stallBytesPerSecond: Int = 1,
        overallTimeout: Duration = .seconds(60),
        caFile: String? = nil,
        caDirectory: String? = SystemTrust.directory,
        maxBodyBytes: Int = 1 << 20,
        acceptGzip: Bool = true,
        tcpKeepalive: Duration? = nil,
        freshConnection: Bool = false
    ) {
        self.connectTimeout = connectTimeout
        self.stallTimeout = stallTimeout
        self.stallBytesPerSecond = stallBytesPerSecond
        self.overallTimeout = overallTimeout
        self.caFile = caFile
        self.caDirectory = caDirectory
        self.maxBodyBytes = maxBodyBytes
        self.acceptGzip = acceptGzip
        self.tcpKeepalive = tcpKeepalive
        self.freshConnection = freshConnection
    }
}

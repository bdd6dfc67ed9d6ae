import CCurl

/// Why a transfer produced no response, one case per thing a user could act on.
///
/// The associated text is libcurl's own message (from `CURLOPT_ERRORBUFFER`): it names hosts and
/// ports but never request headers, so no error here carries a token.
public enum CurlError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request was refused before anything was sent; the reason never quotes the request.
    case invalidRequest(String)
    case couldNotResolveHost(String)
    case couldNotConnect(String)
    /// The connect timeout, the stall limit or the overall timeout was hit.
    case timedOut(String)
    /// The TLS handshake failed, usually because the certificate could not be verified.
    case tlsFailure(String)
    case bodyTooLarge(limit: Int)
    case headersTooLarge(limit: Int)
    /// The body was labelled gzip but did not inflate.
    case badContentEncoding(String)
    /// The CA file to trust is a FIFO, a device or a socket (`CAFileCheck`); nothing was sent.
    case unusableCAFile(String)
    /// The waiting task was cancelled; the transfer was aborted.
    case cancelled
    case other(code: Int, message: String)

    public var description: String {
        switch self {
        case .invalidRequest(let reason):
            "invalid request: \(reason)"
        case .couldNotResolveHost(let detail):
            "could not resolve the server's host name (\(detail))"
        case .couldNotConnect(let detail):
            "could not connect to the server (\(detail))"
        case .timedOut(let detail):
            "the server did not answer in time (\(detail))"
        case .tlsFailure(let detail):
            "TLS failure: the server's certificate could not be verified or the handshake failed (\(detail))"
        case .bodyTooLarge(let limit):
            "the server's answer is larger than \(limit) bytes; the transfer was aborted"
        case .headersTooLarge(let limit):
            "the server's response headers are larger than \(limit) bytes; the transfer was aborted"
        case .badContentEncoding(let detail):
            "the server's answer is labelled gzip but does not inflate (\(detail))"
        case .unusableCAFile(let detail):
            "the ca-file cannot be used: \(detail)"
        case .cancelled:
            "the transfer was cancelled"
        case .other(let code, let message):
            "the HTTP transfer failed: \(message) (libcurl error \(code))"
        }
    }

    /// Whether the request surely never reached the server: no name, no connection, no TLS
    /// session, or refused before sending. Anything else (a timeout, a connection lost on the
    /// way, a cut answer) may have come after the server read the request, and a write that
    /// is not idempotent must then not be sent again blindly.
    public var wasNeverSent: Bool {
        switch self {
        case .invalidRequest, .couldNotResolveHost, .couldNotConnect, .tlsFailure, .unusableCAFile: true
        case .timedOut, .bodyTooLarge, .headersTooLarge, .badContentEncoding, .cancelled, .other: false
        }
    }

    /// Classifies a failed transfer's result code; `message` is libcurl's error text for it.
    init(code: CURLcode, message: String) {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            self = .couldNotResolveHost(message)
        case CURLE_COULDNT_CONNECT:
            self = .couldNotConnect(message)
        case CURLE_OPERATION_TIMEDOUT:
            self = .timedOut(message)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR:
            self = .tlsFailure(message)
        case CURLE_BAD_CONTENT_ENCODING:
            self = .badContentEncoding(message)
        case CURLE_UNSUPPORTED_PROTOCOL:
            self = .invalidRequest("only http and https URLs are allowed")
        case CURLE_URL_MALFORMAT:
            self = .invalidRequest("the URL is malformed")
        default:
            self = .other(code: Int(code.rawValue), message: message)
        }
    }
}

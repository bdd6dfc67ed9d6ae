import FoundationEssentials

/// One gitbay API answer, classified by the status mapping and the special answers of the wire
/// contract (gitbay-api.md).
///
/// Built from what the HTTP layer saw. The 304, 401, 429 and 503 answers are recognised by status
/// alone, whatever their body; every other answer must carry the JSON envelope
/// `{"protocol_version": 1, "exit_code": N, "data" | "error" | "output": ...}`, or it is a
/// `serverError` (except a 404, which then means the API is switched off). Messages come from the
/// server's `error` (else `output`, else `stderr`), with control characters blanked and at most
/// 300 characters; no request header is ever part of one.
public enum APIResult: Sendable, Equatable, CustomStringConvertible {
    /// `data` is the whole response body, the envelope, exactly as received: `decode(_:)` reads
    /// its `data` value (or, for a command whose output is not JSON, the wrapped `output`
    /// string). Keeping the body avoids parsing and re-serialising what is decoded once anyway.
    /// `etag` is set on GET answers.
    case success(data: [UInt8], etag: String?)
    /// The `If-None-Match` ETag still matches: nothing changed.
    case notModified(etag: String?)
    /// HTTP 401: no, unknown, expired or revoked token. Needs a new token from the user.
    case unauthorized(message: String)
    /// HTTP 403 from a read-scoped token running a write. Reads still work.
    case readOnlyToken(message: String)
    /// HTTP 403 from the per-account write limiter: a rate limit, not a permission problem.
    case tooManyWrites(retryAfter: Int?)
    /// Any other HTTP 403 (exit code 4, denied).
    case forbidden(message: String)
    /// HTTP 404: an unknown command or id, or the API is not enabled on the instance.
    case notFound(message: String)
    /// HTTP 400 (exit code 2, usage).
    case badRequest(message: String)
    /// HTTP 429 from the token bucket.
    case rateLimited(retryAfter: Int)
    /// `device add` on an instance with `[push] enabled = false`: not a server fault.
    case pushUnavailable(message: String)
    /// HTTP 503: the server is busy.
    case busy(retryAfter: Int)
    /// Any other failure, including answers that are not gitbay envelopes at all.
    case serverError(status: Int, message: String)

    public static let maximumMessageLength = 300
    /// Retry-After values are whole seconds, clamped to this range.
    public static let retryAfterRange = 1...3600
    /// When a 429 lacks a usable Retry-After: the token bucket refills within seconds.
    public static let defaultRateLimitedRetryAfter = 1
    /// When a 503 lacks a usable Retry-After: what gitbay itself sends.
    public static let defaultBusyRetryAfter = 60
    /// An ETag longer than this (or with anything but visible ASCII) is ignored: it would be
    /// stored and sent back as a header.
    public static let maximumETagLength = 256

    private static let unauthorizedMessage = "the server rejected the token (HTTP 401)"
    // The leading words of the special answers gitbay sends with an ordinary status.
    private static let readOnlyPrefix = "this token is read-only"
    private static let tooManyWritesPrefix = "too many writes"
    private static let pushDisabledPrefix = "this instance does not send push notifications"

    /// - Parameters:
    ///   - headers: response headers with lowercased names.
    ///   - body: the body, already decompressed.
    public init(status: Int, headers: [String: String], body: [UInt8]) {
        switch status {
        case 304:
            self = .notModified(etag: Self.etag(in: headers))
            return
        case 429:
            self = .rateLimited(retryAfter: Self.retryAfter(in: headers) ?? Self.defaultRateLimitedRetryAfter)
            return
        case 503:
            self = .busy(retryAfter: Self.retryAfter(in: headers) ?? Self.defaultBusyRetryAfter)
            return
        case 300..<400:
            self = .serverError(status: status, message: """
                the server answered with a redirect (HTTP \(status)), which is not followed so the \
                token never travels to another address; check the instance URL (https, path prefix)
                """)
            return
        default:
            break
        }

        let envelope: Envelope
        switch (ParsedBody(body), status) {
        case (.envelope(let parsed), 401):
            self = .unauthorized(message: parsed.message ?? Self.unauthorizedMessage)
            return
        case (.other, 401):
            self = .unauthorized(message: Self.unauthorizedMessage)
            return
        case (.other(let what), 404):
            self = .notFound(message: """
                no gitbay API here (HTTP 404 with \(what)); is [api] enabled = true on this \
                instance, and is the URL's path prefix right?
                """)
            return
        case (.other(let what), _):
            self = .serverError(status: status, message: "the server answered HTTP \(status) with \(what)")
            return
        case (.envelope(let parsed), _):
            envelope = parsed
        }

        let error = envelope.error ?? ""
        let message = envelope.message ?? Self.fallbackMessage(status: status, exitCode: envelope.exitCode)
        switch status {
        case 200..<300 where (envelope.exitCode ?? 0) == 0:
            self = .success(data: body, etag: Self.etag(in: headers))
        case 200..<300:
            self = .serverError(status: status, message: "HTTP \(status) with a failed command: \(message)")
        case 400:
            self = .badRequest(message: message)
        case 403 where error.hasPrefix(Self.readOnlyPrefix):
            self = .readOnlyToken(message: message)
        case 403 where error.hasPrefix(Self.tooManyWritesPrefix):
            self = .tooManyWrites(retryAfter: Self.retryAfter(in: headers))
        case 403:
            self = .forbidden(message: message)
        case 404:
            self = .notFound(message: message)
        case 500 where error.hasPrefix(Self.pushDisabledPrefix):
            self = .pushUnavailable(message: message)
        default:
            self = .serverError(status: status, message: message)
        }
    }

    /// Seconds to wait before trying again, for the answers that say so.
    public var retryAfter: Int? {
        switch self {
        case .rateLimited(let seconds), .busy(let seconds): seconds
        case .tooManyWrites(let seconds): seconds
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .success: "success"
        case .notModified: "not modified"
        case .unauthorized(let message): "the token was rejected (HTTP 401): \(message)"
        case .readOnlyToken(let message): "the token is read-only (HTTP 403): \(message)"
        case .tooManyWrites(let seconds?): "too many writes (HTTP 403); retry in \(seconds) s"
        case .tooManyWrites(nil): "too many writes (HTTP 403); retry later"
        case .forbidden(let message): "denied (HTTP 403): \(message)"
        case .notFound(let message): "not found (HTTP 404): \(message)"
        case .badRequest(let message): "bad request (HTTP 400): \(message)"
        case .rateLimited(let seconds): "rate limited (HTTP 429); retry in \(seconds) s"
        case .pushUnavailable(let message): "push notifications are unavailable on this instance: \(message)"
        case .busy(let seconds): "the server is busy (HTTP 503); retry in \(seconds) s"
        case .serverError(let status, let message): "server error (HTTP \(status)): \(message)"
        }
    }

    /// Decodes the envelope's `data` of a success (or its wrapped `output`, for `String`); any
    /// other answer throws `.notSuccess` with itself.
    public func decode<T: Decodable>(_ type: T.Type) throws(APIDecodingError) -> T {
        guard case .success(let body, _) = self else { throw .notSuccess(self) }
        do {
            return try JSONDecoder().decode(EnvelopeData<T>.self, from: Data(body)).value
        } catch {
            throw APIDecodingError(unexpected: T.self, error)
        }
    }

    /// The envelope's `data` of a success, as compact JSON with object keys sorted: what gitbay
    /// sends, since it encodes every answer through a generic map. Any other answer throws
    /// `.notSuccess` with itself.
    public func dataJSON() throws(APIDecodingError) -> [UInt8] {
        guard case .success(let body, _) = self else { throw .notSuccess(self) }
        guard case .object(let envelope)? = JSONValue(parsing: body), let data = envelope["data"] else {
            throw .unexpectedShape(type: "the envelope", detail: "data: missing")
        }
        return data.serialized
    }

    // MARK: - Pieces of the answer

    /// A body read as an envelope, or else how it looks, for the message.
    private enum ParsedBody {
        case envelope(Envelope)
        case other(String)

        init(_ body: [UInt8]) {
            do {
                self = .envelope(try JSONDecoder().decode(Envelope.self, from: Data(body)))
            } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
                self = .other(body.isEmpty ? "an empty body" : "a body that is not JSON")
            } catch {
                self = .other("JSON that is not a gitbay reply")
            }
        }
    }

    /// The envelope fields that classify an answer. Only `protocol_version` marks an envelope;
    /// the others count as absent when they have an unexpected type.
    private struct Envelope: Decodable {
        let exitCode: Int64?
        let error: String?
        let output: String?
        let stderr: String?

        private enum CodingKeys: String, CodingKey {
            case protocolVersion = "protocol_version"
            case exitCode = "exit_code"
            case error, output, stderr
        }

        init(from decoder: any Decoder) throws {
            let envelope = try decoder.container(keyedBy: CodingKeys.self)
            _ = try envelope.decode(Int64.self, forKey: .protocolVersion)
            exitCode = try? envelope.decodeIfPresent(Int64.self, forKey: .exitCode)
            error = try? envelope.decodeIfPresent(String.self, forKey: .error)
            output = try? envelope.decodeIfPresent(String.self, forKey: .output)
            stderr = try? envelope.decodeIfPresent(String.self, forKey: .stderr)
        }

        /// The server's own words for a failure, safe to print.
        var message: String? {
            guard let text = [error, output, stderr].lazy.compactMap({ $0 }).first(where: { !$0.isEmpty }) else {
                return nil
            }
            return text.displaySafe(truncatedTo: APIResult.maximumMessageLength)
        }
    }

    /// What `decode` reads from a success: `data`, or the wrapped `output` when there is no `data`.
    private struct EnvelopeData<T: Decodable>: Decodable {
        let value: T

        private enum CodingKeys: String, CodingKey {
            case data, output
        }

        init(from decoder: any Decoder) throws {
            let envelope = try decoder.container(keyedBy: CodingKeys.self)
            let key: CodingKeys = envelope.contains(.data) || !envelope.contains(.output) ? .data : .output
            value = try envelope.decode(T.self, forKey: key)
        }
    }

    private static func fallbackMessage(status: Int, exitCode: Int64?) -> String {
        let code = exitCode.map { ", exit code \($0)" } ?? ""
        return "HTTP \(status)\(code) with no error message"
    }

    /// Whole seconds, clamped; nil when absent or not a plain number (an HTTP date included).
    private static func retryAfter(in headers: [String: String]) -> Int? {
        guard let text = headers["retry-after"] else { return nil }
        let digits = text.trimmingWhitespace.utf8
        guard !digits.isEmpty, digits.allSatisfy(ASCII.isDigit) else { return nil }
        let seconds = ASCII.decimalValue(digits) ?? .max  // only overflow fails here
        return Int(min(max(seconds, Int64(retryAfterRange.lowerBound)), Int64(retryAfterRange.upperBound)))
    }

    private static func etag(in headers: [String: String]) -> String? {
        guard let etag = headers["etag"], isUsableETag(etag) else { return nil }
        return etag
    }

    /// Whether `etag` may be stored and sent back as `If-None-Match`: 1 to `maximumETagLength`
    /// bytes of visible ASCII. The same rule for a server's header and for the one read back
    /// from the state file.
    public static func isUsableETag(_ etag: String) -> Bool {
        (1...maximumETagLength).contains(etag.utf8.count) && etag.utf8.allSatisfy(ASCII.isVisible)
    }
}

import Curl
import GitbayClient
import PushCore

// The few words `Status()` shows as a poll's `last_result`; the full story is in `last_error`
// and the log.

extension APIResult {
    var statusWords: String {
        switch self {
        case .success: "200 ok"
        case .notModified: "304 not modified"
        case .unauthorized: "401 unauthorized"
        case .readOnlyToken: "403 read-only token"
        case .tooManyWrites: "403 too many writes"
        case .forbidden: "403 denied"
        case .notFound: "404 not found"
        case .badRequest: "400 bad request"
        case .rateLimited: "429 rate limited"
        case .pushUnavailable: "500 push unavailable"
        case .busy: "503 busy"
        case .serverError(let status, _): "\(status) server error"
        }
    }
}

extension TransportError {
    /// What a poll that failed this way means for its schedule: no network (a host that does not
    /// resolve, a connection that cannot be made) backs off for a minute at most.
    var outcome: PollOutcome {
        switch self {
        case .transfer(.couldNotResolveHost), .transfer(.couldNotConnect): .unreachable
        default: .failed(retryAfter: nil)
        }
    }

    var statusWords: String {
        switch self {
        case .redirected(let status, _): "\(status) redirect"
        case .transfer(.timedOut): "timeout"
        case .transfer(.couldNotConnect): "no connection"
        case .transfer(.couldNotResolveHost): "unknown host"
        case .transfer(.tlsFailure): "TLS failure"
        case .transfer: "transfer failed"
        }
    }
}

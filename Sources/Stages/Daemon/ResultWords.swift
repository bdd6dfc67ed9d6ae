import Curl
import GitbayClient
import PushCore

// What `Status()` shows as a poll's `last_result`, as facts (`PollResult`); the full story is
// in `last_error` and the log.

extension APIResult {
    var pollResult: PollResult {
        switch self {
        case .success: PollResult(.ok, httpStatus: 200)
        case .notModified: PollResult(.notModified, httpStatus: 304)
        case .unauthorized: PollResult(.unauthorized, httpStatus: 401)
        case .readOnlyToken: PollResult(.readOnlyToken, httpStatus: 403)
        case .tooManyWrites: PollResult(.tooManyWrites, httpStatus: 403)
        case .forbidden: PollResult(.denied, httpStatus: 403)
        case .notFound: PollResult(.notFound, httpStatus: 404)
        case .badRequest: PollResult(.badRequest, httpStatus: 400)
        case .rateLimited: PollResult(.rateLimited, httpStatus: 429)
        case .pushUnavailable: PollResult(.pushUnavailable, httpStatus: 500)
        case .busy: PollResult(.busy, httpStatus: 503)
        case .serverError(let status, _): PollResult(.serverError, httpStatus: status)
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

    var pollResult: PollResult {
        switch self {
        case .redirected(let status, _): PollResult(.redirect, httpStatus: status)
        case .transfer(.timedOut): PollResult(.timeout, httpStatus: nil)
        case .transfer(.couldNotConnect): PollResult(.noConnection, httpStatus: nil)
        case .transfer(.couldNotResolveHost): PollResult(.unknownHost, httpStatus: nil)
        case .transfer(.tlsFailure): PollResult(.tlsFailure, httpStatus: nil)
        case .transfer: PollResult(.transferFailed, httpStatus: nil)
        }
    }
}

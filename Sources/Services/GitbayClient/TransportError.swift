import Curl

/// Why a gitbay request got no API answer. Descriptions never contain the token: request
/// headers are never part of an error, and a redirect target is scrubbed of it.
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with a redirect (`status`), which gbnotify does not follow.
    /// `location` is the target as sent, cleaned for printing; nil when there was none.
    case redirected(status: Int, location: String?)
    /// No answer: the connection, TLS, a timeout or a limit failed (see `CurlError`).
    case transfer(CurlError)

    /// The longest redirect target kept: it is the server's text, printed to the user.
    public static let maximumLocationLength = 300

    public var description: String {
        switch self {
        case .redirected(let status, let location):
            """
            the server redirected (HTTP \(status)) to \(location ?? "an unnamed location"); gbnotify \
            does not follow redirects, so that the token never travels to another host. Check the \
            instance URL (https, host, path prefix)
            """
        case .transfer(let error):
            error.description
        }
    }
}

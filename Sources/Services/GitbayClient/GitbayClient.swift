import Curl
import PushCore

/// Speaks the gitbay API (gitbay-api.md) for one account: one instance, one token.
///
/// A final class with only immutable state rather than an actor: there is nothing to protect,
/// and an actor would queue an account's requests behind one another for no reason. Clients
/// share sessions (`HTTPSession.shared` unless told otherwise; the daemon's, one per instance:
/// `InstanceSessions`), all on the main loop, so requests to one instance reuse its connection.
public final class GitbayClient: Sendable {
    public struct Options: Sendable, Equatable {
        /// A PEM file of CA certificates to trust instead of the system's.
        public var caFile: String?
        public var connectTimeout: Duration
        /// No byte at all for this long aborts the request as stalled.
        public var stallTimeout: Duration
        public var overallTimeout: Duration
        /// The largest (inflated) answer accepted; gitbay caps its own bodies at 1 MiB.
        public var maxBodyBytes: Int
        public var userAgent: String

        public init(
            caFile: String? = nil,
            connectTimeout: Duration = .seconds(10),
            stallTimeout: Duration = .seconds(30),
            overallTimeout: Duration = .seconds(60),
            maxBodyBytes: Int = 1 << 20,
            userAgent: String = "gbnotify/\(GBNotify.version)"
        ) {
            self.caFile = caFile
            self.connectTimeout = connectTimeout
            self.stallTimeout = stallTimeout
            self.overallTimeout = overallTimeout
            self.maxBodyBytes = maxBodyBytes
            self.userAgent = userAgent
        }
    }

    public let instance: GitbayInstance
    public let options: Options
    private let token: APIToken
    private let session: HTTPSession

    public init(instance: GitbayInstance, token: APIToken, options: Options = Options(), session: HTTPSession = .shared) {
        self.instance = instance
        self.token = token
        self.options = options
        self.session = session
    }

    /// Runs `command`: a read-only one as `GET /api/v1/read` (with `If-None-Match` when
    /// `ifNoneMatch` is given; `stdin` is not sent), any other as `POST /api/v1/cmd` with `stdin`
    /// in its JSON body (`ifNoneMatch` does not apply: those answers carry no ETag).
    ///
    /// Every HTTP answer but a redirect is an `APIResult`, failures included.
    public func send(
        _ command: GitbayCommand, stdin: String? = nil, ifNoneMatch: String? = nil
    ) async throws(TransportError) -> APIResult {
        var headers = [
            // Exactly "Bearer " and the token: gitbay treats any other spelling as no token.
            "Authorization": "Bearer \(token.secret)",
            "Accept": "application/json",
            "User-Agent": options.userAgent,
        ]
        let request: HTTPRequest
        if command.isReadOnly {
            if let ifNoneMatch { headers["If-None-Match"] = ifNoneMatch }
            request = HTTPRequest(
                mayUseProxy: instance.mayUseProxy, method: .get, url: "\(instance.url)/api/v1/read?\(command.readQuery)",
                headers: headers)
        } else {
            headers["Content-Type"] = "application/json"
            request = HTTPRequest(
                mayUseProxy: instance.mayUseProxy, method: .post(body: command.cmdBody(stdin: stdin)),
                url: "\(instance.url)/api/v1/cmd", headers: headers)
        }

        let response: HTTPResponse
        do {
            response = try await session.perform(request, options: transferOptions(freshConnection: !command.isIdempotent))
        } catch {
            throw .transfer(error)
        }
        if (300..<400).contains(response.status) && response.status != 304 {
            throw .redirected(status: response.status, location: printableLocation(response.headers["location"]))
        }
        return APIResult(status: response.status, headers: response.headers, body: response.body)
    }

    private func transferOptions(freshConnection: Bool) -> TransferOptions {
        TransferOptions(
            connectTimeout: options.connectTimeout,
            stallTimeout: options.stallTimeout,
            overallTimeout: options.overallTimeout,
            caFile: options.caFile,
            maxBodyBytes: options.maxBodyBytes,
            acceptGzip: true,
            freshConnection: freshConnection)
    }

    /// The server's redirect target, fit to print: control characters blanked, cut short, and
    /// the token removed should the server have echoed it back.
    private func printableLocation(_ location: String?) -> String? {
        guard let location, !location.isEmpty else { return nil }
        let redacted = location.replacing(token.secret, with: "(redacted)")
        let printable = String(String.UnicodeScalarView(redacted.unicodeScalars.map {
            $0.properties.generalCategory == .control ? " " : $0
        }))
        guard printable.count > TransportError.maximumLocationLength else { return printable }
        return printable.prefix(TransportError.maximumLocationLength) + "…"
    }
}

import Foundation
import Synchronization

/// nghttpx (Debian's `nghttp2-proxy`) as the TLS front of a stand-in, as a reverse proxy stands
/// in front of a real gitbay instance: TLS ends here with ALPN offering `h2` and `http/1.1` (or
/// only `http/1.1`), and each request goes on to the stand-in, whose control API and request log
/// stay where they were. Run by `Tests/Standin/http2_front.py` under the stand-ins' lifeline.
///
/// Its access log is what a test reads of the wire: the protocol of each request, and the client
/// connection it came on (one TLS handshake each).
public final class HTTP2Front: Sendable {
    /// What ALPN offers.
    public enum Protocols: String, Sendable {
        case h2AndHTTP1 = "h2,http/1.1"
        case http1Only = "http/1.1"
    }

    /// One request as nghttpx logged it (`ACCESS_LOG_FORMAT` of http2_front.py).
    public struct Request: Sendable, Equatable {
        /// The client end of the connection it came on.
        public let connection: String
        /// `h2` or `http/1.1`.
        public let alpn: String
        /// The TLS session of its connection was resumed, not a full handshake.
        public let resumed: Bool
        public let status: Int
        public let method: String
        public let path: String
    }

    public struct Options: Sendable {
        public var protocols: Protocols
        /// Requests per connection, after which nghttpx sends GOAWAY on it; no limit when nil.
        public var maxRequests: Int?

        public init(protocols: Protocols = .h2AndHTTP1, maxRequests: Int? = nil) {
            self.protocols = protocols
            self.maxRequests = maxRequests
        }
    }

    public let url: String
    public let port: Int
    /// The CA file that verifies the front.
    public let caFile: String
    public let accessLog: String
    private let backendPort: Int
    private let options: Options
    private let process: Mutex<Standin?>

    /// Starts a front for the stand-in listening on `backendPort`.
    public static func start(backendPort: Int, _ options: Options = Options()) async throws -> HTTP2Front {
        let accessLog = FileManager.default.temporaryDirectory.appendingPathComponent("nghttpx-\(UUID().uuidString).log").path
        let process = try await launch(backendPort: backendPort, port: 0, accessLog: accessLog, options)
        return HTTP2Front(process: process, backendPort: backendPort, accessLog: accessLog, options: options)
    }

    private init(process: Standin, backendPort: Int, accessLog: String, options: Options) {
        url = process.url
        port = process.port
        caFile = Standin.TLS.fixtures.caFile
        self.accessLog = accessLog
        self.backendPort = backendPort
        self.options = options
        self.process = Mutex(process)
    }

    private static func launch(backendPort: Int, port: Int, accessLog: String, _ options: Options) async throws -> Standin {
        let tls = Standin.TLS.fixtures
        var arguments = [
            "--backend", String(backendPort), "--port", String(port), "--cert", tls.certificateFile, "--key", tls.keyFile,
            "--access-log", accessLog, "--alpn", options.protocols.rawValue,
        ]
        if let maxRequests = options.maxRequests { arguments += ["--max-requests", String(maxRequests)] }
        return try await Standin.launch("http2_front.py", arguments, caFile: tls.caFile)
    }

    /// Stops nghttpx, closing every connection it has, and starts it again on the same port with
    /// the same access log, as an instance's proxy restarted.
    public func restart() async throws {
        await stop()
        let process = try await Self.launch(backendPort: backendPort, port: port, accessLog: accessLog, options)
        self.process.withLock { $0 = process }
    }

    public func stop() async {
        await process.withLock { running in
            defer { running = nil }
            return running
        }?.stop()
    }

    deinit {
        unlink(accessLog)
    }

    /// Every request logged so far, oldest first.
    public func requests() -> [Request] {
        let text = (try? String(contentsOfFile: accessLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 7, let status = Int(fields[4]) else { return nil }
            return Request(
                connection: fields[0] + ":" + fields[1], alpn: fields[2], resumed: fields[3] == "r", status: status,
                method: fields[5], path: fields[6...].joined(separator: " "))
        }
    }

    /// The requests logged for `notifications list`, oldest first.
    public func listRequests() -> [Request] {
        requests().filter { $0.path.hasPrefix("/api/v1/read?argv=notifications&argv=list") }
    }

    /// Waits until `count` requests matching `matches` are logged (nghttpx logs a request as it
    /// finishes); those.
    @discardableResult
    public func waitForRequests(
        _ count: Int, timeout: Duration = .seconds(30), matching matches: @Sendable (Request) -> Bool = { _ in true }
    ) async throws -> [Request] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let found = requests().filter(matches)
            if found.count >= count { return found }
            guard ContinuousClock.now < deadline else {
                throw TimedOut(description: "\(count) requests in nghttpx's access log: \(found.count) within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The client connections that carried the logged requests, in the order of their first.
    public func connections() -> [String] {
        var seen: [String] = []
        for request in requests() where !seen.contains(request.connection) {
            seen.append(request.connection)
        }
        return seen
    }

    /// How many TCP connections to the front are established right now (`ss`, nghttpx's side).
    public func openConnections() async throws -> Int {
        let answer = try await Program.run(
            ["/bin/ss", "-Htn", "state", "established", "( sport = :\(port) )"], environment: ProcessInfo.processInfo.environment)
        return answer.stdout.split(separator: "\n").count
    }
}

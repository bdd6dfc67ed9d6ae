import Curl
import Foundation

/// The relay stand-in (`Tests/Standin/relay_standin.py`), an ntfy-compatible relay, running as
/// a child of the test process under the same lifeline as the gitbay stand-in, with typed calls
/// to its control API (`/_relay/...`).
public final class RelayStandin: Sendable {
    /// One `GET /TOPIC/json` the relay received.
    public struct Subscription: Decodable, Sendable, Equatable {
        /// The topics as the request named them: one, or a comma list.
        public let topic: String
        public let since: String?
        /// The `Authorization` header as received, so tests can check the relay token.
        public let authorization: String?

        /// Each topic of the subscription.
        public var topics: [String] { topic.split(separator: ",").map(String.init) }
    }

    public struct Published: Decodable, Sendable {
        public let id: String
        public let time: Int64
    }

    private let process: Standin

    /// The relay's base URL, e.g. `http://127.0.0.1:41234`.
    public var url: String { process.url }
    public var port: Int { process.port }
    /// The CA file that verifies this relay, when it serves HTTPS.
    public var caFile: String? { process.caFile }

    /// Starts a relay that sends a keepalive every `keepalive` seconds on a quiet stream.
    public static func start(keepalive: Double = 45, tls: Standin.TLS? = nil) async throws -> RelayStandin {
        var arguments = ["--port", "0", "--keepalive", String(keepalive)]
        if let tls { arguments += ["--tls-cert", tls.certificateFile, "--tls-key", tls.keyFile] }
        return RelayStandin(process: try await Standin.launch("relay_standin.py", arguments, caFile: tls?.caFile))
    }

    private init(process: Standin) {
        self.process = process
    }

    public func stop() async {
        await process.stop()
    }

    /// Publishes and retains a message; returns its id.
    @discardableResult
    public func publish(_ message: String, to topic: String) async throws -> Published {
        struct Body: Encodable { let topic: String; let message: String }
        return try await control.post("publish", Body(topic: topic, message: message))
    }

    /// Sends raw bytes (`text`, then `pad` times "x") to the topic's open streams, unretained;
    /// returns how many streams got them.
    @discardableResult
    public func sendRaw(_ text: String, pad: Int = 0, to topic: String) async throws -> Int {
        struct Body: Encodable { let topic: String; let text: String; let pad: Int }
        struct Reply: Decodable { let subscribers: Int }
        let reply: Reply = try await control.post("send", Body(topic: topic, text: text, pad: pad))
        return reply.subscribers
    }

    /// Requires `Authorization: Bearer TOKEN` from now on (nil: anyone may subscribe).
    public func requireToken(_ token: String?) async throws {
        struct Body: Encodable {
            let token: String?
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(token, forKey: .token)
            }
            enum CodingKeys: CodingKey { case token }
        }
        try await control.post("config", Body(token: token))
    }

    /// The next subscription of `topic` sends `messages` message lines, then half of the next
    /// one, and drops the connection.
    public func disconnect(topic: String, afterMessages messages: Int) async throws {
        struct Body: Encodable { let kind = "disconnect"; let topic: String; let after_messages: Int }
        try await control.post("faults", Body(topic: topic, after_messages: messages))
    }

    /// Every open stream goes silent, keepalives included, until its client leaves.
    public func stall() async throws {
        struct Body: Encodable { let kind = "stall" }
        try await control.post("faults", Body())
    }

    /// The next `count` subscriptions are read and counted, then answered with nothing at all,
    /// not even a status line, until their clients leave.
    public func silenceHeads(_ count: Int) async throws {
        struct Body: Encodable { let kind = "silent_head"; let count: Int }
        try await control.post("faults", Body(count: count))
    }

    /// Waits until the relay has seen `count` subscriptions in all; returns them, oldest first.
    @discardableResult
    public func waitForSubscriptions(count: Int, timeout: Duration = .seconds(20)) async throws -> [Subscription] {
        struct Reply: Decodable { let subscriptions: [Subscription]; let timedOut: Bool }
        let reply: Reply = try await control.get("subscriptions/wait?count=\(count)&timeout=\(timeout.components.seconds)")
        guard !reply.timedOut else {
            throw Standin.ControlError(description: "the relay saw \(reply.subscriptions.count) of \(count) subscriptions within \(timeout)")
        }
        return reply.subscriptions
    }

    /// Waits until exactly `count` streams are open (a client that left is noticed within
    /// a fraction of a second).
    public func waitForOpenStreams(_ count: Int, timeout: Duration = .seconds(20)) async throws {
        struct Reply: Decodable { let openStreams: Int; let timedOut: Bool }
        let reply: Reply = try await control.get("streams/wait?open=\(count)&timeout=\(timeout.components.seconds)")
        guard !reply.timedOut else {
            throw Standin.ControlError(description: "\(reply.openStreams) streams open, not \(count), after \(timeout)")
        }
    }

    // MARK: - Transport

    private var control: ControlAPI { ControlAPI(root: "\(url)/_relay", caFile: caFile) }
}

import Curl
import Foundation

/// A stand-in's control API (`/_standin/...`, `/_relay/...`): JSON in, JSON out (snake_case
/// keys), sent with the `Curl` module. An answer other than 200 throws `Standin.ControlError`
/// with the stand-in's words.
struct ControlAPI: Sendable {
    /// The API's root, e.g. `http://127.0.0.1:41234/_relay`.
    let root: String
    let caFile: String?

    private struct Empty: Codable {}

    @discardableResult
    func post<Reply: Decodable>(_ route: String, _ body: some Encodable) async throws -> Reply {
        try await send(route, method: .post(body: Array(try JSONEncoder().encode(body))))
    }

    func post(_ route: String, _ body: some Encodable) async throws {
        let _: Empty = try await post(route, body)
    }

    /// A POST of JSON text as it is, for bodies that carry a value a test wrote as JSON.
    func post<Reply: Decodable>(_ route: String, json: String) async throws -> Reply {
        try await send(route, method: .post(body: Array(json.utf8)))
    }

    /// A POST with an empty object as its body.
    func post(_ route: String) async throws {
        try await post(route, Empty())
    }

    func get<Reply: Decodable>(_ route: String) async throws -> Reply {
        try await send(route, method: .get)
    }

    private func send<Reply: Decodable>(_ route: String, method: HTTPRequest.Method) async throws -> Reply {
        let request = HTTPRequest(mayUseProxy: false, method: method, url: "\(root)/\(route)", headers: ["Content-Type": "application/json"])
        // Longer than the stand-ins' longest wait (120 s), during which they send nothing.
        let patience = Duration.seconds(150)
        let options = TransferOptions(
            stallTimeout: patience, overallTimeout: patience, caFile: caFile, maxBodyBytes: 64 << 20)
        let response = try await HTTPSession.shared.perform(request, options: options)
        guard response.status == 200 else {
            let text = String(decoding: response.body, as: UTF8.self)
            throw Standin.ControlError(description: "\(request.url) answered \(response.status): \(text)")
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(Reply.self, from: Data(response.body))
    }
}

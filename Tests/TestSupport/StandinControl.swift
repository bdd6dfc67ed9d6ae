import Curl
import Foundation

/// Typed calls to the stand-in's control API, `/_standin/...`, sent with the `Curl` module.
extension Standin {
    public struct ControlError: Error, CustomStringConvertible {
        public let description: String
    }

    /// `addNotification` filed no row: the user muted the repository (`repo mute`).
    public struct NotFiled: Error, CustomStringConvertible {
        public let description: String
    }

    public func addUser(_ username: String, admin: Bool = false) async throws {
        struct Body: Encodable { let username: String; let admin: Bool }
        try await control.post("users", Body(username: username, admin: admin))
    }

    /// Mints a token for `username`, or stores `token` as given; returns the token.
    public func addToken(for username: String, scope: TokenScope = .full, token: String? = nil) async throws -> String {
        struct Body: Encodable { let username: String; let scope: TokenScope; let token: String? }
        struct Reply: Decodable { let token: String }
        let reply: Reply = try await control.post("tokens", Body(username: username, scope: scope, token: token))
        return reply.token
    }

    /// Revokes a token: the server answers it 401 from now on.
    public func revokeToken(_ token: String) async throws {
        struct Body: Encodable { let token: String }
        try await control.post("tokens/revoke", Body(token: token))
    }

    /// A user with a full token of their own, the usual start of a test; returns the token.
    public func addUserWithToken(_ username: String, scope: TokenScope = .full) async throws -> String {
        try await addUser(username)
        return try await addToken(for: username, scope: scope)
    }

    /// Adds one inbox row; unset fields take the stand-in's defaults. Returns its id; throws
    /// `NotFiled` when the user muted its repository, which then files no row.
    /// - Parameter id: the row's id as given, even one going backwards or repeating; the next
    ///   id above all used so far when nil.
    @discardableResult
    public func addNotification(
        for username: String, repo: String? = nil, kind: String? = nil, actor: String? = nil,
        summary: String? = nil, path: String? = nil, id: Int? = nil, read: Bool = false
    ) async throws -> Int {
        struct Body: Encodable {
            let username: String
            let repo, kind, actor, summary, path: String?
            let id: Int?
            let read: Bool
        }
        struct Reply: Decodable { let id: Int? }
        let reply: Reply = try await control.post("notifications", Body(
            username: username, repo: repo, kind: kind, actor: actor, summary: summary, path: path, id: id, read: read))
        guard let filed = reply.id else {
            throw NotFiled(description: "\(username) muted \(repo ?? "krz/gitbay"): the stand-in filed no row")
        }
        return filed
    }

    /// Adds `count` unread rows; returns their ids, ascending.
    @discardableResult
    public func addNotifications(for username: String, count: Int, repo: String? = nil) async throws -> [Int] {
        struct Body: Encodable { let username: String; let count: Int; let repo: String? }
        struct Reply: Decodable { let ids: [Int] }
        let reply: Reply = try await control.post("notifications/bulk", Body(username: username, count: count, repo: repo))
        return reply.ids
    }

    /// An account's standing: a disabled or unverified one is denied the item commands.
    public func setStatus(of username: String, _ status: AccountStatus) async throws {
        struct Body: Encodable { let username: String; let status: AccountStatus }
        try await control.post("users", Body(username: username, status: status))
    }

    /// Adds (or replaces) a repository; with `readers`, only those users may read it, and to
    /// everyone else it answers as a missing one. An archived one refuses comments and reactions.
    public func addRepository(_ repo: String, readers: [String]? = nil, archived: Bool = false) async throws {
        struct Body: Encodable { let repo: String; let readers: [String]?; let archived: Bool }
        try await control.post("repos", Body(repo: repo, readers: readers, archived: archived))
    }

    /// Seeds an issue, merge request or build: `data` is the JSON object `KIND show` answers
    /// with, which the stand-in keeps as written (its `number` and `created_at` filled in when
    /// absent; the contract's omissions applied when shown). Returns its number.
    @discardableResult
    public func addItem(_ kind: ItemKind, repo: String, data: String) async throws -> Int {
        struct Reply: Decodable { let number: Int }
        func quoted(_ text: String) throws -> String { String(decoding: try JSONEncoder().encode(text), as: UTF8.self) }
        let reply: Reply = try await control.post(
            "items", json: #"{"kind":\#(try quoted(kind.rawValue)),"repo":\#(try quoted(repo)),"data":\#(data)}"#)
        return reply.number
    }

    public func configure(_ config: Config) async throws {
        try await control.post("config", config)
    }

    /// Arms a fault; returns its id.
    @discardableResult
    public func addFault(_ fault: Fault) async throws -> Int {
        struct Reply: Decodable { let id: Int }
        let reply: Reply = try await control.post("faults", fault)
        return reply.id
    }

    /// Disarms every fault and releases stalled requests.
    public func clearFaults() async throws {
        try await control.post("faults/clear")
    }

    /// Every API request received since the log was last cleared, oldest first.
    public func requests() async throws -> [LoggedRequest] {
        let reply: RequestList = try await control.get("requests")
        return reply.requests
    }

    /// Waits until the log holds at least `count` requests (a stalled one counts once received).
    public func waitForRequests(count: Int, timeout: Duration = .seconds(10)) async throws -> [LoggedRequest] {
        let (seconds, attoseconds) = timeout.components
        let reply: RequestList = try await control.get(
            "requests/wait?count=\(count)&timeout=\(Double(seconds) + Double(attoseconds) / 1e18)")
        guard reply.timedOut != true else {
            throw ControlError(description: "the stand-in saw \(reply.requests.count) of \(count) requests within \(timeout)")
        }
        return reply.requests
    }

    public func clearRequests() async throws {
        try await control.post("requests/clear")
    }

    public func state() async throws -> State {
        try await control.get("state")
    }

    /// Empties everything: users, tokens, rows, devices, faults, the request log, the config.
    public func reset() async throws {
        try await control.post("reset")
    }

    // MARK: - Transport

    private struct RequestList: Decodable {
        let requests: [LoggedRequest]
        let timedOut: Bool?
    }

    private var control: ControlAPI { ControlAPI(root: "\(url)/_standin", caFile: caFile) }
}

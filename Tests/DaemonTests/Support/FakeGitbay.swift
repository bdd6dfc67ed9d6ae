import Foundation
import GitbayClient
import PushCore
import Synchronization
import TestSupport

/// One user's gitbay in this process, for the tests that run the daemon on a manual clock: the
/// commands the daemon sends, answered as `gitbay-api.md` says a real instance answers them
/// (the envelope, a strong per-account ETag checked before anything runs, 401, 429 and 503
/// before any command), and parsed by the same `APIResult(status:headers:body:)` as the real
/// client's answers. `FakeGitbayContractTests` sends the same commands to this and to the
/// stand-in over HTTP and compares the answers, so the two cannot drift apart.
final class FakeGitbay: GitbayTransport {
    /// What the server does instead of answering, for the next requests whose argv starts so.
    enum Failure: Sendable, Equatable {
        /// 503 with `Retry-After: 60`: the server is busy.
        case busy
        /// 429 from the token bucket.
        case rateLimited(retryAfter: Int)
        /// 403 "too many writes" from the per-account write limiter.
        case tooManyWrites(retryAfter: Int)
        /// 500 with an envelope: the command failed on the server.
        case internalError
        /// No answer at all: the connection was refused.
        case unreachable
    }

    /// A request as the server saw it, when on the test's clock, and its answer: the HTTP
    /// status (0 for none) and the ETag it carried.
    struct Request: Sendable, Equatable {
        let at: Duration
        let argv: [String]
        let ifNoneMatch: String?
        let stdin: String?
        let status: Int
        let etag: String?
    }

    private struct Row {
        let id: Int64
        let repo, kind, actor, summary, path: String
        var isRead = false
    }

    private struct Device {
        let id: Int64
        var label: String
        let token: String
    }

    private struct State {
        var rows: [Row] = []
        var nextRowID: Int64 = 1
        var devices: [Device] = []
        var nextDeviceID: Int64 = 1
        /// The account's ETag, new with every change of its state (the server's is a hash of a
        /// version number that every write moves on).
        var etag = FakeGitbay.newETag()
        var isTokenRevoked = false
        var failures: [(argvPrefix: [String], failure: Failure, timesLeft: Int)] = []

        mutating func changed() { etag = FakeGitbay.newETag() }
    }

    static let invalidToken = "invalid or expired token"
    static let busy = "server busy; retry later"

    let instance: GitbayInstance
    let username: String
    private let clock: ManualClock
    private let state = Mutex(State())
    /// Every request so far, oldest first; tests wait on it.
    let requests = Observed<[Request]>([])

    init(instance: GitbayInstance, username: String, clock: ManualClock) {
        self.instance = instance
        self.username = username
        self.clock = clock
    }

    // MARK: - The test's side

    /// Adds an unread row to the inbox, as activity on the instance does; its id.
    @discardableResult
    func addNotification(
        repo: String = "krz/gitbay", kind: String = "issue", actor: String = "eve", summary: String = "opened issue #12",
        path: String = "krz/gitbay/issues/12"
    ) -> Int64 {
        state.withLock { state in
            let id = state.nextRowID
            state.nextRowID += 1
            state.rows.append(Row(id: id, repo: repo, kind: kind, actor: actor, summary: summary, path: path))
            state.changed()
            return id
        }
    }

    /// Marks rows read, as the user's other clients do.
    func readElsewhere(_ ids: [Int64]) {
        state.withLock { state in
            for index in state.rows.indices where ids.contains(state.rows[index].id) { state.rows[index].isRead = true }
            state.changed()
        }
    }

    /// The next `times` requests whose argv starts with `argvPrefix` fail so.
    func fail(_ argvPrefix: [String], with failure: Failure, times: Int = 1) {
        state.withLock { $0.failures.append((argvPrefix, failure, times)) }
    }

    /// The token stops working: every request answers 401.
    func revokeToken() {
        state.withLock { $0.isTokenRevoked = true }
    }

    func unreadIDs() -> [Int64] {
        state.withLock { $0.rows.filter { !$0.isRead }.map(\.id) }
    }

    var deviceIDs: [Int64] { state.withLock { $0.devices.map(\.id) } }

    // MARK: - The daemon's side

    func send(_ command: GitbayCommand, stdin: String?, ifNoneMatch: String?) async throws(TransportError) -> APIResult {
        let (status, headers, body, unreachable) = state.withLock { state in
            Self.answer(command, stdin: stdin, ifNoneMatch: ifNoneMatch, username: username, &state)
        }
        requests.update {
            $0.append(Request(
                at: clock.now.offset, argv: command.argv, ifNoneMatch: ifNoneMatch, stdin: stdin, status: status,
                etag: headers["etag"]))
        }
        if unreachable { throw .transfer(.couldNotConnect("connection refused")) }
        return APIResult(status: status, headers: headers, body: body)
    }

    /// The order of the real server's checks: busy, the token, the rate limit, then the ETag,
    /// then the command.
    private static func answer(
        _ command: GitbayCommand, stdin: String?, ifNoneMatch: String?, username: String, _ state: inout State
    ) -> (Int, [String: String], [UInt8], unreachable: Bool) {
        var failure: Failure?
        if let index = state.failures.firstIndex(where: { command.argv.starts(with: $0.argvPrefix) }) {
            failure = state.failures[index].failure
            state.failures[index].timesLeft -= 1
            if state.failures[index].timesLeft == 0 { state.failures.remove(at: index) }
        }
        switch failure {
        case .unreachable?:
            return (0, [:], [], true)
        case .busy?:
            return (503, ["retry-after": "60"], special(busy), false)
        case .internalError?:
            return (500, [:], envelope(exitCode: 1, error: "internal error"), false)
        case .rateLimited(let seconds)? where !state.isTokenRevoked:
            return (429, ["retry-after": String(seconds)], special("rate limited; retry in \(seconds)s"), false)
        case .tooManyWrites(let seconds)? where !state.isTokenRevoked:
            return (403, ["retry-after": String(seconds)], envelope(exitCode: 4, error: "too many writes; retry in \(seconds)s"), false)
        case .rateLimited?, .tooManyWrites?, nil:
            break
        }
        if state.isTokenRevoked { return (401, ["www-authenticate": #"Bearer realm="gitbay api""#], special(invalidToken), false) }
        let tag = command.isReadOnly ? ["etag": state.etag] : [:]
        // Matched whole: the daemon sends back the one ETag it was given, never a list or W/.
        if command.isReadOnly, let ifNoneMatch, ifNoneMatch == state.etag { return (304, tag, [], false) }
        let (exitCode, data, error) = run(command, stdin: stdin, username: username, &state)
        let status = [0: 200, 2: 400, 3: 404, 4: 403][exitCode] ?? 500
        // A write moved the version on: a read answers with the ETag of the state it shows.
        let after = command.isReadOnly ? ["etag": state.etag] : [:]
        return (status, after, envelope(exitCode: exitCode, data: data, error: error), false)
    }

    private static func run(
        _ command: GitbayCommand, stdin: String?, username: String, _ state: inout State
    ) -> (exitCode: Int, data: JSONValue?, error: String?) {
        switch command {
        case .whoami:
            return (0, .object(["username": .string(username), "admin": .bool(false), "key_scope": .string("full")]), nil)
        case .notificationsList(nil, nil, false):
            let unread = state.rows.filter { !$0.isRead }.sorted { $0.id > $1.id }.prefix(50)
            return (0, .array(unread.map { row in
                .object([
                    "id": .integer(row.id), "repo": .string(row.repo), "kind": .string(row.kind), "actor": .string(row.actor),
                    "summary": .string(row.summary), "path": .string(row.path), "created_at": .string("2026-09-20T10:11:12.123Z"),
                ])
            }), nil)
        case .notificationsRead(let ids):
            var changed = 0
            for index in state.rows.indices where ids.contains(state.rows[index].id) && !state.rows[index].isRead {
                state.rows[index].isRead = true
                changed += 1
            }
            if changed > 0 { state.changed() }
            return (0, .object(["read": .integer(Int64(changed))]), nil)
        case .dashboard:
            let repositories = Set(state.rows.map(\.repo)).sorted().map(JSONValue.string)
            let unread = Int64(state.rows.count { !$0.isRead })
            return (0, .object(["username": .string(username), "unread": .integer(unread), "repos": .array(repositories)]), nil)
        case .deviceAdd(let label):
            let token = (stdin ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            guard (1...512).contains(token.utf8.count) else { return (2, nil, "the device token must be 1 to 512 bytes") }
            let id: Int64
            if let index = state.devices.firstIndex(where: { $0.token == token }) {
                state.devices[index].label = label
                id = state.devices[index].id
            } else {
                id = state.nextDeviceID
                state.nextDeviceID += 1
                state.devices.append(Device(id: id, label: label, token: token))
            }
            state.changed()
            return (0, .object(["id": .integer(id), "status": .string("registered")]), nil)
        case .deviceList:
            return (0, .array(state.devices.map { device in
                .object([
                    "id": .integer(device.id), "label": .string(device.label), "token": .string(String(device.token.prefix(8)) + "…"),
                    "added": .string("2026-09-20T10:11:12Z"),
                ])
            }), nil)
        case .deviceRemove(let id):
            guard let index = state.devices.firstIndex(where: { $0.id == id }) else {
                return (3, nil, "no such device; see notifications device list")
            }
            state.devices.remove(at: index)
            state.changed()
            return (0, .object(["status": .string("removed")]), nil)
        default:
            return (3, nil, "unknown command \(command.argv.joined(separator: " "))")
        }
    }

    private static func envelope(exitCode: Int, data: JSONValue? = nil, error: String? = nil) -> [UInt8] {
        var body: [String: JSONValue] = ["protocol_version": .integer(1), "exit_code": .integer(Int64(exitCode))]
        if exitCode == 0 { body["data"] = data ?? .null } else { body["error"] = .string(error ?? "") }
        return JSONValue.object(body).serialized
    }

    /// 401, 429 and 503 come before any command runs: no exit code.
    private static func special(_ error: String) -> [UInt8] {
        JSONValue.object(["protocol_version": .integer(1), "error": .string(error)]).serialized
    }

    private static func newETag() -> String {
        "\"" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() + "\""
    }
}

import Foundation
import GitbayClient
import PushCore
import TestSupport
import Testing

/// Keeps `FakeGitbay` honest: one script of the commands the daemon sends, with the inbox
/// changing, the server busy, a rate limit and a revoked token between them, run against the
/// fake and against the stand-in over HTTP through the real client, must read the same. What
/// differs by design (the ids' numbers, the ETags' values, times) is named, not compared: an
/// id by its order of appearance, an ETag by whether it is new.
@Suite struct FakeGitbayContractTests {
    /// The server side of the script: what the test does to the instance between commands.
    protocol Server: Sendable {
        var transport: any GitbayTransport { get }
        func addNotification(repo: String, kind: String, actor: String, summary: String, path: String) async throws
        func setBusy(_ busy: Bool) async throws
        /// Reads come faster than the rate limit lets them: the next is refused.
        func limitReads() async throws
        func revokeToken() async throws
    }

    struct Standin: Server {
        let standin: TestSupport.Standin
        let token: String
        let transport: any GitbayTransport

        func addNotification(repo: String, kind: String, actor: String, summary: String, path: String) async throws {
            try await standin.addNotification(for: "cmc", repo: repo, kind: kind, actor: actor, summary: summary, path: path)
        }

        func setBusy(_ busy: Bool) async throws { try await standin.configure(.init(busy: busy)) }
        func limitReads() async throws { try await standin.configure(.init(readBurst: 0, readRefill: 0.01)) }
        func revokeToken() async throws { try await standin.revokeToken(token) }
    }

    struct Fake: Server {
        let gitbay: FakeGitbay
        var transport: any GitbayTransport { gitbay }

        func addNotification(repo: String, kind: String, actor: String, summary: String, path: String) async throws {
            gitbay.addNotification(repo: repo, kind: kind, actor: actor, summary: summary, path: path)
        }

        func setBusy(_ busy: Bool) async throws {
            if busy { gitbay.fail(["notifications", "list"], with: .busy) }
        }

        func limitReads() async throws { gitbay.fail(["notifications", "list"], with: .rateLimited(retryAfter: 100)) }
        func revokeToken() async throws { gitbay.revokeToken() }
    }

    @Test func theFakeAnswersTheDaemonsCommandsAsTheStandinDoes() async throws {
        let standin = try await TestSupport.Standin.start()
        let token = try await standin.addUserWithToken("cmc")
        let instance = try GitbayInstance(parsing: standin.url)
        let real = Standin(standin: standin, token: token, transport: GitbayClient(instance: instance, token: try APIToken(token)))
        let fake = Fake(gitbay: FakeGitbay(instance: instance, username: "cmc", clock: ManualClock()))

        let overHTTP: [String]
        do {
            overHTTP = try await Self.script(real)
        } catch {
            await standin.stop()
            throw error
        }
        await standin.stop()
        let inMemory = try await Self.script(fake)
        #expect(inMemory.count == overHTTP.count)
        for (index, (fakeLine, standinLine)) in zip(inMemory, overHTTP).enumerated() {
            #expect(fakeLine == standinLine, "step \(index + 1)")
        }
    }

    /// The script, one line per command: what was sent and what came back.
    static func script(_ server: some Server) async throws -> [String] {
        var transcript = Transcript()
        let transport = server.transport
        let list = GitbayCommand.notificationsList(limit: nil, cursor: nil)
        let deviceToken = "0123456789abcdef0123456789abcdef"

        try await transcript.send(.whoami, on: transport)
        let empty = try await transcript.send(list, on: transport)
        try await transcript.send(list, ifNoneMatch: empty.etag, on: transport)
        try await server.addNotification(
            repo: "krz/gitbay", kind: "issue", actor: "eve", summary: "opened issue #12", path: "krz/gitbay/issues/12")
        try await server.addNotification(
            repo: "krz/gitbay", kind: "mr", actor: "noor", summary: "opened merge request #3", path: "krz/gitbay/mrs/3")
        let two = try await transcript.send(list, ifNoneMatch: empty.etag, on: transport)
        try await transcript.send(.dashboard, on: transport)
        let oldest = try #require(try two.result.decode([InboxItem].self).last?.id)
        try await transcript.send(.notificationsRead(ids: [oldest]), on: transport)
        try await transcript.send(.notificationsRead(ids: [oldest]), on: transport)
        try await transcript.send(list, ifNoneMatch: two.etag, on: transport)
        let added = try await transcript.send(.deviceAdd(label: "gbnotifyd on test-host"), stdin: deviceToken, on: transport)
        try await transcript.send(.deviceAdd(label: "gbnotifyd on laptop"), stdin: deviceToken, on: transport)
        try await transcript.send(.deviceList, on: transport)
        let device = try added.result.decode(DeviceRegistration.self).id
        try await transcript.send(.deviceRemove(id: device), on: transport)
        try await transcript.send(.deviceRemove(id: device), on: transport)

        try await server.setBusy(true)
        try await transcript.send(list, on: transport)
        try await server.setBusy(false)
        try await server.limitReads()
        try await transcript.send(list, on: transport)
        try await server.revokeToken()
        try await transcript.send(.whoami, on: transport)
        return transcript.lines
    }

    struct DeviceRegistration: Decodable {
        let id: Int64
    }

    /// The lines of a script's run, with each id named by its order of appearance and each
    /// ETag by whether it is new.
    struct Transcript {
        private(set) var lines: [String] = []
        private var ids: [Int64] = []
        private var etags: [String] = []

        @discardableResult
        mutating func send(
            _ command: GitbayCommand, stdin: String? = nil, ifNoneMatch: String? = nil, on transport: any GitbayTransport
        ) async throws -> (result: APIResult, etag: String?) {
            let result = try await transport.send(command, stdin: stdin, ifNoneMatch: ifNoneMatch)
            var sent: [String] = []
            for word in command.argv { sent.append(Int64(word).map { name($0) } ?? word) }
            if let ifNoneMatch { sent += ["if-none-match", etagName(ifNoneMatch)] }
            lines.append("\(sent.joined(separator: " ")) -> \(describe(result))")
            switch result {
            case .success(_, let etag), .notModified(let etag): return (result, etag)
            default: return (result, nil)
            }
        }

        private mutating func describe(_ result: APIResult) -> String {
            switch result {
            case .success(let data, let etag):
                guard case .object(let envelope)? = JSONValue(parsing: data) else { return "success, not an envelope" }
                return "success \(canonical(envelope["data"] ?? .string("no data"))) etag \(etag.map { etagName($0) } ?? "none")"
            case .notModified(let etag):
                return "not modified, etag \(etag.map { etagName($0) } ?? "none")"
            case .rateLimited:
                // Its Retry-After follows the bucket's refill, which the stand-in times itself.
                return "rate limited"
            default:
                return "\(result)"
            }
        }

        /// The JSON with sorted keys, each id named, and times left out.
        private mutating func canonical(_ value: JSONValue) -> String {
            switch value {
            case .object(let object):
                var fields: [String] = []
                for key in object.keys.sorted() where !["created_at", "added"].contains(key) {
                    if key == "id", case .integer(let id)? = object[key] {
                        fields.append("id: \(name(id))")
                    } else {
                        fields.append("\(key): \(canonical(object[key]!))")
                    }
                }
                return "{" + fields.joined(separator: ", ") + "}"
            case .array(let array):
                var items: [String] = []
                for item in array { items.append(canonical(item)) }
                return "[" + items.joined(separator: ", ") + "]"
            case .string(let text): return "\"\(text)\""
            case .integer(let number): return "\(number)"
            case .number(let number): return "\(number)"
            case .bool(let bool): return "\(bool)"
            case .null: return "null"
            }
        }

        private mutating func name(_ id: Int64) -> String {
            if let index = ids.firstIndex(of: id) { return "#\(index + 1)" }
            ids.append(id)
            return "#\(ids.count)"
        }

        private mutating func etagName(_ etag: String) -> String {
            let isStrong = etag.wholeMatch(of: /"[0-9a-f]{32}"/) != nil
            if let index = etags.firstIndex(of: etag) { return "E\(index + 1)\(isStrong ? "" : " (not strong)")" }
            etags.append(etag)
            return "E\(etags.count)\(isStrong ? "" : " (not strong)")"
        }
    }
}

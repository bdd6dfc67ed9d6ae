import GitbayClient
import PushCore
import TestSupport
import Testing

/// Every `APIResult` case, end to end: the stand-in brought into the state that makes a real
/// gitbay give that answer, and the client's result for it.
@Suite struct GitbayClientStatusTests {
    /// Starts a stand-in with user `cmc`, prepares it, sends `command` with a token of `scope`
    /// (after `warmUp` commands, whose answers are dropped) and returns the last answer.
    private func answer(
        to command: GitbayCommand, stdin: String? = nil, scope: Standin.TokenScope = .full,
        warmUp: [GitbayCommand] = [], prepare: (Standin) async throws -> Void = { _ in }
    ) async throws -> APIResult {
        let standin = try await Standin.start()
        let client = try standin.client(token: try await standin.addUserWithToken("cmc", scope: scope))
        try await prepare(standin)
        for command in warmUp { _ = try await client.send(command) }
        let result = try await client.send(command, stdin: stdin)
        await standin.stop()
        return result
    }

    @Test func success() async throws {
        let result = try await answer(to: .whoami)
        #expect(try result.decode(Whoami.self).username == "cmc")
    }

    @Test func notModified() async throws {
        let standin = try await Standin.start()
        let client = try standin.client(token: try await standin.addUserWithToken("cmc"))
        let etag = try #require(try await standin.state().users.first?.etag)

        #expect(try await client.send(.dashboard, ifNoneMatch: etag) == .notModified(etag: etag))
        await standin.stop()
    }

    @Test func unknownTokenIsUnauthorized() async throws {
        let standin = try await Standin.start()
        try await standin.addUser("cmc")
        let client = try standin.client(token: "gb_" + String(repeating: "0", count: 40))

        #expect(try await client.send(.whoami) == .unauthorized(message: "invalid or expired token"))
        await standin.stop()
    }

    @Test func readScopedTokenWritingIsReadOnlyToken() async throws {
        let result = try await answer(to: .notificationsReadAll, scope: .read)
        guard case .readOnlyToken(let message) = result else { Issue.record("\(result)"); return }
        #expect(message.hasPrefix("this token is read-only"))
    }

    @Test func theWriteLimiterIsTooManyWrites() async throws {
        let result = try await answer(to: .notificationsReadAll, warmUp: [.notificationsReadAll]) {
            try await $0.configure(.init(writesPerMinute: 1))
        }
        guard case .tooManyWrites = result else { Issue.record("\(result)"); return }
    }

    @Test func anotherDenialIsForbidden() async throws {
        let result = try await answer(to: .whoami) {
            try await $0.addFault(.init(.status(403, body: #"{"protocol_version":1,"exit_code":4,"error":"admins only"}"#)))
        }
        #expect(result == .forbidden(message: "admins only"))
    }

    @Test func anUnknownIdIsNotFound() async throws {
        let result = try await answer(to: .deviceRemove(id: 999))
        #expect(result == .notFound(message: "no such device; see notifications device list"))
    }

    @Test func aDisabledAPIIsNotFound() async throws {
        let result = try await answer(to: .whoami) { try await $0.configure(.init(apiEnabled: false)) }
        guard case .notFound(let message) = result else { Issue.record("\(result)"); return }
        #expect(message.contains("[api] enabled"))
    }

    @Test func aBadCursorIsBadRequest() async throws {
        let result = try await answer(to: .notificationsList(limit: nil, cursor: "bogus"))
        #expect(result == .badRequest(message: "invalid cursor"))
    }

    @Test func anEmptyBucketIsRateLimitedWithRetryAfter() async throws {
        let result = try await answer(to: .whoami, warmUp: [.whoami]) {
            try await $0.configure(.init(readBurst: 1, readRefill: 0))
        }
        #expect(result == .rateLimited(retryAfter: 3600))
    }

    @Test func pushDisabledIsPushUnavailable() async throws {
        let result = try await answer(to: .deviceAdd(label: "gbnotifyd on test"), stdin: "install-token") {
            try await $0.configure(.init(pushEnabled: false))
        }
        guard case .pushUnavailable(let message) = result else { Issue.record("\(result)"); return }
        #expect(message.hasPrefix("this instance does not send push notifications"))
    }

    @Test func aBusyServerIsBusyWithRetryAfter() async throws {
        let result = try await answer(to: .whoami) { try await $0.configure(.init(busy: true)) }
        #expect(result == .busy(retryAfter: 60))
    }

    @Test func anythingElseIsServerError() async throws {
        let result = try await answer(to: .whoami) {
            try await $0.addFault(.init(.status(502, body: "<html>bad gateway</html>")))
        }
        guard case .serverError(502, _) = result else { Issue.record("\(result)"); return }
    }
}

private struct Whoami: Decodable {
    let username: String
}

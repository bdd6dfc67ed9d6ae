import GitbayClient
import PushCore
import TestSupport
import Testing

/// What the client puts on the wire, read back from the stand-in's request log.
@Suite struct GitbayClientRequestTests {
    @Test func aReadOnlyCommandIsAGetOfTheReadEndpoint() async throws {
        let standin = try await Standin.start()
        let token = try await standin.addUserWithToken("cmc")

        let result = try await standin.client(token: token).send(.notificationsList(limit: 5, cursor: nil))

        guard case .success(_, let etag) = result else { Issue.record("\(result)"); return }
        #expect(try result.decode(InboxPage.self) == InboxPage(items: [], next: nil))
        #expect(etag == (try await standin.state()).users.first?.etag)
        let logged = try #require(try await standin.requests().first)
        #expect(logged.method == "GET")
        #expect(logged.target == "/api/v1/read?argv=notifications&argv=list&argv=--limit&argv=5")
        #expect(logged.header("Authorization") == "Bearer \(token)")
        #expect(logged.header("User-Agent") == "gbnotify/\(GBNotify.version)")
        #expect(logged.header("Accept") == "application/json")
        #expect(logged.header("Accept-Encoding") == "gzip")
        #expect(logged.header("If-None-Match") == nil)
        await standin.stop()
    }

    @Test func aWriteIsAPostOfTheJSONBody() async throws {
        let standin = try await Standin.start()
        let token = try await standin.addUserWithToken("cmc")

        let result = try await standin.client(token: token)
            .send(.deviceAdd(label: "gbnotifyd on test"), stdin: "install-token")

        guard case .success(_, nil) = result else { Issue.record("\(result)"); return }
        #expect(try result.decode(DeviceRegistration.self) == DeviceRegistration(id: 1, status: "registered"))
        let logged = try #require(try await standin.requests().first)
        #expect(logged.method == "POST")
        #expect(logged.target == "/api/v1/cmd")
        #expect(logged.argv == ["notifications", "device", "add", "--label", "gbnotifyd on test"])
        #expect(logged.stdin == "install-token")
        #expect(logged.header("Content-Type") == "application/json")
        #expect(logged.header("Authorization") == "Bearer \(token)")
        await standin.stop()
    }

    @Test func theTokenTravelsOnlyInTheAuthorizationHeader() async throws {
        let standin = try await Standin.start()
        let token = try await standin.addUserWithToken("cmc")
        let client = try standin.client(token: token)

        _ = try await client.send(.whoami)
        _ = try await client.send(.notificationsReadAll)

        let logged = try await standin.requests()
        #expect(logged.count == 2)
        for request in logged {
            #expect(!request.target.contains(token))
            #expect(request.bodyText?.contains(token) != true)
            #expect(request.headers.filter { $0.last?.contains(token) == true }.map { $0.first } == ["Authorization"])
        }
        await standin.stop()
    }

    @Test func anETagThenIfNoneMatchIsNotModified() async throws {
        let standin = try await Standin.start()
        let token = try await standin.addUserWithToken("cmc")
        try await standin.addNotification(for: "cmc")
        let client = try standin.client(token: token)

        let first = try await client.send(.notificationsList(limit: nil, cursor: nil))
        guard case .success(_, let etag?) = first else { Issue.record("\(first)"); return }
        let second = try await client.send(.notificationsList(limit: nil, cursor: nil), ifNoneMatch: etag)
        try await standin.addNotification(for: "cmc")
        let third = try await client.send(.notificationsList(limit: nil, cursor: nil), ifNoneMatch: etag)

        #expect(second == .notModified(etag: etag))
        guard case .success(_, let newETag?) = third else { Issue.record("\(third)"); return }
        #expect(newETag != etag)
        #expect(try await standin.requests().map { $0.header("If-None-Match") } == [nil, etag, etag])
        await standin.stop()
    }

    @Test func gzipAnswersAreInflated() async throws {
        let standin = try await Standin.start()
        let token = try await standin.addUserWithToken("cmc")
        try await standin.addNotifications(for: "cmc", count: 30)

        let result = try await standin.client(token: token).send(.notificationsList(limit: nil, cursor: nil))

        let items = try result.decode([InboxItem].self)
        #expect(items.count == 30)
        #expect(try await standin.requests().first?.header("Accept-Encoding") == "gzip")
        await standin.stop()
    }
}

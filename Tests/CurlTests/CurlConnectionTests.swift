import Curl
import Foundation
import TestSupport
import Testing

/// Connections are kept and reused, and one session carries many transfers at once.
@Suite struct CurlConnectionTests {
    @Test func consecutiveRequestsReuseTheConnection() async throws {
        let standin = try await Standin.start()
        // A session of its own, so that no other test's connections crowd this one out of the cache.
        let session = HTTPSession()

        let first = try await session.perform(HTTPRequest(mayUseProxy: false, url: "\(standin.url)/"))
        let second = try await session.perform(HTTPRequest(mayUseProxy: false, url: "\(standin.url)/notifications"))

        #expect(!first.reusedConnection)
        #expect(second.reusedConnection)
        let logged = try await standin.requests()
        #expect(logged.count == 2)
        #expect(Set(logged.map(\.connection)).count == 1)
        #expect(logged.map(\.connectionRequest) == [1, 2])
        await standin.stop()
    }

    /// The fault the next test guards against, shown to happen: a POST on a kept connection
    /// that the server closes after reading it, unanswered, is sent a second time by libcurl of
    /// its own accord, on a new connection. For a comment that is a second post.
    @Test func libcurlResendsARequestWhoseReusedConnectionDiedUnanswered() async throws {
        let standin = try await Standin.start()
        let session = HTTPSession()
        let post = HTTPRequest(mayUseProxy: false, method: .post(body: Array(#"{"argv":["whoami"]}"#.utf8)), url: "\(standin.url)/api/v1/cmd")
        _ = try await session.perform(HTTPRequest(mayUseProxy: false, url: "\(standin.url)/"))
        try await standin.addFault(.init(.close, match: .init(pathPrefix: "/api/v1/cmd", method: "POST")))

        let answer = try await session.perform(post)

        #expect(answer.status == 401)
        let posts = try await standin.requests().filter { $0.method == "POST" }
        #expect(posts.map(\.fault) == ["close", nil])
        await standin.stop()
    }

    /// With `freshConnection` the same POST goes on a connection of its own, is sent once, and
    /// fails as one that may have reached the server.
    @Test func aFreshConnectionRequestIsNeverResent() async throws {
        let standin = try await Standin.start()
        let session = HTTPSession()
        let post = HTTPRequest(mayUseProxy: false, method: .post(body: Array(#"{"argv":["whoami"]}"#.utf8)), url: "\(standin.url)/api/v1/cmd")
        _ = try await session.perform(HTTPRequest(mayUseProxy: false, url: "\(standin.url)/"))
        try await standin.addFault(.init(.close, match: .init(pathPrefix: "/api/v1/cmd", method: "POST")))

        let error = await #expect(throws: CurlError.self) {
            try await session.perform(post, options: TransferOptions(freshConnection: true))
        }

        #expect(error?.wasNeverSent == false)
        let logged = try await standin.requests()
        #expect(logged.map(\.method) == ["GET", "POST"])
        #expect(logged[1].fault == "close")
        #expect(logged[0].connection != logged[1].connection)
        // The kept connection still serves what may be sent again.
        let read = try await session.perform(HTTPRequest(mayUseProxy: false, url: "\(standin.url)/"))
        #expect(read.reusedConnection)
        await standin.stop()
    }

    @Test func consecutiveHTTPSRequestsReuseTheConnection() async throws {
        let standin = try await Standin.start(tls: .fixtures)
        let session = HTTPSession()
        let options = TransferOptions(caFile: Standin.TLS.fixtures.caFile)

        let first = try await session.perform(HTTPRequest(mayUseProxy: false, url: "\(standin.url)/"), options: options)
        let second = try await session.perform(HTTPRequest(mayUseProxy: false, url: "\(standin.url)/notifications"), options: options)

        #expect(!first.reusedConnection)
        #expect(second.reusedConnection)
        let logged = try await standin.requests()
        #expect(Set(logged.map(\.connection)).count == 1)
        await standin.stop()
    }

    /// The certificate store is built once per session, not for every connection (each of which
    /// would hold its own: the system's CAs are about 0.9 MiB of it): a connection made after the
    /// CA file is gone still verifies the server, with the store the first one built.
    @Test func aSessionReadsItsCAFileOnceForAllItsConnections() async throws {
        let standin = try await Standin.start(tls: .fixtures)
        let session = HTTPSession()
        let caFile = FileManager.default.temporaryDirectory.appending(path: "gbnotify-test-ca-\(UUID().uuidString).pem").path
        try FileManager.default.copyItem(atPath: Standin.TLS.fixtures.caFile, toPath: caFile)
        let options = TransferOptions(caFile: caFile)

        let first = try await session.perform(HTTPRequest(mayUseProxy: false, url: "\(standin.url)/"), options: options)
        try FileManager.default.removeItem(atPath: caFile)
        // Another name for the same server (the certificate names both): a connection of its own.
        let otherName = standin.url.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let second = try await session.perform(HTTPRequest(mayUseProxy: false, url: "\(otherName)/"), options: options)

        #expect(first.status == 200)
        #expect(second.status == 200)
        #expect(!second.reusedConnection)
        #expect(Set(try await standin.requests().map(\.connection)).count == 2)
        await standin.stop()
    }

    @Test func twentyConcurrentRequestsAllCompleteTogether() async throws {
        let standin = try await Standin.start()
        // Every request waits a second at the server, so requests that ran one after another
        // would have shared one kept-alive connection; side by side, each needs its own.
        try await standin.addFault(.init(.delay(seconds: 1), times: 0))
        let url = standin.url

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await HTTPSession.shared.perform(HTTPRequest(mayUseProxy: false, url: "\(url)/?request=\(index)")).status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(statuses == Array(repeating: 200, count: 20))
        let requests = try await standin.requests()
        #expect(Set(requests.map(\.target)).count == 20)
        #expect(Set(requests.map(\.connection)).count == 20)
        await standin.stop()
    }

    /// Through an HTTP/2 front (nghttpx), twenty requests started together on a session with no
    /// connection yet wait for the one being set up and share it (CURLOPT_PIPEWAIT), rather
    /// than each opening one of its own.
    @Test func twentyConcurrentRequestsToAnHTTP2ServerShareOneConnection() async throws {
        let standin = try await Standin.start()
        let front = try await HTTP2Front.start(backendPort: standin.port)
        let session = HTTPSession()
        let (url, options) = (front.url, TransferOptions(caFile: front.caFile))

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await session.perform(HTTPRequest(mayUseProxy: false, url: "\(url)/?request=\(index)"), options: options).status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(statuses == Array(repeating: 200, count: 20))
        let logged = try await front.waitForRequests(20)
        #expect(logged.allSatisfy { $0.alpn == "h2" })
        #expect(front.connections().count == 1, "\(logged)")
        await front.stop()
        await standin.stop()
    }

    @Test func aReleasedSessionIsFreedWithItsThread() async throws {
        let standin = try await Standin.start()
        var session: HTTPSession? = HTTPSession()
        #expect(try await session?.perform(HTTPRequest(mayUseProxy: false, url: "\(standin.url)/")).status == 200)

        // Its loop thread holds only what it shares with the session, never the session itself,
        // so the last reference going away ends the session (and, through deinit, the thread).
        weak let released = session
        session = nil

        #expect(released == nil)
        await standin.stop()
    }
}

import Curl
import TestSupport
import Testing

/// Connections are kept and reused, and one session carries many transfers at once.
@Suite struct CurlConnectionTests {
    @Test func consecutiveRequestsReuseTheConnection() async throws {
        let standin = try await Standin.start()
        // A session of its own, so that no other test's connections crowd this one out of the cache.
        let session = HTTPSession()

        let first = try await session.perform(HTTPRequest(url: "\(standin.url)/"))
        let second = try await session.perform(HTTPRequest(url: "\(standin.url)/notifications"))

        #expect(!first.reusedConnection)
        #expect(second.reusedConnection)
        let logged = try await standin.requests()
        #expect(logged.count == 2)
        #expect(Set(logged.map(\.connection)).count == 1)
        #expect(logged.map(\.connectionRequest) == [1, 2])
        await standin.stop()
    }

    @Test func twentyConcurrentRequestsAllCompleteTogether() async throws {
        let standin = try await Standin.start()
        // Every request waits a second at the server: one after another they would take 20 s,
        // together little more than one (the bound leaves room for a loaded machine).
        try await standin.addFault(.init(.delay(seconds: 1), times: 0))
        let url = standin.url
        let clock = ContinuousClock()
        let started = clock.now

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await HTTPSession.shared.perform(HTTPRequest(url: "\(url)/?request=\(index)")).status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(statuses == Array(repeating: 200, count: 20))
        #expect(clock.now - started < .seconds(10))
        #expect(Set(try await standin.requests().map(\.target)).count == 20)
        await standin.stop()
    }

    @Test func aReleasedSessionIsFreedWithItsThread() async throws {
        let standin = try await Standin.start()
        var session: HTTPSession? = HTTPSession()
        #expect(try await session?.perform(HTTPRequest(url: "\(standin.url)/")).status == 200)

        // Its loop thread holds only what it shares with the session, never the session itself,
        // so the last reference going away ends the session (and, through deinit, the thread).
        weak let released = session
        session = nil

        #expect(released == nil)
        await standin.stop()
    }
}

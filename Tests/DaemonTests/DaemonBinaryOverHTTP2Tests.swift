import Foundation
import Glibc
import TestSupport
import Testing

/// The real `gbnotifyd` against an instance behind nghttpx, as a real instance is reached: its
/// polls go over HTTP/2, all on one connection.
@Suite struct DaemonBinaryOverHTTP2Tests {
    @Test func gbnotifydPollsOverHTTP2OnOneConnection() async throws {
        try await PrivateSession.run {
            let fixture = try await BinaryFixture.start(front: .h2AndHTTP1)
            let front = try #require(fixture.front)
            try await fixture.standin.addNotifications(for: "cmc", count: 2)
            let readiness = try NotifySocket(path: fixture.home.notifySocket)
            let daemon = try RunningDaemon(environment: fixture.home.environment)
            #expect(try await readiness.receive() == "READY=1\nSTATUS=Polling 1 account")
            try await daemon.waitForPoll(of: fixture.account, saying: "200 ok, 2 new")
            // SIGHUP polls again at once: each of these a 304, on the same connection.
            for count in 1...2 {
                daemon.send(SIGHUP)
                try await daemon.waitForPoll(of: fixture.account, saying: "304 not modified", count: count)
            }
            let polls = try await front.waitForRequests(3) { $0.path.hasPrefix("/api/v1/read?argv=notifications&argv=list") }
            #expect(polls.map(\.status) == [200, 304, 304])
            let requests = front.requests()
            #expect(requests.allSatisfy { $0.alpn == "h2" }, "\(requests)")
            #expect(front.connections().count == 1, "\(requests)")
            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            await fixture.finish()
        }
    }
}

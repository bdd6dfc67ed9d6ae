import Daemon
import DesktopSuites
import Foundation
import PushCore
import TestSupport
import Testing

/// The daemon's polls through nghttpx, as a real instance is reached: over HTTP/2 where the
/// front offers it, on one connection per instance, and nothing lost or shown twice when the
/// front retires a connection, resets a stream or restarts. (The other suites run their cases
/// through the front too, with `Harness.Wire`.)
@Suite(.needsDesktopSession) struct HTTP2FrontTests {
    private static let listMatch = Standin.Fault.Match(argvPrefix: ["notifications", "list"])

    @Test(arguments: [Harness.Wire.http2Front, .http1Front])
    func pollsGoOverTheOfferedProtocolOnOneConnectionPerInstance(_ wire: Harness.Wire) async throws {
        try await Harness.run(2, wire: wire) { harness in
            let supervisor = harness.supervisor()
            try await supervisor.start()
            for index in harness.instances.indices {
                try await harness.waitForListRequests(4, on: index)
            }
            for instance in harness.instances {
                let front = try #require(instance.front)
                let polls = try await front.waitForRequests(4) { $0.path.hasPrefix(Self.listPath) }
                #expect(polls.allSatisfy { $0.alpn == (wire == .http2Front ? "h2" : "http/1.1") }, "\(polls)")
                // The first poll a 200, the ones after it 304s, all on the first connection.
                #expect(polls.dropFirst().allSatisfy { $0.status == 304 }, "\(polls)")
                #expect(front.connections().count == 1, "\(front.requests())")
                #expect(try await front.openConnections() == 1)
            }
        }
    }

    /// Twenty accounts of one instance, started together, poll on one connection. (Requests
    /// started all at once before the connection is up, which the supervisor's start and resume
    /// spread too little to make sure of, are CurlConnectionTests' burst over HTTP/2.)
    @Test func everyAccountOfAnInstanceSharesOneConnection() async throws {
        try await Harness.run(1, wire: .http2Front) { harness in
            let instance = harness.instances[0]
            let front = try #require(instance.front)
            let users = (1..<20).map { "user\($0)" }
            var stored: [Account] = []
            do {
                for user in users {
                    let token = try await instance.standin.addUserWithToken(user)
                    try await SecretTool.store(instance: instance.account.instance.url, user: user, token: token)
                    stored.append(try Account(instance: instance.account.instance, username: user))
                }
                let supervisor = harness.supervisor()
                try await supervisor.start()
                let accounts = stored + [instance.account]
                for account in accounts {
                    try await harness.waitForEvents("a poll of \(account.displayName) answered") { event in
                        if case .polled(account, _, failed: false) = event { true } else { false }
                    }
                }
                let polls = front.listRequests()
                #expect(polls.count >= accounts.count)
                #expect(polls.allSatisfy { $0.alpn == "h2" })
                #expect(front.connections().count == 1, "\(front.requests())")
                #expect(try await front.openConnections() == 1)
            } catch {
                for user in users { try? await SecretTool.clear(instance: instance.account.instance.url, user: user) }
                throw error
            }
            for user in users { try await SecretTool.clear(instance: instance.account.instance.url, user: user) }
        }
    }

    /// nghttpx sends GOAWAY on a connection as its third request begins, so every third poll is
    /// under way when it comes: that poll is answered, the next goes on a new connection, and no
    /// notice is lost or shown twice.
    @Test func aGoawayInTheMiddleOfAPollLosesNothingAndTheNextPollTakesANewConnection() async throws {
        try await Harness.run(1, wire: .http2Front, frontOptions: .init(maxRequests: 3)) { harness in
            let instance = harness.instances[0]
            let front = try #require(instance.front)
            let supervisor = harness.supervisor()
            try await supervisor.start()
            try await harness.waitForListRequests(2, on: 0)
            var rows: [Int] = []
            for _ in 0..<3 {
                rows.append(try await instance.standin.addNotification(for: Harness.username))
                try await harness.desktop.waitForNotices(rows.count, for: instance.account)
                let seen = try await harness.listRequests(0).count
                try await harness.waitForListRequests(seen + 3, on: 0)
            }
            let requests = front.requests()
            #expect(front.connections().count >= 4, "\(requests)")
            #expect(requests.allSatisfy { $0.alpn == "h2" && ($0.status == 200 || $0.status == 304) }, "\(requests)")
            #expect(!harness.events.value.contains(where: DaemonEvent.isFailedPoll(of: instance.account)))
            let shown = harness.desktop.notices(for: instance.account).map(\.gist)
            #expect(shown == rows.map { .item(Int64($0)) })
        }
    }

    /// The stand-in breaks off an answer mid-body; nghttpx resets that stream and keeps the
    /// connection. The poll fails, the next one goes on the same connection, and the row is
    /// shown once.
    @Test func aResetStreamFailsThatPollOnlyAndTheConnectionGoesOn() async throws {
        try await Harness.run(1, wire: .http2Front) { harness in
            let instance = harness.instances[0]
            let front = try #require(instance.front)
            let supervisor = harness.supervisor()
            try await supervisor.start()
            try await harness.waitForListRequests(2, on: 0)
            try await instance.standin.addFault(.init(.truncate(bytes: 20), match: Self.listMatch))
            let row = try await instance.standin.addNotification(for: Harness.username)
            try await harness.waitForFailedPolls(1, of: instance.account)
            try await harness.desktop.waitForNotices(1, for: instance.account)
            let seen = try await harness.listRequests(0).count
            try await harness.waitForListRequests(seen + 2, on: 0)
            #expect(front.connections().count == 1, "\(front.requests())")
            #expect(harness.desktop.notices(for: instance.account).map(\.gist) == [.item(Int64(row))])
        }
    }

    @Test func aFrontRestartedUnderARunningDaemonIsPolledAgainOverHTTP2() async throws {
        try await Harness.run(1, wire: .http2Front) { harness in
            let instance = harness.instances[0]
            let front = try #require(instance.front)
            let supervisor = harness.supervisor()
            try await supervisor.start()
            try await front.waitForRequests(2) { $0.path.hasPrefix(Self.listPath) }
            try await front.restart()
            let row = try await instance.standin.addNotification(for: Harness.username)
            try await harness.desktop.waitForNotices(1, for: instance.account)
            let polled = front.listRequests().count
            try await front.waitForRequests(polled + 2) { $0.path.hasPrefix(Self.listPath) }
            let requests = front.requests()
            #expect(requests.allSatisfy { $0.alpn == "h2" })
            #expect(front.connections().count == 2, "\(requests)")
            #expect(try await front.openConnections() == 1)
            #expect(harness.desktop.notices(for: instance.account).map(\.gist) == [.item(Int64(row))])
        }
    }

    @Test func noConnectionStaysToAnInstanceWithNoAccountLeft() async throws {
        try await Harness.run(2, wire: .http2Front) { harness in
            let supervisor = harness.supervisor()
            try await supervisor.start()
            for index in harness.instances.indices {
                try await harness.waitForListRequests(2, on: index)
            }
            let front = try #require(harness.instances[0].front)
            #expect(try await front.openConnections() == 1)
            try await harness.removeFromKeyring(0)
            try await supervisor.reload()
            let gone = harness.instances[0].account
            try await harness.waitForEvents("\(gone.displayName) retired") { $0 == .retired(gone) }
            let deadline = ContinuousClock.now + .seconds(20)
            var open = try await front.openConnections()
            while open > 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                open = try await front.openConnections()
            }
            #expect(open == 0)
        }
    }

    private static let listPath = "/api/v1/read?argv=notifications&argv=list"
}

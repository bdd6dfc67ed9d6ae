import Daemon
import DesktopSuites
import Foundation
import PushCore
import Settings
import TestSupport
import Testing

/// One account's server misbehaves; the other account must not notice.
@Suite(.needsDesktopSession) struct FaultTests {
    private static let listMatch = Standin.Fault.Match(argvPrefix: ["notifications", "list"])

    @Test(arguments: [Harness.Wire.direct, .http2Front])
    func aRejectedTokenStopsThatAccountOnly(_ wire: Harness.Wire) async throws {
        try await Harness.run(wire: wire) { harness in
            let rejected = harness.instances[0]
            try await rejected.standin.addFault(.init(
                .status(401, body: #"{"protocol_version":1,"error":"invalid or expired token"}"#), times: 0))
            let supervisor = harness.supervisor()
            try await supervisor.start()
            try await harness.desktop.news.wait(for: "the rejected token") { $0.contains(.tokenRejected(rejected.account)) }

            let status = try await harness.status(of: 0, from: supervisor)
            #expect(status.state == .needsToken)
            #expect(status.nextPoll == nil)
            #expect(status.lastResult?.description == "401 unauthorized")
            #expect(status.lastError?.contains("HTTP 401") == true)
            let stoppedAt = try await rejected.standin.requests().count
            let seen = try await harness.listRequests(1).count
            try await harness.waitForListRequests(seen + 4, on: 1)
            #expect(try await rejected.standin.requests().count == stoppedAt)
            #expect(try await harness.status(of: 1, from: supervisor).state == .ok)

            // A reload tries again; the same token rejected again is not news to the user.
            let rejections = harness.events.value.count { $0 == .tokenRejected(rejected.account) }
            try await supervisor.reload()
            try await harness.waitForEvents("the token rejected", count: rejections + 1) { $0 == .tokenRejected(rejected.account) }
            // The next reload waits for that run of the loop to end, rejection handled.
            try await rejected.standin.clearFaults()
            try await supervisor.reload()
            #expect(harness.desktop.news.value.count { $0 == .tokenRejected(rejected.account) } == 1)

            // With the server accepting the token again, polling is back.
            try await harness.desktop.waitForUpdates(1, for: rejected.account)
            #expect(try await harness.status(of: 0, from: supervisor).state == .ok)
        }
    }

    @Test(arguments: [
        (429, #"{"protocol_version":1,"error":"rate limited; retry in 3s"}"#, "429 rate limited"),
        (503, #"{"protocol_version":1,"error":"server busy; retry later"}"#, "503 busy"),
        // gitbay's second write limiter: a 403 to be treated as a 429, not as a refusal.
        (403, #"{"protocol_version":1,"exit_code":4,"error":"too many writes: at most 60 a minute; retry in 3s"}"#, "403 too many writes"),
    ], [Harness.Wire.direct, .http2Front])
    func retryAfterDelaysThatAccountsNextRequest(_ answer: (status: Int, body: String, words: String), wire: Harness.Wire) async throws {
        let (status, body, words) = answer
        try await Harness.run(wire: wire) { harness in
            let limited = harness.instances[0]
            try await limited.standin.addFault(.init(
                .status(status, body: body, headers: ["Retry-After": "3"]), match: Self.listMatch))
            let supervisor = harness.supervisor(parts: Supervisor.Parts(timeline: harness.virtualTime(pollers: 2)))
            try await supervisor.start()

            try await harness.waitForFailedPolls(1, of: limited.account)
            let backingOff = try await harness.status(of: 0, from: supervisor)
            #expect(backingOff.state == .backingOff)
            #expect(backingOff.lastResult?.description == words)
            let requests = try await harness.waitForListRequests(3, on: 0)
            #expect(requests[0].status == status)
            try await harness.waitForAnsweredPolls(2, of: 0)
            #expect(try await harness.status(of: 0, from: supervisor).state == .ok)
            // On the clock the supervisor reads (the polls' times, as in virtual time nothing
            // moves while a request is out): the next request no sooner than Retry-After said,
            // and the other account at its own pace meanwhile.
            let refused = try #require(harness.loggedAt("\(limited.account.displayName): poll failed").first)
            let next = try #require(harness.answeredPolls(of: 0).first)
            #expect(next - refused >= .seconds(3), "the next request came \(next - refused) later")
            let polledMeanwhile = harness.answeredPolls(of: 1).filter { $0 > refused && $0 < next }
            #expect(polledMeanwhile.count >= 3, "\(polledMeanwhile.count) polls of the other account in 3 s")
        }
    }

    @Test func aStalledInstanceDelaysNoOtherAccount() async throws {
        try await Harness.run { harness in
            let (stalled, other) = (harness.instances[0], harness.instances[1])
            try await stalled.standin.addFault(.init(.stall, match: Self.listMatch))
            var settings = DaemonSettings.forTests
            settings.client.stallTimeout = .seconds(3)
            let supervisor = harness.supervisor(settings)
            try await supervisor.start()

            let requests = try await harness.waitForListRequests(2, on: 0)
            let (stallStart, retry) = (requests[0].time, requests[1].time)
            #expect(requests[0].fault == "stall")
            #expect(retry - stallStart >= 3.0, "the stalled request was given up after \(retry - stallStart) s")
            // The other account polled on while the first waited.
            #expect(harness.desktop.updates(for: other.account).count == 1)
            let polledMeanwhile = try await harness.listRequests(1).filter { $0.time > stallStart && $0.time < retry }
            #expect(polledMeanwhile.count >= 3, "\(polledMeanwhile.count) polls of the other account during a 3 s stall")
            #expect(harness.log.value.contains {
                $0.contains("\(stalled.account.displayName): poll failed: the server did not answer in time")
            })

            // And the stalled one recovers by itself (seen once the poll after the good one began).
            try await harness.desktop.waitForUpdates(1, for: stalled.account)
            try await harness.waitForListRequests(3, on: 0)
            #expect(try await harness.status(of: 0, from: supervisor).state == .ok)
        }
    }

    @Test func aLostNetworkIsRetriedUntilItComesBack() async throws {
        try await Harness.run(1) { harness in
            let instance = harness.instances[0]
            // Every connection dropped without an answer until the fault is cleared.
            try await instance.standin.addFault(.init(.close, match: Self.listMatch, times: 0))
            let supervisor = harness.supervisor()
            try await supervisor.start()
            try await harness.waitForFailedPolls(2, of: instance.account)
            let failing = try await harness.status(of: 0, from: supervisor)
            #expect(failing.state == .backingOff)
            #expect(failing.lastError?.contains("Empty reply from server") == true)

            let id = try await instance.standin.addNotification(for: Harness.username)
            try await instance.standin.clearFaults()
            let update = try #require(try await harness.desktop.waitForUpdates(1, for: instance.account).first)
            #expect(update.notices == [.summary(count: 1, isAtLeast: false, rowIDs: [Int64(id)], isFirstSight: true)])
            let polls = try await harness.listRequests(0).count
            try await harness.waitForListRequests(polls + 1, on: 0)
            let recovered = try await harness.status(of: 0, from: supervisor)
            #expect(recovered.state == .ok)
            #expect(recovered.lastError == nil)
        }
    }
}

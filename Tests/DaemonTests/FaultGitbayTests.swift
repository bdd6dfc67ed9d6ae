import Daemon
import DesktopSuites
import Foundation
import PushCore
import Settings
import Synchronization
import TestSupport
import Testing

/// The gitbay side fails in every way the fault catalogue (FaultCatalogue.md) lists, on one
/// account; the supervisor keeps going, the other account polls on untouched, and nothing is
/// lost or shown twice. Instance 0 is the faulty one, instance 1 the bystander. The waits
/// between polls, backoffs included, pass in virtual time (`Harness.virtualTime`): only a slow
/// answer, which is about libcurl's own timeouts, takes real time.
@Suite(.needsDesktopSession) struct FaultGitbayTests {
    private static let listMatch = Standin.Fault.Match(argvPrefix: ["notifications", "list"])

    @Test func aRefusedConnectionIsRetriedAndTouchesNoOtherAccount() async throws {
        try await Harness.run { harness in
            // Nothing listens on its port any more.
            await harness.instances[0].standin.stop()
            let supervisor = harness.supervisor(parts: Supervisor.Parts(timeline: harness.virtualTime(pollers: 2)))
            try await supervisor.start()

            try await harness.waitForFailedPolls(2, of: harness.instances[0].account)
            let failing = try await harness.status(of: 0, from: supervisor)
            #expect(failing.state == .backingOff)
            #expect(failing.lastError?.contains("could not connect to the server") == true, "\(failing.lastError ?? "")")
            try await harness.expectShowsNewRowsOnce(1, from: supervisor)
        }
    }

    @Test func aHostThatDoesNotResolveIsRetriedAndTouchesNoOtherAccount() async throws {
        try await Harness.run(1) { harness in
            let host = "https://gitbay-\(UUID().uuidString.lowercased()).invalid"
            try await ExtraAccount.with(instance: host, token: harness.instances[0].token) { unresolvable in
                let supervisor = harness.supervisor(
                    accounts: harness.keyringAccounts(including: [unresolvable.instance]),
                    parts: Supervisor.Parts(timeline: harness.virtualTime(pollers: 2)))
                try await supervisor.start()

                try await harness.waitForFailedPolls(2, of: unresolvable)
                let status = try #require(await supervisor.status().accounts.first { $0.id == unresolvable.id })
                #expect(status.state == .backingOff)
                #expect(status.lastError?.contains("could not resolve the server's host name") == true, "\(status.lastError ?? "")")
                try await harness.expectShowsNewRowsOnce(0, from: supervisor)
            }
        }
    }

    /// The instance's certificate does not verify against the CA the config names: refused,
    /// every time, and no request leaves over that connection, until a reload names the CA
    /// that does verify it.
    @Test(arguments: [
        UnverifiedCertificate(
            "a certificate of another CA", certificate: "server.pem", key: "server-key.pem",
            trusted: "other-ca.pem", verifying: "ca.pem"),
        UnverifiedCertificate(
            "a self-signed certificate", certificate: "self-signed.pem", key: "self-signed-key.pem",
            trusted: "ca.pem", verifying: "self-signed.pem"),
    ])
    func aCertificateThatDoesNotVerifyIsRefusedUntilTheConfigTrustsItsCA(_ tls: UnverifiedCertificate) async throws {
        try await Harness.run(1) { harness in
            let secure = try await Standin.start(tls: .init(
                certificateFile: tls.path(tls.certificate), keyFile: tls.path(tls.key), caFile: tls.path(tls.verifying)))
            let token = try await secure.addUserWithToken(Harness.username)
            let rows = try await secure.addNotifications(for: Harness.username, count: 2)
            try await ExtraAccount.with(instance: secure.url, token: token) { account in
                var settings = DaemonSettings.forTests
                settings.client.caFile = tls.path(tls.trusted)
                let current = Mutex(settings)
                let supervisor = harness.supervisor(
                    settings, loadSettings: { current.withLock { $0 } },
                    accounts: harness.keyringAccounts(including: [account.instance]), parts: Supervisor.Parts(timeline: harness.virtualTime(pollers: 2)))
                try await supervisor.start()

                try await harness.waitForFailedPolls(2, of: account)
                let refused = try #require(await supervisor.status().accounts.first { $0.id == account.id })
                #expect(refused.state == .backingOff)
                #expect(refused.lastError?.hasPrefix("TLS failure") == true, "\(refused.lastError ?? "")")
                #expect(try await secure.requests().isEmpty, "a request went out over an unverified connection")
                #expect(harness.desktop.updates(for: account).isEmpty)
                try await harness.expectShowsNewRowsOnce(0, from: supervisor)

                current.withLock { $0.client.caFile = tls.path(tls.verifying) }
                try await supervisor.reload()
                let notices = try await harness.desktop.waitForNotices(1, for: account)
                #expect(notices.map(\.gist) == [.firstSight(2, Int64(rows.last!))])
            }
            await secure.stop()
        }
    }

    /// One byte a second sits at the stall guard's floor (under 1 B/s for the stall timeout)
    /// and far inside the overall timeout: one of the two ends it, long before the answer would
    /// have come.
    @Test func anAnswerDrippingOneByteASecondIsGivenUpOnTime() async throws {
        try await Harness.run { harness in
            try await harness.instances[0].standin.addFault(.init(.drip(bytesPerSecond: 1), match: Self.listMatch))
            var settings = DaemonSettings.forTests
            settings.client.overallTimeout = .seconds(4)
            let supervisor = harness.supervisor(settings)
            try await supervisor.start()

            let requests = try await harness.waitForListRequests(2, on: 0)
            let (dripping, next) = (requests[0], requests[1])
            #expect(dripping.fault == "drip")
            #expect(next.time - dripping.time >= 2.0, "given up after \(next.time - dripping.time) s")
            #expect(harness.log.value.contains {
                $0.contains("\(harness.instances[0].account.displayName): poll failed: the server did not answer in time")
            })
            let polledMeanwhile = try await harness.listRequests(1, between: dripping.time, and: next.time)
            #expect(polledMeanwhile.count >= 2, "\(polledMeanwhile.count) polls of the other account in 2 s")
            try await harness.expectShowsNewRowsOnce(0, from: supervisor)
            try await harness.expectShowsNewRowsOnce(1, from: supervisor)
        }
    }

    /// A long run of 500s, in virtual time: a 0.5 s interval and a 2 s cap. The waits stay
    /// between the interval and the cap, reach the cap's window, and polling comes back at its
    /// usual pace once the server does.
    @Test func aLongRunOfServerErrorsBacksOffToTheCapAndRecovers() async throws {
        try await Harness.run { harness in
            let storm = harness.instances[0]
            try await storm.standin.addFault(.init(
                .status(500, body: #"{"protocol_version":1,"error":"internal error"}"#), match: Self.listMatch, times: 0))
            let rows = try await storm.standin.addNotifications(for: Harness.username, count: 2)
            let supervisor = harness.supervisor(parts: Supervisor.Parts(timeline: harness.virtualTime(pollers: 2)))
            try await supervisor.start()

            let failures = 10
            let failed = try await harness.waitForListRequests(failures, on: 0)
            try await harness.waitForFailedPolls(failures, of: storm.account)
            #expect(failed.allSatisfy { $0.status == 500 })
            #expect(try await harness.status(of: 0, from: supervisor).state == .backingOff)
            // The decided waits, as logged (whole seconds, rounded up): never above the cap, and
            // past the first failure's window (interval × 2 = 1 s) at some point.
            let waits = harness.log.value.compactMap { line -> Int? in
                guard line.contains("\(storm.account.displayName): poll failed"),
                      let range = line.range(of: "trying again in ") else { return nil }
                return Int(line[range.upperBound...].prefix { $0.isNumber })
            }
            #expect(waits.count >= failures - 1)
            #expect(waits.allSatisfy { $0 >= 1 && $0 <= 2 }, "\(waits)")
            #expect(waits.contains(2), "the backoff never grew past its first window: \(waits)")
            // Measured on the clock between the failures too: never faster than the interval.
            let failedAt = harness.loggedAt("\(storm.account.displayName): poll failed")
            let gaps = zip(failedAt, failedAt.dropFirst()).map { $1 - $0 }
            #expect(gaps.count >= failures - 1 && gaps.allSatisfy { $0 >= .milliseconds(500) }, "\(gaps)")
            #expect(harness.desktop.updates(for: storm.account).isEmpty)

            try await storm.standin.clearFaults()
            let notices = try await harness.desktop.waitForNotices(1, for: storm.account)
            #expect(notices.map(\.gist) == [.firstSight(2, Int64(rows.last!))])
            try await harness.expectShowsNewRowsOnce(0, from: supervisor)
            let back = try await harness.waitForListRequests(harness.listRequests(0).count + 3, on: 0).suffix(3)
            #expect(back.allSatisfy { $0.status == 200 || $0.status == 304 })
            try await harness.expectShowsNewRowsOnce(1, from: supervisor)
        }
    }

    /// Answers that arrive but cannot be used. Each is refused twice; the row waiting behind
    /// them is shown once the server answers properly again.
    @Test(arguments: [
        BadAnswer(
            "the connection closes mid-body", .truncate(bytes: 20),
            error: "the HTTP transfer failed"),
        BadAnswer(
            "truncated JSON", .status(200, body: #"{"protocol_version":1,"exit_code":0,"data":[{"id":9,"repo":"#),
            error: "server error (HTTP 200): the server answered HTTP 200 with"),
        BadAnswer(
            "valid JSON of the wrong shape", .status(200, body: #"{"protocol_version":1,"exit_code":0,"data":{"items":"all"}}"#),
            error: "the notifications list did not decode"),
        BadAnswer(
            "rows of the wrong shape", .status(200, body: #"{"protocol_version":1,"exit_code":0,"data":[{"id":"nine"}]}"#),
            error: "the notifications list did not decode"),
        BadAnswer(
            "a 2 MiB body", .bodyBytes(2 << 20),
            error: "the server's answer is larger than 1048576 bytes"),
        BadAnswer(
            "gzip that is not gzip", .badGzip,
            error: "the server's answer is labelled gzip but does not inflate"),
    ])
    func anUnusableAnswerIsAFailedPollNotACrash(_ bad: BadAnswer) async throws {
        try await Harness.run { harness in
            let broken = harness.instances[0]
            let row = try await broken.standin.addNotification(for: Harness.username)
            try await broken.standin.addFault(.init(bad.action, match: Self.listMatch, times: 2))
            let supervisor = harness.supervisor(parts: Supervisor.Parts(timeline: harness.virtualTime(pollers: 2)))
            try await supervisor.start()

            try await harness.waitForLog("\(broken.account.displayName): poll failed", occurrence: 2)
            let errors = harness.log.value.filter { $0.contains("\(broken.account.displayName): poll failed") }
            #expect(errors.allSatisfy { $0.contains(bad.error) }, "\(bad.name): \(errors)")
            let notices = try await harness.desktop.waitForNotices(1, for: broken.account)
            #expect(notices.map(\.gist) == [.firstSight(1, Int64(row))])
            try await harness.expectShowsNewRowsOnce(0, from: supervisor)
            try await harness.expectShowsNewRowsOnce(1, from: supervisor)
        }
    }

    /// A page with rows repeated and out of order: each new row shown once, oldest first; the
    /// same rows in the next (real) page are not news again.
    @Test func duplicatedAndReorderedRowsAreShownOnceInOrder() async throws {
        try await Harness.run { harness in
            let instance = harness.instances[0]
            let old = try await instance.standin.addNotifications(for: Harness.username, count: 2)
            let supervisor = harness.supervisor(parts: Supervisor.Parts(timeline: harness.virtualTime(pollers: 2)))
            try await supervisor.start()
            try await harness.desktop.waitForNotices(1, for: instance.account)

            let new = (old.last! + 1)...(old.last! + 3)
            let page = [new.upperBound, new.lowerBound, new.upperBound - 1, new.upperBound, new.lowerBound, old[0]]
            try await instance.standin.addFault(.init(
                .status(200, body: Self.envelope(rows: page), headers: ["ETag": #""0123456789abcdef0123456789abcdef""#]),
                match: Self.listMatch))
            try await harness.desktop.waitForNotices(4, for: instance.account)
            // The server gets the same rows for real, one of them twice.
            for id in new { try await instance.standin.addNotification(for: Harness.username, id: id) }
            try await instance.standin.addNotification(for: Harness.username, id: new.lowerBound)
            try await harness.expectShowsNewRowsOnce(0, from: supervisor)

            #expect(Array(harness.desktop.notices(for: instance.account).map(\.gist).dropFirst().prefix(3))
                == new.map { .item(Int64($0)) })
            #expect(harness.log.value.contains { $0.contains("\(instance.account.displayName): ignored 2 broken or already read rows") })
            try await harness.expectShowsNewRowsOnce(1, from: supervisor)
        }
    }

    /// gitbay's ids only grow; a row below the mark (a restored backup, a bad migration) is
    /// counted as unread but never shown, and later rows are shown as usual.
    @Test func aRowWithAnIDThatGoesBackwardsIsCountedButNotShown() async throws {
        try await Harness.run { harness in
            let instance = harness.instances[0]
            let first = try await instance.standin.addNotification(for: Harness.username, id: 10)
            let supervisor = harness.supervisor(parts: Supervisor.Parts(timeline: harness.virtualTime(pollers: 2)))
            try await supervisor.start()
            try await harness.desktop.waitForNotices(1, for: instance.account)

            try await instance.standin.addNotification(for: Harness.username, id: 7)
            let counted = try await harness.desktop.news.wait(for: "the unread count of 2") { events in
                RecordingDesktop.updates(in: events, for: instance.account).last?.unread == .exact(2)
            }
            #expect(RecordingDesktop.updates(in: counted, for: instance.account).last?.notices == [])
            try await harness.expectShowsNewRowsOnce(0, from: supervisor)
            #expect(harness.desktop.notices(for: instance.account).map(\.gist).first == .firstSight(1, Int64(first)))
            #expect(harness.desktop.notices(for: instance.account).count == 2)
            try await harness.expectShowsNewRowsOnce(1, from: supervisor)
        }
    }

    /// `notifications list`'s envelope around rows of the stand-in's default shape.
    private static func envelope(rows ids: [Int]) -> String {
        let rows = ids.map { id in
            #"{"id":\#(id),"repo":"krz/gitbay","kind":"issue","actor":"cmc","summary":"opened issue #\#(id)","#
                + #""path":"krz/gitbay/issues/\#(id)","created_at":"2026-09-20T10:11:12.123Z"}"#
        }
        return #"{"protocol_version":1,"exit_code":0,"data":[\#(rows.joined(separator: ","))]}"#
    }
}

/// One kind of unusable answer and the words its failure is logged with.
struct BadAnswer: Sendable, CustomTestStringConvertible {
    let name: String
    let action: Standin.Fault.Action
    let error: String

    init(_ name: String, _ action: Standin.Fault.Action, error: String) {
        self.name = name
        self.action = action
        self.error = error
    }

    var testDescription: String { name }
}

/// A TLS instance whose certificate the configured CA file does not verify, and the CA file
/// that does (files in Tests/Standin/tls).
struct UnverifiedCertificate: Sendable, CustomTestStringConvertible {
    let name: String
    let certificate, key, trusted, verifying: String

    init(_ name: String, certificate: String, key: String, trusted: String, verifying: String) {
        self.name = name
        self.certificate = certificate
        self.key = key
        self.trusted = trusted
        self.verifying = verifying
    }

    func path(_ file: String) -> String {
        "\(Standin.packageRoot)/Tests/Standin/tls/\(file)"
    }

    var testDescription: String { name }
}

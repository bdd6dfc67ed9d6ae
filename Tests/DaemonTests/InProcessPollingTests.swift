import Daemon
import Foundation
import PushCore
import Settings
import TestSupport
import Testing

/// The daemon's polling in this process, against in-memory gitbays on a manual clock
/// (`InProcessDaemon`), at the shipped config's intervals: what takes minutes or hours of a
/// real daemon's time takes milliseconds here. The same behaviour over HTTP, libcurl and the
/// stand-in is `PollingTests`, `FaultGitbayTests` and `WakeUpTests`; `FakeGitbayContractTests`
/// keeps the fake answering as the stand-in does.
@Suite struct InProcessPollingTests {
    static let list = ["notifications", "list"]
    /// The shipped poll interval, 30 s, varies by 10% either way.
    static let usualGap = Duration.seconds(27)...Duration.seconds(33)

    @Test func theTokenIsCheckedAndTheAccountRegisteredBeforeTheFirstPoll() async throws {
        try await InProcessDaemon.run { daemon in
            try await daemon.advance(until: "the first poll") { daemon.polls(of: 0).count == 1 }
            #expect(daemon.gitbays[0].requests.value.map(\.argv) == [
                ["whoami"], ["notifications", "device", "add", "--label", "gbnotifyd on test-host"], Self.list,
            ])
            #expect(daemon.events.value.contains { $0.event == .registered(daemon.accounts[0], deviceID: 1, words: "registered as device 1") })
        }
    }

    /// The supervisor and the pollers run where gbnotifyd runs them, on the loop's thread
    /// (`LoopActor`), not on Swift's global pool beside it: the model tested is the one that
    /// ships. Every event here is told by their code as it runs: registrations and polls by the
    /// pollers, the reload by the supervisor.
    @Test func theSupervisorAndThePollersRunOnTheLoopsThread() async throws {
        try await InProcessDaemon.run(accounts: 2) { daemon in
            try await daemon.advance(until: "two polls of each account") {
                daemon.polls(of: 0).count == 2 && daemon.polls(of: 1).count == 2
            }
            try await daemon.supervisor.reload()
            try await daemon.waitForEvent("the reload") { $0 == .reloading }
            let told = daemon.events.value
            #expect(told.contains { if case .registered = $0.event { true } else { false } })
            #expect(told.filter { !$0.onLoop }.map(\.event) == [])
        }
    }

    @Test func aNewRowIsShownOnceAndAnUnchangedInboxCostsA304() async throws {
        try await InProcessDaemon.run { daemon in
            let gitbay = daemon.gitbays[0]
            try await daemon.advance(until: "the first poll") { daemon.polls(of: 0).count == 1 }
            let id = gitbay.addNotification(actor: "noor")
            try await daemon.advance(until: "three more polls") { daemon.polls(of: 0).count == 4 }

            #expect(daemon.polls(of: 0).map(\.words) == ["200 ok", "200 ok, 1 new", "304 not modified", "304 not modified"])
            let notices = daemon.news.notices(for: daemon.accounts[0])
            #expect(notices.count == 1)
            guard case .item(let row)? = notices.first else {
                Issue.record("not an individual notice: \(notices)")
                return
            }
            #expect(row.id == id && row.actor == "noor")
            // Each poll sends the ETag of the last answer with a body, and a 304 keeps it.
            let lists = daemon.listRequests(0)
            #expect(lists.map(\.status) == [200, 200, 304, 304])
            #expect(lists[1].ifNoneMatch == lists[0].etag)
            #expect(lists[2].ifNoneMatch == lists[1].etag && lists[3].ifNoneMatch == lists[1].etag)
            #expect(Self.gaps(daemon.polls(of: 0)).allSatisfy(Self.usualGap.contains), "\(Self.gaps(daemon.polls(of: 0)))")
        }
    }

    /// Another account stored in the keyring (or one removed) reads the accounts again, and the
    /// ones it did not touch go on as they were: registered once, told to come back in 300 s
    /// and back no sooner. (Before, every account started afresh: at 250 accounts each keyring
    /// change cost 250 registrations and 250 polls, and forgot every backoff.)
    @Test func anAccountStoredInTheKeyringLeavesTheOthersRegistrationAndBackoffAlone() async throws {
        try await InProcessDaemon.run(accounts: 2, inKeyring: [0]) { daemon in
            try await daemon.advance(until: "account 0's first poll", polling: 1) { daemon.polls(of: 0).count == 1 }
            daemon.gitbays[0].fail(Self.list, with: .rateLimited(retryAfter: 300))
            try await daemon.advance(until: "the refused poll", polling: 1) { daemon.polls(of: 0).count == 2 }
            let refusedAt = daemon.polls(of: 0)[1].at
            await daemon.storeInKeyring(1)
            try await daemon.advance(until: "account 1's first poll and account 0's next", polling: 2) {
                !daemon.polls(of: 1).isEmpty && daemon.polls(of: 0).count == 3
            }
            #expect(daemon.polls(of: 0)[2].at - refusedAt >= .seconds(300), "\(daemon.polls(of: 0))")
            let registrations = daemon.gitbays[0].requests.value.count { $0.argv.starts(with: ["notifications", "device", "add"]) }
            #expect(registrations == 1)
        }
    }

    @Test(arguments: [
        (FakeGitbay.Failure.busy, Duration.seconds(60)),
        (FakeGitbay.Failure.rateLimited(retryAfter: 300), Duration.seconds(300)),
    ])
    func aServerThatSaysWhenToComeBackIsAskedAgainNoSooner(_ failure: FakeGitbay.Failure, retryAfter: Duration) async throws {
        try await InProcessDaemon.run { daemon in
            try await daemon.advance(until: "the first poll") { daemon.polls(of: 0).count == 1 }
            daemon.gitbays[0].fail(Self.list, with: failure)
            try await daemon.advance(until: "the refused poll and the next") { daemon.polls(of: 0).count == 3 }

            let polls = daemon.polls(of: 0)
            #expect(polls.map(\.failed) == [false, true, false])
            // Retry-After, plus up to a tenth so that every client told the same does not come
            // back at the same moment.
            let gap = polls[2].at - polls[1].at
            #expect(gap >= retryAfter && gap <= retryAfter * 1.1, "\(gap)")
        }
    }

    /// Server errors: each wait between the interval and the interval doubled per failure, never
    /// past `backoff-cap`; back to the interval once the server answers again.
    @Test func serverErrorsBackOffUpToTheCapAndRecover() async throws {
        var settings = DaemonSettings(config: .defaults)
        settings.backoffCap = 240
        try await InProcessDaemon.run(settings: settings) { daemon in
            try await daemon.advance(until: "the first poll") { daemon.polls(of: 0).count == 1 }
            let failures = 8
            daemon.gitbays[0].fail(Self.list, with: .internalError, times: failures)
            try await daemon.advance(until: "the failures and two polls after") { daemon.polls(of: 0).count == failures + 3 }

            let polls = daemon.polls(of: 0)
            #expect(polls.map(\.failed) == [false] + Array(repeating: true, count: failures) + [false, false])
            let gaps = Self.gaps(polls)
            for failure in 1...failures {
                let highest = min(Duration.seconds(30 * (1 << failure)), .seconds(240))
                #expect(gaps[failure] >= .seconds(30) && gaps[failure] <= highest, "after failure \(failure): \(gaps)")
            }
            #expect(gaps[1...failures].contains { $0 > .seconds(120) }, "the backoff never grew: \(gaps)")
            #expect(Self.usualGap.contains(gaps[failures + 1]), "\(gaps)")
        }
    }

    /// A refused connection means the network or the host is away, not a server in trouble:
    /// however long it lasts, the account tries again at least once a minute.
    @Test func anUnreachableServerIsTriedAgainAtLeastOnceAMinute() async throws {
        try await InProcessDaemon.run { daemon in
            try await daemon.advance(until: "the first poll") { daemon.polls(of: 0).count == 1 }
            daemon.gitbays[0].fail(Self.list, with: .unreachable, times: 10)
            try await daemon.advance(until: "the failures and a poll after") { daemon.polls(of: 0).count == 12 }

            let polls = daemon.polls(of: 0)
            #expect(polls.dropFirst().prefix(10).allSatisfy { $0.failed && $0.words == "no connection" })
            #expect(Self.gaps(polls).dropFirst().prefix(10).allSatisfy { $0 >= .seconds(30) && $0 <= .seconds(60) }, "\(Self.gaps(polls))")
        }
    }

    /// A revoked token stops its account's polling for good, said once; the other account
    /// polls on at its usual pace.
    @Test func aRejectedTokenStopsOnlyItsAccount() async throws {
        try await InProcessDaemon.run(accounts: 2) { daemon in
            try await daemon.advance(until: "the first polls") { daemon.polls(of: 0).count == 1 && daemon.polls(of: 1).count == 1 }
            daemon.gitbays[0].revokeToken()
            // Account 0 stops waiting once rejected: the daemon is idle with one account polling.
            try await daemon.advance(until: "the rejection", polling: 1) {
                daemon.events.value.contains { $0.event == .tokenRejected(daemon.accounts[0]) }
            }
            let asked = daemon.gitbays[0].requests.value.count
            // An hour on, in the other account's polls.
            try await daemon.advance(until: "an hour of the other account's polls", polling: 1) {
                daemon.polls(of: 1).last.map { $0.at >= .seconds(3_600) } ?? false
            }

            #expect(daemon.gitbays[0].requests.value.count == asked)
            #expect(daemon.polls(of: 0).map(\.words) == ["200 ok", "401 unauthorized"])
            #expect(daemon.news.rejectedTokens == [daemon.accounts[0]])
            #expect(Self.gaps(daemon.polls(of: 1)).allSatisfy(Self.usualGap.contains))
        }
    }

    /// A relay's wake-ups and handed payloads: a burst right after a poll is one poll, two
    /// seconds after that one, never twenty; the next burst is one more, two seconds on.
    @Test func wakeUpsOfOneAccountAreOnePollAtLeastTwoSecondsAfterTheLast() async throws {
        try await InProcessDaemon.run { daemon in
            let wakeUp = #"{"instance": "\#(daemon.accounts[0].instance.url)", "user": "cmc"}"#
            try await daemon.advance(until: "the first poll") { daemon.polls(of: 0).count == 1 }
            for burst in 2...3 {
                for _ in 1...20 { #expect(try await daemon.supervisor.deliver(wakeUp) == daemon.accounts[0]) }
                try await daemon.waitUntilPollDue(within: .seconds(2), after: burst - 1)
                try await daemon.advance(until: "poll \(burst)") { daemon.polls(of: 0).count == burst }
            }
            #expect(Self.gaps(daemon.polls(of: 0)) == [.seconds(2), .seconds(2)])
            #expect(await daemon.supervisor.status().deliveries == DeliveryCounts(wakeUps: 40))
        }
    }

    /// Offline, nothing polls, waits or fails, however long; back online, the account polls
    /// within `PollSchedule.returnWindow`, and after a resume from a suspend too.
    @Test func offlineNothingPollsAndBackOnlineOrAfterAResumeTheAccountPollsWithinTwoSeconds() async throws {
        try await InProcessDaemon.run { daemon in
            try await daemon.advance(until: "the first poll") { daemon.polls(of: 0).count == 1 }
            await daemon.supervisor.networkChanged(.offline)
            try await daemon.clock.waitUntilNothingSleeps()
            daemon.clock.advance(by: .seconds(3_600))
            #expect(daemon.polls(of: 0).count == 1)

            let online = daemon.clock.now.offset
            await daemon.supervisor.networkChanged(.online)
            try await daemon.waitUntilPollDue(within: .seconds(2), after: 1)
            try await daemon.advance(until: "the poll back online") { daemon.polls(of: 0).count == 2 }
            #expect(daemon.polls(of: 0)[1].at - online <= .seconds(2))

            // Ten seconds into the next wait, the machine sleeps and wakes up.
            daemon.clock.advance(by: .seconds(10))
            let resumed = daemon.clock.now.offset
            await daemon.supervisor.resumed()
            try await daemon.waitUntilPollDue(within: .seconds(2), after: 2)
            try await daemon.advance(until: "the poll after the resume") { daemon.polls(of: 0).count == 3 }
            #expect(daemon.polls(of: 0)[2].at - resumed <= .seconds(2))
            #expect(daemon.polls(of: 0).allSatisfy { !$0.failed })
        }
    }

    /// A keyring that cannot be read is waited for, read again with backoff, said in `status`;
    /// once it answers, the account polls.
    @Test func aLockedKeyringIsReadAgainUntilItAnswersAndThenTheAccountPolls() async throws {
        try await InProcessDaemon.run(keyringRefusals: 3) { daemon in
            #expect(await daemon.supervisor.status().keyringWaiting == "the collection is locked")
            try await daemon.advance(until: "the first poll") { daemon.polls(of: 0).count == 1 }
            #expect(await daemon.supervisor.status().keyringWaiting == nil)
            // Three refusals, each retried after at least the poll interval.
            #expect(daemon.polls(of: 0)[0].at >= .seconds(90), "\(daemon.polls(of: 0))")
            #expect(daemon.gitbays[0].requests.value.first?.argv == ["whoami"])
        }
    }

    /// The time between each poll and the one before it.
    static func gaps(_ polls: [(at: Duration, words: String, failed: Bool)]) -> [Duration] {
        zip(polls, polls.dropFirst()).map { $1.at - $0.at }
    }
}

import DBus
import Daemon
import Foundation
import PushCore
import TestSupport
import Testing

/// Payloads handed to the supervisor (as the relay stream and `Deliver` do), with a recording
/// presenter, against stand-ins and the session's real keyring.
@Suite struct DeliveryTests {
    /// Polls only when woken (or after an hour), so each test decides when a poll happens.
    static var wakeOnly: DaemonSettings {
        var settings = DaemonSettings.forTests
        settings.pollInterval = 3600
        return settings
    }

    static func notice(
        for account: Account, path: String = "krz/gitbay/issues/12", body: String = "noor opened issue #12",
        badge: Int? = nil
    ) -> String {
        """
        {"aps": {"alert": {"title": "krz/gitbay", "body": "\(body)"}, "badge": \(badge.map(String.init) ?? "null")},
         "path": "\(path)", "instance": "\(account.instance.url)", "user": "\(account.username)"}
        """
    }

    static func wakeUp(for account: Account) -> String {
        #"{"instance": "\#(account.instance.url)", "user": "\#(account.username)"}"#
    }

    /// A supervisor polling only when woken, whose first poll (a first sight) is done.
    static func started(_ harness: Harness) async throws -> Supervisor {
        let supervisor = harness.supervisor(wakeOnly)
        try await supervisor.start()
        try await harness.presenter.waitForUpdates(1, for: harness.instances[0].account)
        return supervisor
    }

    /// Wakes the account and waits until that poll is done: its result line is logged after
    /// its notices went to the presenter.
    static func poll(_ supervisor: Supervisor, _ harness: Harness, polls: Int) async throws {
        let account = harness.instances[0].account
        #expect(await supervisor.deliver(wakeUp(for: account), via: .relay) == .wokeUp)
        try await harness.waitForLog("\(account.displayName): 200 ok", occurrence: polls)
    }

    @Test func aDeliveredNoticeIsShownAndThePollThatFindsItsRowShowsItNotAgain() async throws {
        try await Harness.run(1) { harness in
            let account = harness.instances[0].account
            let supervisor = try await Self.started(harness)
            let id = try await harness.instances[0].standin.addNotification(
                for: Harness.username, repo: "krz/gitbay", kind: "issue", actor: "noor", summary: "opened issue #12",
                path: "krz/gitbay/issues/12")

            #expect(await supervisor.deliver(Self.notice(for: account), via: .relay) == .shown)
            let delivered = try #require(harness.presenter.delivered.value.first)
            #expect(delivered.notice == PushedNotice(
                account: account, destination: try #require(NotificationDestination(path: "krz/gitbay/issues/12")),
                text: "noor opened issue #12"))
            #expect(delivered.row == nil)

            try await Self.poll(supervisor, harness, polls: 2)
            #expect(harness.presenter.notices(for: account).isEmpty)
            // Paired: "Mark read" and withdrawal now know its inbox id.
            #expect(delivered.row?.id == Int64(id))
            #expect(await harness.presenter.onScreen(for: account) == [Int64(id)])
            #expect(await supervisor.status().deliveries == DeliveryCounts(shown: 1, wakeUps: 1))
        }
    }

    @Test func aNoticeAPollShowedIsAlreadyShownWhenItsPayloadComes() async throws {
        try await Harness.run(1) { harness in
            let account = harness.instances[0].account
            let supervisor = harness.supervisor()
            try await supervisor.start()
            try await harness.presenter.waitForUpdates(1, for: account)
            try await harness.instances[0].standin.addNotification(
                for: Harness.username, repo: "krz/gitbay", kind: "issue", actor: "noor", summary: "opened issue #12",
                path: "krz/gitbay/issues/12")
            try await harness.presenter.waitForNotices(1, for: account)

            #expect(await supervisor.deliver(Self.notice(for: account), via: .bus) == .alreadyShown)
            // The same payload by the other route too.
            #expect(await supervisor.deliver(Self.notice(for: account), via: .relay) == .alreadyShown)
            #expect(harness.presenter.delivered.value.isEmpty)
            #expect(await supervisor.status().deliveries == DeliveryCounts(alreadyShown: 2))
        }
    }

    @Test func theRowOfANoticeNoPollHasSeenIsLookedUp() async throws {
        try await Harness.run(1) { harness in
            let account = harness.instances[0].account
            let supervisor = try await Self.started(harness)
            let standin = harness.instances[0].standin
            try await standin.addNotification(
                for: Harness.username, repo: "krz/gitbay", kind: "issue", actor: "noor", summary: "opened issue #12",
                path: "krz/gitbay/issues/12")
            let id = try await standin.addNotification(
                for: Harness.username, repo: "krz/gitbay", kind: "issue", actor: "noor", summary: "closed issue #12",
                path: "krz/gitbay/issues/12")
            #expect(await supervisor.deliver(Self.notice(for: account, body: "noor closed issue #12"), via: .relay) == .shown)
            let delivered = try #require(harness.presenter.delivered.value.first)
            let lists = try await harness.listRequests(0).count

            #expect(await delivered.findRow()?.id == Int64(id))
            #expect(try await harness.listRequests(0).count == lists + 1)
            #expect(delivered.row?.id == Int64(id))
            // The poll shows the other row, and not the one looked up.
            try await Self.poll(supervisor, harness, polls: 2)
            let shown = harness.presenter.notices(for: account).compactMap { notice -> String? in
                guard case .item(let row) = notice else { return nil }
                return row.summary
            }
            #expect(shown == ["opened issue #12"])
        }
    }

    @Test func aNoticeThatCannotBeShownIsLeftToThePollItStarts() async throws {
        try await Harness.run(1) { harness in
            let account = harness.instances[0].account
            let presenter = RecordingPresenter(showsDelivered: false)
            let supervisor = harness.supervisor(Self.wakeOnly, presenter: presenter)
            try await supervisor.start()
            try await presenter.waitForUpdates(1, for: account)
            let id = try await harness.instances[0].standin.addNotification(
                for: Harness.username, repo: "krz/gitbay", kind: "issue", actor: "noor", summary: "opened issue #12",
                path: "krz/gitbay/issues/12")

            #expect(await supervisor.deliver(Self.notice(for: account), via: .relay) == .wokeUp)
            let notices = try await presenter.waitForNotices(1, for: account)
            guard case .item(let row) = notices.first else {
                Issue.record("not an individual notice: \(notices)")
                return
            }
            #expect(row.id == Int64(id))
        }
    }

    @Test func aWakeUpPollsTheAccountAtOnce() async throws {
        try await Harness.run(2) { harness in
            let supervisor = harness.supervisor(Self.wakeOnly)
            try await supervisor.start()
            try await harness.waitForListRequests(1, on: 0)
            try await harness.waitForListRequests(1, on: 1)
            #expect(await supervisor.deliver(Self.wakeUp(for: harness.instances[1].account), via: .relay) == .wokeUp)
            try await harness.waitForListRequests(2, on: 1)
            // Only the account woken.
            #expect(try await harness.listRequests(0).count == 1)
            #expect(await supervisor.status().deliveries == DeliveryCounts(wakeUps: 1))
        }
    }

    @Test func aPayloadsBadgeCountsUntilAPollSaysOtherwise() async throws {
        try await Harness.run(1) { harness in
            let account = harness.instances[0].account
            let supervisor = try await Self.started(harness)
            #expect(await supervisor.deliver(Self.notice(for: account, badge: 7), via: .relay) == .shown)
            #expect(harness.presenter.updates(for: account).last?.unread == .exact(7))
            #expect(try await harness.status(of: 0, from: supervisor).unread == 7)

            // The inbox is in fact empty: the next poll's 304 still sets the count right.
            try await harness.presenter.waitForUpdates(2, for: account)
            #expect(await supervisor.deliver(Self.wakeUp(for: account), via: .relay) == .wokeUp)
            try await harness.waitForLog("\(account.displayName): 304 not modified")
            #expect(try await harness.presenter.waitForUpdates(3, for: account).last?.unread == .exact(0))
        }
    }

    @Test func harmlessPayloadsAreDroppedWithAReasonAndCounted() async throws {
        try await Harness.run(1) { harness in
            let account = harness.instances[0].account
            let supervisor = try await Self.started(harness)
            let stranger = try Account(instance: GitbayInstance(parsing: "https://gitbay.example"), username: "cmc")
            let dropped: [(String, String)] = [
                (Self.notice(for: stranger), "no account here is cmc on https://gitbay.example"),
                (Self.wakeUp(for: stranger), "no account here is cmc on https://gitbay.example"),
                (Self.notice(for: try Account(instance: account.instance, username: "CMC")), "no account here is CMC"),
                (Self.notice(for: account, path: "../../etc/passwd"), "path is not of the form"),
                (Self.notice(for: account, path: "krz/gitbay/issues/../../../x"), "path is not of the form"),
                (Self.notice(for: account, path: "javascript:alert(1)"), "path is not of the form"),
                (Self.notice(for: account, body: String(repeating: "x", count: 1 << 20)), "over the limit of 8192"),
                ("<html>nope</html>", "not JSON"),
                ("", "not JSON"),
                ("[1, 2]", "not a JSON object"),
            ]
            for (payload, reason) in dropped {
                let outcome = await supervisor.deliver(payload, via: .relay)
                guard case .dropped(let said) = outcome else {
                    Issue.record("not dropped: \(outcome) for \(payload.prefix(80))")
                    continue
                }
                #expect(said.contains(reason), "\(said)")
                #expect(said.count < 300)
            }
            #expect(harness.presenter.delivered.value.isEmpty)
            #expect(harness.presenter.updates(for: account).count == 1)
            #expect(try await harness.listRequests(0).count == 1, "nothing woke the account")
            #expect(await supervisor.status().deliveries == DeliveryCounts(dropped: dropped.count))
            #expect(harness.log.value.count { $0.contains("dropped a payload from the relay") } == dropped.count)
        }
    }

    @Test func deliverOverTheBusAnswersWhatBecameOfThePayload() async throws {
        try await Harness.run(1) { harness in
            let account = harness.instances[0].account
            let supervisor = try await Self.started(harness)
            let server = try await DBusConnection.connect()
            let client = try await DBusConnection.connect()
            try await BusService.export(supervisor, on: server)
            func deliver(_ payload: String) async throws -> [DBusValue] {
                try await client.call(
                    destination: server.uniqueName, path: DaemonInterface.objectPath, interface: DaemonInterface.interface,
                    member: DeliverMethod.member, arguments: [.string(payload)])
            }

            #expect(try await deliver(Self.notice(for: account)).first?.stringValue == "shown")
            #expect(try await deliver(Self.notice(for: account)).first?.stringValue == "already_shown")
            #expect(try await deliver(Self.wakeUp(for: account)).first?.stringValue == "woke_up")
            do {
                _ = try await deliver(Self.notice(for: account, path: "javascript:alert(1)"))
                Issue.record("a payload with a javascript: path was not refused")
            } catch let error as DBusError {
                #expect(error.name == "org.gitbay.Notify1.Error.PayloadDropped")
                #expect(error.message == "the push payload's path is not of the form OWNER/REPO/(issues|mrs|builds)/N")
            }
            #expect(await supervisor.status().deliveries == DeliveryCounts(shown: 1, alreadyShown: 1, wakeUps: 1, dropped: 1))
            await client.close()
            await server.close()
        }
    }
}

import FoundationEssentials
import PushCore
import Testing

/// `gbnotifyd --events-fd` writes each event as a line of JSON that the tests read back: every
/// kind of event must come back as it was, and on one line.
@Suite struct DaemonEventTests {
    static let account = DesktopContentTests.account

    static let everyKind: [DaemonEvent] = [
        .polled(account, words: "200 ok, 2 new", failed: false),
        .polled(account, words: "timeout", failed: true),
        .registered(account, deviceID: 7, words: "registered as device 7"),
        .registered(account, deviceID: nil, words: "push is off on the instance"),
        .markedRead(account, [12, 3]),
        .keyringWaiting("waiting for the keyring to be unlocked"),
        .relayConnected(afterGap: true),
        .relayWoke(account, messageID: "m1"),
        .network(.offline),
        .tokenRejected(account),
        .retired(account),
        .reloading,
        .repositoryMuted(account, repository: "krz/noisy", muted: true),
        .answered(account, .reacted(path: "krz/gitbay/issues/12", reaction: "+1")),
        .answered(account, .replyKept(path: "krz/gitbay/mrs/31", reason: .notPosted(.offline("timeout")))),
        .reactionTakenBack(account, path: "krz/gitbay/issues/12", reaction: "+1"),
        .snoozed(until: 1_796_166_000),
        .snoozed(until: nil),
        .held(account, count: 2),
        .adopted(count: 3),
        .shown(account, .group(NoticeGroup.grouping([NoticeGroupTests.row(4), NoticeGroupTests.row(2)], of: account)[0]),
               notification: 5, replacing: 4),
        .shown(account, .summary(NoticeSummary(count: 4, isAtLeast: false, wording: .new, rowIDs: [1, 2])), notification: 6, replacing: nil),
        .shown(account, .tokenRejected, notification: 7, replacing: nil),
        .shown(account, .muted(repository: "krz/noisy", until: 1_789_905_617), notification: 8, replacing: 5),
        .shown(account, .said(.replied(path: "krz/gitbay/issues/12"), until: 1_789_905_617), notification: 9, replacing: nil),
        .withdrawn(notification: 5),
        .closedByServer(notification: 6, reason: 2),
        .clicked(notification: 5, action: "default"),
        .opened(["xdg-open", "https://gitbay.org/krz/gitbay/issues/4"]),
    ]

    @Test(arguments: everyKind)
    func anEventComesBackFromItsJSONLineAsItWas(_ event: DaemonEvent) throws {
        let line = try JSONEncoder().encode(event)
        #expect(!line.contains(UInt8(ascii: "\n")))
        #expect(line.first == UInt8(ascii: "{"))
        #expect(try JSONDecoder().decode(DaemonEvent.self, from: line) == event)
    }

    /// The events whose log line says what they say, and no more, give that line; the others
    /// (whose lines add an error, a pid or a local time) give none, so the daemon writes those
    /// lines itself.
    @Test func anEventsOwnLogLineSaysWhatItSays() {
        let name = Self.account.displayName
        let lines = Self.everyKind.compactMap { event in event.logLine.map { "<\($0.level.priority)>\($0.text)" } }
        #expect(lines == [
            "<6>\(name): marked notice 12, 3 read",
            "<4>waiting for the keyring: waiting for the keyring to be unlocked",
            "<7>\(name): woken up by relay message m1; polling soon",
            "<6>\(name): no longer polled",
            "<6>reloading the config and the accounts",
            "<6>\(name): muted krz/noisy on its instance",
            "<6>\(name): reacted +1 to krz/gitbay/issues/12",
            "<4>\(name): the reply to krz/gitbay/mrs/31 was not posted and is kept as a draft: the instance could not be reached (timeout)",
            "<6>\(name): took back +1 from krz/gitbay/issues/12",
            "<6>took over 3 notifications an earlier gbnotifyd left open",
            "<6>withdrew notification 5",
            "<7>notification 6 was closed by the server (reason 2)",
        ])
        #expect(DaemonEvent.adopted(count: 1).logLine?.text == "took over 1 notification an earlier gbnotifyd left open")
        #expect(DaemonEvent.repositoryMuted(Self.account, repository: "krz/noisy", muted: false).logLine?.text == "\(name): unmuted krz/noisy on its instance")
    }
}

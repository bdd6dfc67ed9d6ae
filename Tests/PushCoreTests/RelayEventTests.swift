import PushCore
import Testing

@Suite struct RelayEventTests {
    static func event(_ text: String) throws(RelayLineError) -> RelayEvent {
        try RelayEvent(line: Array(text.utf8))
    }

    @Test func readsOpenKeepaliveAndMessage() throws {
        #expect(try Self.event(#"{"id":"SLiKI64DOt","time":1635528757,"event":"open","topic":"t"}"#) == .open(time: 1_635_528_757))
        #expect(try Self.event(#"{"event":"open","time":"soon"}"#) == .open(time: nil))
        #expect(try Self.event(#"{"id":"DGUDShMCsc","time":1635528787,"event":"keepalive","topic":"t"}"#) == .keepalive)
        let message = try Self.event(#"""
            {"id":"hwQ2YpKdmg","time":1635528741,"event":"message","topic":"t","title":"x","priority":3,"message":"{\"a\":1}"}
            """#)
        #expect(message == .message(RelayMessage(id: "hwQ2YpKdmg", time: 1_635_528_741, topic: "t")))
    }

    @Test func unknownEventsAreNamedNotFailed() throws {
        #expect(try Self.event(#"{"id":"a","time":1,"event":"poll_request"}"#) == .other("poll_request"))
        #expect(try Self.event(#"{"event":"new\nthing"}"#) == .other("new thing"))
    }

    @Test(arguments: [
        ("not json", RelayLineError.notJSON),
        ("[1,2]", .notAnObject),
        (#"{"id":"a"}"#, .missingField("event")),
        (#"{"event":7}"#, .missingField("event")),
        (#"{"event":"message","time":1,"topic":"t"}"#, .missingField("id")),
        (#"{"event":"message","id":"a","topic":"t"}"#, .missingField("time")),
        (#"{"event":"message","id":"a","time":1}"#, .missingField("topic")),
        (#"{"event":"message","id":"a","time":1,"topic":5}"#, .missingField("topic")),
        (#"{"event":"message","id":"../x","time":1,"message":"m"}"#, .invalidID),
        (#"{"event":"message","id":"","time":1,"message":"m"}"#, .invalidID),
        (#"{"event":"message","id":"a&since=all","time":1,"message":"m"}"#, .invalidID),
    ])
    func badLinesAreClearErrors(_ line: String, _ expected: RelayLineError) {
        #expect(throws: expected) { try Self.event(line) }
    }

    @Test func aLineOverTheLimitIsRefusedUnparsed() {
        let line = Array(repeating: UInt8(ascii: " "), count: RelayEvent.maximumLineBytes + 1)
        #expect(throws: RelayLineError.tooLong(byteCount: RelayEvent.maximumLineBytes + 1)) {
            try RelayEvent(line: line)
        }
    }

    @Test func errorsNeverQuoteTheLine() {
        let secret = #"{"event":"message","id":"a","time":1,"message":null,"secret":"s3cr3t"}"#
        #expect(throws: RelayLineError.self) { try Self.event(secret) }
        do {
            _ = try Self.event(secret)
        } catch {
            #expect(!error.description.contains("s3cr3t"))
        }
    }

    @Test(arguments: ["hwQ2YpKdmg", "a", "A-b_9", String(repeating: "x", count: 64)])
    func validIDs(_ id: String) {
        #expect(RelayMessage.isValidID(id))
    }

    @Test(arguments: ["", "a b", "a/b", "a?b", "é", String(repeating: "x", count: 65)])
    func invalidIDs(_ id: String) {
        #expect(!RelayMessage.isValidID(id))
    }
}

@Suite struct RelayLineSplitterTests {
    static func lines(_ chunks: [String], limit: Int = 16) -> [RelayLineSplitter.Line] {
        var splitter = RelayLineSplitter(limit: limit)
        return chunks.flatMap { splitter.lines(in: Array($0.utf8)) }
    }

    static func line(_ text: String) -> RelayLineSplitter.Line { .line(Array(text.utf8)) }

    @Test func linesSplitAcrossChunksAreJoined() {
        #expect(Self.lines(["ab", "c\nde", "f\n", "\ng\r\n"]) == [Self.line("abc"), Self.line("def"), Self.line("g")])
    }

    @Test func oneChunkWithManyLines() {
        #expect(Self.lines(["a\nb\nc\n"]) == ["a", "b", "c"].map(Self.line))
    }

    @Test func anOversizedLineIsCountedAndTheNextOneStillRead() {
        let long = String(repeating: "x", count: 40)
        #expect(Self.lines(["ok\n" + long.prefix(10), long.dropFirst(10) + "\nnext\n"])
            == [Self.line("ok"), .oversized(byteCount: 40), Self.line("next")])
    }

    @Test func aLineOfExactlyTheLimitIsKept() {
        let exact = String(repeating: "y", count: 16)
        #expect(Self.lines([exact + "\n"]) == [Self.line(exact)])
        #expect(Self.lines([exact + "z\n"]) == [.oversized(byteCount: 17)])
    }

    @Test func anEndlessLineHoldsNoMoreThanTheLimit() {
        var splitter = RelayLineSplitter(limit: 16)
        for _ in 0..<1000 {
            #expect(splitter.lines(in: Array(repeating: UInt8(ascii: "z"), count: 1000)).isEmpty)
        }
        #expect(splitter.hasPartialLine)
        #expect(splitter.lines(in: Array("\n".utf8)) == [.oversized(byteCount: 1_000_000)])
        #expect(!splitter.hasPartialLine)
    }

    @Test func aPartialLineIsReported() {
        var splitter = RelayLineSplitter()
        _ = splitter.lines(in: Array("{\"event\":".utf8))
        #expect(splitter.hasPartialLine)
    }
}

@Suite struct RelayReconnectTests {
    static func delays(_ count: Int, uptime: Duration = .zero, seed: UInt64 = 1) -> [Duration] {
        var backoff = RelayBackoff()
        var random = SeededGenerator(state: seed)
        return (0..<count).map { _ in backoff.delay(afterConnectionLasting: uptime, random: &random) }
    }

    @Test func growsFromAQuarterSecondToAMinuteWithJitter() {
        for seed in UInt64(0)..<50 {
            let waits = Self.delays(12, seed: seed)
            for (index, wait) in waits.enumerated() {
                let ceiling = min(Duration.milliseconds(250) * (1 << index), .seconds(60))
                #expect(wait >= ceiling / 2 && wait <= ceiling, "failure \(index + 1): \(wait)")
            }
        }
    }

    @Test func jitterSpreadsClientsApart() {
        let firsts = Set((UInt64(0)..<20).map { Self.delays(6, seed: $0).last! })
        #expect(firsts.count > 10)
    }

    @Test func aHealthyConnectionResetsTheRun() {
        var backoff = RelayBackoff()
        var random = SeededGenerator(state: 3)
        for _ in 0..<10 { _ = backoff.delay(afterConnectionLasting: .seconds(1), random: &random) }
        #expect(backoff.consecutiveFailures == 10)
        let wait = backoff.delay(afterConnectionLasting: RelayBackoff.healthyConnection, random: &random)
        #expect(backoff.consecutiveFailures == 1)
        #expect(wait <= .milliseconds(250))
    }

    @Test func shortConnectionsKeepGrowing() {
        var backoff = RelayBackoff()
        var random = SeededGenerator(state: 4)
        for _ in 0..<20 { _ = backoff.delay(afterConnectionLasting: .seconds(29), random: &random) }
        #expect(backoff.delay(afterConnectionLasting: .seconds(29), random: &random) >= .seconds(30))
    }

    @Test func deadAfterTwoKeepalivesOfSilence() {
        let liveness = RelayLiveness()
        #expect(liveness.keepalivePeriod == .seconds(45))
        #expect(liveness.silenceLimit == .seconds(90))
        #expect(!liveness.isDead(afterSilence: .seconds(89)))
        #expect(liveness.isDead(afterSilence: .seconds(90)))
        #expect(RelayLiveness(keepalivePeriod: .seconds(1)).isDead(afterSilence: .seconds(2)))
    }
}

@Suite struct RelaySubscriptionTests {
    static let relay = try! GitbayInstance(parsing: "https://ntfy.example.org/base/")
    static let subscription = RelaySubscription(relay: relay, topics: ["def", "abc", "def"])!

    @Test func everyTopicOnceSortedAndNoneIsNoSubscription() {
        #expect(Self.subscription.topics == ["abc", "def"])
        #expect(RelaySubscription(relay: Self.relay, topics: []) == nil)
    }

    @Test func firstConnectionHasNoSince() {
        #expect(Self.subscription.url(from: .now) == "https://ntfy.example.org/base/abc,def/json")
    }

    @Test func resumesAfterTheLastID() {
        #expect(Self.subscription.url(from: .after("hwQ2YpKdmg")) == "https://ntfy.example.org/base/abc,def/json?since=hwQ2YpKdmg")
    }

    @Test func resumesFromATimeBeforeAnyMessage() {
        #expect(Self.subscription.url(from: .since(1_635_528_757)) == "https://ntfy.example.org/base/abc,def/json?since=1635528757")
        #expect(Self.subscription.url(from: .since(-5)) == "https://ntfy.example.org/base/abc,def/json?since=0")
    }

    @Test func anUnusableIDIsNotSent() {
        #expect(Self.subscription.url(from: .after("x&y")) == "https://ntfy.example.org/base/abc,def/json")
    }

    @Test func aCursorCountsForItsOwnRelayWhateverTheTopics() {
        let cursor = RelayCursor(relayURL: Self.relay.url, lastMessageID: "m3")
        #expect(Self.subscription.resumeID(from: cursor) == "m3")
        // An account came or went: the relay's message ids still say where to resume.
        #expect(RelaySubscription(relay: Self.relay, topics: ["other"])?.resumeID(from: cursor) == "m3")
        let elsewhere = try! GitbayInstance(parsing: "https://relay.example.org")
        #expect(RelaySubscription(relay: elsewhere, topics: ["abc"])?.resumeID(from: cursor) == nil)
        #expect(Self.subscription.resumeID(from: nil) == nil)
    }
}

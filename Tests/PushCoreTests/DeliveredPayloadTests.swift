import PushCore
import Testing

/// Telling a notice from a wake-up, and both from what is neither.
@Suite struct DeliveredPayloadTests {
    static let gitbay = try! GitbayInstance(parsing: "https://gitbay.org")

    @Test func aFullPayloadIsANotice() throws {
        let payload = try DeliveredPayload(json: PushPayloadTests.example.utf8)
        #expect(payload == .notice(try PushPayload(json: PushPayloadTests.example.utf8)))
    }

    @Test(arguments: [
        #"{"instance": "https://gitbay.org", "user": "cmc"}"#,
        #"{"instance": "https://GitBay.org:443/", "user": "cmc", "path": null, "aps": null}"#,
        // A field this build does not know is no reason to refuse a wake-up.
        #"{"instance": "https://gitbay.org", "user": "cmc", "sent_at": 1700000000}"#,
    ])
    func onlyInstanceAndUserIsAWakeUp(_ json: String) throws {
        #expect(try DeliveredPayload(json: json.utf8) == .wakeUp(instance: Self.gitbay, user: "cmc"))
    }

    @Test(arguments: [
        (#"{"instance": "https://gitbay.org"}"#, PayloadError.missingField("user")),
        (#"{"user": "cmc"}"#, .missingField("instance")),
        (#"{"instance": "https://gitbay.org", "user": ""}"#, .missingField("user")),
        (#"{"instance": "https://gitbay.org", "user": 7}"#, .wrongType(field: "user")),
        // A path or an aps makes it a notice, which then needs all of it.
        (#"{"instance": "https://gitbay.org", "user": "cmc", "aps": {}}"#, .missingField("path")),
        (#"{"instance": "https://gitbay.org", "user": "cmc", "path": 12}"#, .wrongType(field: "path")),
        ("not json", .notJSON),
        ("", .notJSON),
        (#"["instance", "user"]"#, .notAnObject),
        (#""wake up""#, .notAnObject),
    ])
    func anythingElseIsAnError(_ json: String, _ error: PayloadError) {
        #expect(throws: error) { try DeliveredPayload(json: json.utf8) }
    }

    @Test func aBadInstanceIsAnError() {
        #expect {
            try DeliveredPayload(json: #"{"instance": "ftp://gitbay.org", "user": "cmc"}"#.utf8)
        } throws: { error in
            if case .invalidInstance = error as? PayloadError { true } else { false }
        }
    }

    @Test func aMegabyteIsRefusedBeforeParsing() {
        let huge = #"{"instance": "https://gitbay.org", "user": "cmc", "pad": ""# + String(repeating: "x", count: 1 << 20) + #""}"#
        #expect(throws: PayloadError.tooLarge(byteCount: huge.utf8.count)) { try DeliveredPayload(json: huge.utf8) }
    }
}

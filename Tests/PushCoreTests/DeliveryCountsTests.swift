import FoundationEssentials
import PushCore
import Testing

/// The payload counts in `Status()` and `gbnotifyctl status`.
@Suite struct DeliveryCountsTests {
    static let status = DaemonStatus(
        version: "0.1.0", installTokenPrefix: "3fa9c2d1", uptimeSeconds: 42, configPath: "/c", accounts: [],
        deliveries: DeliveryCounts(shown: 5, alreadyShown: 2, wakeUps: 1, dropped: 3))

    @Test func theyRoundTripWithSnakeCaseKeys() throws {
        let data = try JSONEncoder().encode(Self.status)
        let text = String(decoding: data, as: UTF8.self)
        for key in ["deliveries", "shown", "already_shown", "wake_ups", "dropped"] {
            #expect(text.contains("\"\(key)\":"), "missing \(key)")
        }
        #expect(try JSONDecoder().decode(DaemonStatus.self, from: data) == Self.status)
    }

    @Test func anOlderDaemonWithoutThemReadsAsNoPayloads() throws {
        let status = try JSONDecoder().decode(DaemonStatus.self, from: Data("""
            {"version": "0.0.9", "install_token_prefix": "3fa9c2d1", "uptime_seconds": 5, "config_path": "/c", "accounts": []}
            """.utf8))
        #expect(status.deliveries == DeliveryCounts())
    }

    @Test func theTableSaysThemUnderTheDaemonOnceThereAreAny() {
        #expect(Self.status.renderText() == """
            gbnotifyd 0.1.0, up 42s
            install token 3fa9c2d1…, config /c
            payloads: 5 shown, 2 already shown, 1 wake-ups, 3 dropped

            No accounts. Add one with: gbnotifyctl account add URL

            """)
        let none = DaemonStatus(version: "0.1.0", installTokenPrefix: "3fa9c2d1", uptimeSeconds: 42, configPath: "/c", accounts: [])
        #expect(!none.renderText().contains("payloads"))
    }
}

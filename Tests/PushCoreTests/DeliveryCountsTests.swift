import FoundationEssentials
import PushCore
import Testing

/// The wake-up counts in `Status()` and `gbnotifyctl status`.
@Suite struct DeliveryCountsTests {
    static let status = DaemonStatus(
        version: "0.1.0", uptimeSeconds: 42, configPath: "/c", accounts: [],
        deliveries: DeliveryCounts(wakeUps: 5, dropped: 3))

    @Test func theyRoundTripWithSnakeCaseKeys() throws {
        let data = try JSONEncoder().encode(Self.status)
        let text = String(decoding: data, as: UTF8.self)
        for key in ["deliveries", "wake_ups", "dropped"] {
            #expect(text.contains("\"\(key)\":"), "missing \(key)")
        }
        #expect(try JSONDecoder().decode(DaemonStatus.self, from: data) == Self.status)
    }

    @Test func anOlderDaemonWithoutThemReadsAsNone() throws {
        let status = try JSONDecoder().decode(DaemonStatus.self, from: Data("""
            {"version": "0.0.9", "uptime_seconds": 5, "config_path": "/c", "accounts": []}
            """.utf8))
        #expect(status.deliveries == DeliveryCounts())
        #expect(status.network == .unknown)
        #expect(status.keyringWaiting == nil)
    }

    @Test func theTableSaysThemUnderTheDaemonOnceThereAreAny() {
        #expect(Self.status.renderText(at: 0, zone: .fixed(0)) == """
            gbnotifyd 0.1.0, up 42s, config /c
            wake-ups: 5 polled, 3 dropped

            No accounts. Add one with: gbnotifyctl account add URL

            """)
        let none = DaemonStatus(version: "0.1.0", uptimeSeconds: 42, configPath: "/c", accounts: [])
        #expect(!none.renderText(at: 0, zone: .fixed(0)).contains("wake-ups"))
    }
}

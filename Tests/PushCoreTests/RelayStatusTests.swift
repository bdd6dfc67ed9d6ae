import FoundationEssentials
import PushCore
import Testing

@Suite struct RelayStatusTests {
    static let connected = RelayStatus(
        url: "https://ntfy.example.org", connected: true, lastEvent: "2026-09-20T10:11:12Z",
        lastMessageID: "hwQ2YpKdmg", reconnects: 2, droppedLines: 1)

    static func status(relay: RelayStatus) -> DaemonStatus {
        DaemonStatus(version: "0.1.0", uptimeSeconds: 60, configPath: "/c", accounts: [], relay: relay)
    }

    @Test func roundTripsInsideTheDaemonStatus() throws {
        let status = Self.status(relay: Self.connected)
        #expect(try JSONDecoder().decode(DaemonStatus.self, from: JSONEncoder().encode(status)) == status)
    }

    @Test func keysAreSnakeCaseAndAbsentValuesAreNull() throws {
        let text = String(decoding: try JSONEncoder().encode(RelayStatus()), as: UTF8.self)
        for key in ["url", "connected", "last_event", "last_message_id", "reconnects", "dropped_lines", "last_error"] {
            #expect(text.contains("\"\(key)\":"), "missing \(key)")
        }
        #expect(text.contains(#""url":null"#))
    }

    @Test func anOlderDaemonWithoutARelayReadsAsNone() throws {
        let json = #"{"version":"0.1.0","install_token_prefix":"3fa9c2d1","uptime_seconds":1,"config_path":"/c","accounts":[]}"#
        #expect(try JSONDecoder().decode(DaemonStatus.self, from: Data(json.utf8)).relay == RelayStatus())
    }

    @Test func missingFieldsTakeTheirDefaults() throws {
        let relay = try JSONDecoder().decode(RelayStatus.self, from: Data(#"{"url":"https://r.org","connected":true}"#.utf8))
        #expect(relay == RelayStatus(url: "https://r.org", connected: true))
    }

    @Test func theTextShowsTheRelayOnlyWhenConfigured() {
        #expect(!Self.status(relay: RelayStatus()).renderText(at: 0, zone: .fixed(0)).contains("relay"))
        let text = Self.status(relay: Self.connected).renderText(at: 0, zone: .fixed(0))
        #expect(text.contains(
            "relay https://ntfy.example.org: connected, last event 2026-09-20T10:11:12Z, last message hwQ2YpKdmg, 2 reconnects, 1 dropped line\n"))
    }

    @Test func aDownRelayShowsItsErrorOnOneCleanLine() {
        let down = RelayStatus(url: "https://ntfy.example.org", lastError: "could not connect\n<3>forged")
        let text = Self.status(relay: down).renderText(at: 0, zone: .fixed(0))
        #expect(text.contains("relay https://ntfy.example.org: not connected, 0 reconnects, 0 dropped lines\n"))
        #expect(text.contains("  relay error: could not connect <3>forged\n"))
    }
}

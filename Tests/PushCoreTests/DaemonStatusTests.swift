import FoundationEssentials
import PushCore
import Testing

@Suite struct DaemonStatusTests {
    static let healthy = AccountStatus(
        id: "cmc@https://gitbay.org", instance: "https://gitbay.org", user: "cmc", state: .ok,
        lastPoll: "2026-09-20T10:11:12Z", lastResult: "304 not modified", nextPoll: "2026-09-20T10:11:42Z",
        unread: 3, deviceID: 7, lastError: nil)
    static let failing = AccountStatus(
        id: "bob@http://127.0.0.1:8080", instance: "http://127.0.0.1:8080", user: "bob", state: .needsToken,
        lastPoll: "2026-09-20T10:11:10Z", lastResult: "401", nextPoll: nil, unread: nil, deviceID: nil,
        lastError: "invalid or expired token")
    static let status = DaemonStatus(
        version: "0.1.0", uptimeSeconds: 7_500,
        configPath: "/home/cmc/.config/gbnotifyd/config", accounts: [healthy, failing])

    static func decode(_ json: String) throws -> DaemonStatus {
        try JSONDecoder().decode(DaemonStatus.self, from: Data(json.utf8))
    }

    // MARK: - JSON

    @Test func roundTrips() throws {
        let data = try JSONEncoder().encode(Self.status)
        #expect(try JSONDecoder().decode(DaemonStatus.self, from: data) == Self.status)
    }

    @Test func keysAreSnakeCaseAndAbsentValuesAreNull() throws {
        let data = try JSONEncoder().encode(Self.status)
        let text = String(decoding: data, as: UTF8.self)
        for key in ["version", "uptime_seconds", "config_path", "keyring_waiting", "network", "accounts",
                    "id", "instance", "user", "state", "last_poll", "last_result", "next_poll", "unread",
                    "device_id", "last_error", "popups_held"] {
            #expect(text.contains("\"\(key)\":"), "missing \(key)")
        }
        #expect(!text.contains("install_token"))
        #expect(text.contains(#""keyring_waiting":null"#))
        #expect(text.contains(#""network":"unknown""#))
        #expect(!text.contains("lastPoll"))
        #expect(text.contains(#""last_error":null"#))
        #expect(text.contains(#""next_poll":null"#))
        #expect(text.contains(#""state":"needs_token""#))
        #expect(text.contains(#""device_id":7"#))
    }

    @Test func unknownKeysAndStatesFromANewerDaemonAreTolerated() throws {
        let status = try Self.decode("""
            {"version": "9.0.0", "uptime_seconds": 5,
             "config_path": "/c", "relay": {"connected": true}, "accounts": [
              {"id": "cmc@https://gitbay.org", "instance": "https://gitbay.org", "user": "cmc",
               "state": "hibernating", "last_poll": null, "last_result": null, "next_poll": null,
               "unread": 2, "device_id": null, "last_error": null, "mood": "calm"}]}
            """)
        #expect(status.version == "9.0.0")
        #expect(status.accounts.first?.state == .unknown)
        #expect(status.accounts.first?.unread == 2)
    }

    @Test func missingOptionalValuesFromAnOlderDaemonAreNil() throws {
        let status = try Self.decode("""
            {"version": "0.0.9", "uptime_seconds": 5, "config_path": "/c",
             "accounts": [{"id": "a@https://x.org", "instance": "https://x.org", "user": "a", "state": "starting"}]}
            """)
        #expect(status.accounts == [AccountStatus(id: "a@https://x.org", instance: "https://x.org", user: "a", state: .starting)])
    }

    @Test(arguments: AccountState.allCases.filter { $0 != .unknown })
    func everyStateRoundTripsByItsRawValue(_ state: AccountState) throws {
        let data = try JSONEncoder().encode([state])
        #expect(try JSONDecoder().decode([AccountState].self, from: data) == [state])
        #expect(String(decoding: data, as: UTF8.self) == "[\"\(state.rawValue)\"]")
    }

    // MARK: - Text

    @Test func rendersATableThenTheErrors() {
        #expect(Self.status.renderText() == """
            gbnotifyd 0.1.0, up 2h 5m, config /home/cmc/.config/gbnotifyd/config

            ACCOUNT                    STATE        UNREAD  LAST POLL             RESULT            NEXT POLL
            cmc@gitbay.org             ok           3       2026-09-20T10:11:12Z  304 not modified  2026-09-20T10:11:42Z
            bob@http://127.0.0.1:8080  needs_token  -       2026-09-20T10:11:10Z  401               -

            Errors:
              bob@http://127.0.0.1:8080: invalid or expired token

            """)
    }

    @Test func heldPopupsAreSaidPerAccountBeforeTheErrors() {
        var status = Self.status
        status = DaemonStatus(
            version: status.version, uptimeSeconds: status.uptimeSeconds, configPath: status.configPath,
            accounts: status.accounts.map { account in
                var account = account
                if account.user == "cmc" { account.popupsHeld = "snoozed until 15:30" }
                return account
            })
        #expect(status.renderText().contains("""

            Popups held:
              cmc@gitbay.org: snoozed until 15:30

            Errors:
            """))
    }

    @Test func withoutAccountsItSaysHowToAddOne() {
        let status = DaemonStatus(version: "0.1.0", uptimeSeconds: 42, configPath: "/c", accounts: [])
        #expect(status.renderText() == """
            gbnotifyd 0.1.0, up 42s, config /c

            No accounts. Add one with: gbnotifyctl account add URL

            """)
    }

    @Test func whileTheKeyringIsWaitedForNoAccountsIsNotSaid() {
        let status = DaemonStatus(
            version: "0.1.0", uptimeSeconds: 42, configPath: "/c",
            keyringWaiting: "the keyring is locked", accounts: [])
        #expect(status.renderText() == """
            gbnotifyd 0.1.0, up 42s, config /c
            waiting for the keyring: the keyring is locked

            No accounts read yet.

            """)
    }

    @Test func offlineIsSaidAndEachAccountSaysIt() throws {
        var account = Self.healthy
        account.state = .offline
        let status = DaemonStatus(version: "0.1.0", uptimeSeconds: 42, configPath: "/c", network: .offline, accounts: [account])
        let text = status.renderText()
        #expect(text.hasPrefix("gbnotifyd 0.1.0, up 42s, config /c\noffline: nothing polls until the network is back\n"))
        #expect(text.contains("cmc@gitbay.org  offline"))
        #expect(try Self.decode(String(decoding: JSONEncoder().encode(status), as: UTF8.self)).network == .offline)
    }

    @Test func serverTextCannotBreakTheOutput() {
        var account = Self.healthy
        account.lastError = "line one\nline two\u{1B}[31m red"
        let status = DaemonStatus(version: "0.1.0", uptimeSeconds: 0, configPath: "/c", accounts: [account])
        let text = status.renderText()
        #expect(!text.contains("\u{1B}"))
        #expect(text.contains("  cmc@gitbay.org: line one line two [31m red\n"))
    }

    @Test(arguments: [(0, "0s"), (59, "59s"), (61, "1m 1s"), (3_600, "1h 0m"), (7_500, "2h 5m"), (90_061, "1d 1h")])
    func uptimeUsesTheTwoLargestUnits(_ seconds: Int, _ text: String) {
        let status = DaemonStatus(version: "1", uptimeSeconds: seconds, configPath: "/c", accounts: [])
        #expect(status.renderText().hasPrefix("gbnotifyd 1, up \(text), config /c\n"))
    }
}

import FoundationEssentials
import PushCore
import Testing

@Suite struct DaemonStatusTests {
    static let healthy = AccountStatus(
        id: "cmc@https://gitbay.org", instance: "https://gitbay.org", user: "cmc", state: .ok,
        lastPoll: "2026-09-20T10:11:12Z", lastResult: PollResult(.notModified, httpStatus: 304), nextPoll: "2026-09-20T10:11:42Z",
        unread: 3, deviceID: 7, lastError: nil)
    static let failing = AccountStatus(
        id: "bob@http://127.0.0.1:8080", instance: "http://127.0.0.1:8080", user: "bob", state: .needsToken,
        lastPoll: "2026-09-20T10:11:10Z", lastResult: PollResult(.unauthorized, httpStatus: 401), nextPoll: nil, unread: nil, deviceID: nil,
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
        #expect(Self.status.renderText(at: 0, zone: .fixed(0)) == """
            gbnotifyd 0.1.0, up 2h 5m, config /home/cmc/.config/gbnotifyd/config

            ACCOUNT                    STATE        UNREAD  LAST POLL             RESULT            NEXT POLL
            cmc@gitbay.org             ok           3       2026-09-20T10:11:12Z  304 not modified  2026-09-20T10:11:42Z
            bob@http://127.0.0.1:8080  needs_token  -       2026-09-20T10:11:10Z  401 unauthorized  -

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
        #expect(status.renderText(at: 0, zone: .fixed(0)).contains("""

            Popups held:
              cmc@gitbay.org: snoozed until 15:30

            Errors:
            """))
    }

    @Test func withoutAccountsItSaysHowToAddOne() {
        let status = DaemonStatus(version: "0.1.0", uptimeSeconds: 42, configPath: "/c", accounts: [])
        #expect(status.renderText(at: 0, zone: .fixed(0)) == """
            gbnotifyd 0.1.0, up 42s, config /c

            No accounts. Add one with: gbnotifyctl account add URL

            """)
    }

    @Test func whileTheKeyringIsWaitedForNoAccountsIsNotSaid() {
        let status = DaemonStatus(
            version: "0.1.0", uptimeSeconds: 42, configPath: "/c",
            keyringWaiting: "the keyring is locked", accounts: [])
        #expect(status.renderText(at: 0, zone: .fixed(0)) == """
            gbnotifyd 0.1.0, up 42s, config /c
            waiting for the keyring: the keyring is locked

            No accounts read yet.

            """)
    }

    @Test func offlineIsSaidAndEachAccountSaysIt() throws {
        var account = Self.healthy
        account.state = .offline
        let status = DaemonStatus(version: "0.1.0", uptimeSeconds: 42, configPath: "/c", network: .offline, accounts: [account])
        let text = status.renderText(at: 0, zone: .fixed(0))
        #expect(text.hasPrefix("gbnotifyd 0.1.0, up 42s, config /c\noffline: nothing polls until the network is back\n"))
        #expect(text.contains("cmc@gitbay.org  offline"))
        #expect(try Self.decode(String(decoding: JSONEncoder().encode(status), as: UTF8.self)).network == .offline)
    }

    @Test func serverTextCannotBreakTheOutput() {
        var account = Self.healthy
        account.lastError = "line one\nline two\u{1B}[31m red"
        let status = DaemonStatus(version: "0.1.0", uptimeSeconds: 0, configPath: "/c", accounts: [account])
        let text = status.renderText(at: 0, zone: .fixed(0))
        #expect(!text.contains("\u{1B}"))
        #expect(text.contains("  cmc@gitbay.org: line one line two [31m red\n"))
    }

    @Test(arguments: [(0, "0s"), (59, "59s"), (61, "1m 1s"), (3_600, "1h 0m"), (7_500, "2h 5m"), (90_061, "1d 1h")])
    func uptimeUsesTheTwoLargestUnits(_ seconds: Int, _ text: String) {
        let status = DaemonStatus(version: "1", uptimeSeconds: seconds, configPath: "/c", accounts: [])
        #expect(status.renderText(at: 0, zone: .fixed(0)).hasPrefix("gbnotifyd 1, up \(text), config /c\n"))
    }

    // MARK: - Facts beside the words

    /// The words scripts read (`last_result`, `popups_held`, `keyring_waiting`) stay as they
    /// were; the facts `gbnotifyctl status` words for a person come beside them.
    @Test func theJSONCarriesTheFactsBesideTheEnglishWords() throws {
        var account = Self.healthy
        account.lastResult = PollResult(.ok, httpStatus: 200, newNotices: 2)
        account.popupsHeld = "quiet hours until 07:30"
        account.hold = Hold(reason: .quietHours, until: 1_790_000_000)
        let status = DaemonStatus(
            version: "1", uptimeSeconds: 1, configPath: "/c", keyringWaiting: KeyringWait.unlock.description, keyringWait: .unlock,
            accounts: [account])
        let text = String(decoding: try JSONEncoder().encode(status), as: UTF8.self)
        for pair in [#""last_result":"200 ok, 2 new""#, #""last_result_status":200"#, #""last_result_outcome":"ok""#,
                     #""last_result_new":2"#, #""popups_held":"quiet hours until 07:30""#, #""popups_held_reason":"quiet_hours""#,
                     #""popups_held_until":1790000000"#, #""keyring_wait":"unlock""#,
                     #""keyring_waiting":"waiting for the keyring to be unlocked: type its password"#] {
            #expect(text.contains(pair), "missing \(pair) in \(text)")
        }
        #expect(try Self.decode(text) == status)
    }

    /// `last_result` as the daemon worded it before the facts: each outcome's words.
    @Test(arguments: [
        (PollResult(.ok, httpStatus: 200), "200 ok"), (PollResult(.ok, httpStatus: 200, newNotices: 1), "200 ok, 1 new"),
        (PollResult(.ok, httpStatus: 200, newNotices: 5), "200 ok, 5 new"), (PollResult(.unreadable, httpStatus: 200), "200 unreadable"),
        (PollResult(.notModified, httpStatus: 304), "304 not modified"), (PollResult(.unauthorized, httpStatus: 401), "401 unauthorized"),
        (PollResult(.readOnlyToken, httpStatus: 403), "403 read-only token"), (PollResult(.tooManyWrites, httpStatus: 403), "403 too many writes"),
        (PollResult(.denied, httpStatus: 403), "403 denied"), (PollResult(.notFound, httpStatus: 404), "404 not found"),
        (PollResult(.badRequest, httpStatus: 400), "400 bad request"), (PollResult(.rateLimited, httpStatus: 429), "429 rate limited"),
        (PollResult(.pushUnavailable, httpStatus: 500), "500 push unavailable"), (PollResult(.busy, httpStatus: 503), "503 busy"),
        (PollResult(.serverError, httpStatus: 502), "502 server error"), (PollResult(.redirect, httpStatus: 301), "301 redirect"),
        (PollResult(.timeout, httpStatus: nil), "timeout"), (PollResult(.noConnection, httpStatus: nil), "no connection"),
        (PollResult(.unknownHost, httpStatus: nil), "unknown host"), (PollResult(.tlsFailure, httpStatus: nil), "TLS failure"),
        (PollResult(.transferFailed, httpStatus: nil), "transfer failed"),
    ])
    func everyResultKeepsItsEnglishWords(_ result: PollResult, _ words: String) throws {
        #expect(result.description == words)
        var account = Self.healthy
        account.lastResult = result
        let data = try JSONEncoder().encode(account)
        #expect(try JSONDecoder().decode(AccountStatus.self, from: data).lastResult == result)
    }

    /// An older daemon sent the words alone, a newer one may send an outcome this build does
    /// not know: the words are shown as they came.
    @Test func aResultKnownOnlyByItsWordsIsShownAsItCame() throws {
        let json = """
            {"version": "1", "uptime_seconds": 1, "config_path": "/c", "accounts": [
              {"id": "a@https://x.org", "instance": "https://x.org", "user": "a", "state": "ok",
               "last_result": "599 odd", "last_result_status": 599, "last_result_outcome": "odd",
               "popups_held": "snoozed until 15:30", "popups_held_reason": "dozing", "popups_held_until": 5}]}
            """
        let status = try Self.decode(json)
        #expect(status.accounts.first?.lastResult == PollResult(said: "599 odd", httpStatus: 599))
        #expect(status.accounts.first?.hold == nil)
        let text = status.renderText(at: 0, zone: .fixed(0))
        #expect(text.contains("  599 odd  "), "\(text)")
        #expect(text.contains("a@x.org: snoozed until 15:30"), "\(text)")
    }

    /// The hold is worded from its facts, as seen from where `status` runs, not from the
    /// daemon's words.
    @Test func aHoldIsWordedFromItsFacts() {
        var account = Self.healthy
        account.popupsHeld = "the daemon's words"
        account.hold = Hold(reason: .quietHours, until: 86_400 + 7 * 3600 + 30 * 60)
        let status = DaemonStatus(version: "1", uptimeSeconds: 1, configPath: "/c", accounts: [account])
        #expect(status.renderText(at: 3600, zone: .fixed(0)).contains("\n  cmc@gitbay.org: quiet hours until tomorrow 07:30\n"))
    }

    @Test func aKeyringStepIsSaidAsWhatToDo() {
        let status = DaemonStatus(
            version: "1", uptimeSeconds: 1, configPath: "/c", keyringWaiting: KeyringWait.access.description, keyringWait: .access,
            accounts: [])
        #expect(status.renderText(at: 0, zone: .fixed(0)) == """
            gbnotifyd 1, up 1s, config /c
            waiting for the keyring to allow access: choose Allow in the keyring's access dialog (Deny refuses)

            No accounts read yet.

            """)
    }
}

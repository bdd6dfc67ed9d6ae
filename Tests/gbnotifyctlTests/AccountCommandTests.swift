import DesktopSuites
import Foundation
import Testing
import TestSupport

/// `gbnotifyctl account add|list|remove` against the stand-in and the session's real keyring.
/// Each test has its own stand-in, so its own instance URL and accounts: tests cannot collide in
/// the shared keyring.
@Suite(.needsDesktopSession) struct AccountCommandTests {
    /// Also through the HTTP/2 front, where registration and deregistration go over h2.
    @Test(arguments: [HTTP2Front.Protocols?.none, .h2AndHTTP1])
    func addListRemoveRoundTrip(front protocols: HTTP2Front.Protocols?) async throws {
        let (standin, token) = try await standinWithUser()
        let ctl = try Ctl()
        var front: HTTP2Front?
        if let protocols {
            front = try await HTTP2Front.start(backendPort: standin.port, .init(protocols: protocols))
            try ctl.writeConfig("ca-file = \(Standin.TLS.fixtures.caFile)\n")
        }
        let url = front?.url ?? standin.url
        let host = url.replacingOccurrences(of: "http://", with: "").replacingOccurrences(of: "https://", with: "")

        let added = try await ctl.run(["account", "add", url], stdin: token + "\n")
        #expect(added.status == 0, "\(added.stderr)")
        let state = try await standin.state()
        let device = try #require(state.devices.first)
        #expect(added.stdout == "Added cmc@\(host) (registered as device \(device.id)).\n")
        #expect(device.username == "cmc")
        #expect(device.label.hasPrefix("gbnotifyd on "))
        // The account's own device token, kept in its state, is what was registered.
        let saved = try String(contentsOf: ctl.stateDirectory.appendingPathComponent("accounts.json"), encoding: .utf8)
        #expect(saved.contains(#""deviceToken":"\#(device.token)""#))
        #expect(try await SecretTool.lookup(instance: url, user: "cmc") == token)

        let listed = try await ctl.run(["account", "list", "--json"])
        #expect(listed.status == 0)
        let rows = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]]
        let row = try #require(rows?.first { $0["instance"] as? String == url })
        #expect(row["user"] as? String == "cmc")
        #expect(row["device_id"] as? Int == device.id)
        #expect(row["topic"] as? String == device.token)
        #expect(row["registration"] as? String == "registered as device \(device.id)")
        // The table speaks the session's language; the JSON above stays English.
        for (language, words) in [("de", "als Gerät \(device.id) registriert"), ("fr", "enregistré comme appareil \(device.id)")] {
            let table = try await ctl.run(["account", "list"], adding: try await Translations.environment(language))
            #expect(table.stdout.contains("cmc@\(host)\t\(url)\t\(words)\n"), "\(table.stdout)")
        }

        let removed = try await ctl.run(["account", "remove", "cmc@\(host)"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout == "Removed cmc@\(host) (deregistered device \(device.id)).\n")
        #expect(try await standin.state().devices.isEmpty)
        #expect(try await SecretTool.lookup(instance: url, user: "cmc") == nil)
        let accountsFile = try String(contentsOf: ctl.stateDirectory.appendingPathComponent("accounts.json"), encoding: .utf8)
        #expect(!accountsFile.contains(url))
        if let front {
            let writes = front.requests().filter { $0.method == "POST" }
            #expect(writes.count >= 2 && writes.allSatisfy { $0.alpn == "h2" && $0.status == 200 }, "\(front.requests())")
            await front.stop()
        }
    }

    @Test func accountsWrittenBySecretToolAreListedAndRemovable() async throws {
        let (standin, token) = try await standinWithUser("krz")
        let ctl = try Ctl()
        // Not normalised the way we would store it: a trailing slash.
        try await SecretTool.store(instance: standin.url + "/", user: "krz", token: token)

        let listed = try await ctl.run(["account", "list"])
        #expect(listed.status == 0)
        #expect(listed.stdout.contains("krz@\(standin.url.dropFirst(7))\t\(standin.url)\tregistration failed: not registered yet"))
        let german = try await ctl.run(["account", "list"], adding: try await Translations.environment("de"))
        #expect(german.stdout.contains("krz@\(standin.url.dropFirst(7))\t\(standin.url)\tnoch nicht registriert"), "\(german.stdout)")

        let removed = try await ctl.run(["account", "remove", standin.url])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(try await SecretTool.lookup(instance: standin.url + "/", user: "krz") == nil)
    }

    @Test func reAddingReplacesTheToken() async throws {
        let (standin, first) = try await standinWithUser()
        let second = try await standin.addToken(for: "cmc")
        let ctl = try Ctl()
        #expect(try await ctl.run(["account", "add", standin.url], stdin: first).status == 0)
        #expect(try await ctl.run(["account", "add", standin.url], stdin: second).status == 0)
        #expect(try await SecretTool.lookup(instance: standin.url, user: "cmc") == second)
        // Registration upserts on the account's device token: still one device row.
        #expect(try await standin.state().devices.count == 1)
        _ = try await ctl.run(["account", "remove", standin.url])
    }

    @Test func aWrongTokenStoresNothing() async throws {
        let (standin, _) = try await standinWithUser()
        let ctl = try Ctl()
        let run = try await ctl.run(["account", "add", standin.url], stdin: "gb_not-a-real-token\n")
        #expect(run.status == 1)
        #expect(run.stderr.contains("refused the token (401: invalid or expired)"))
        #expect(run.stderr.contains("Nothing was stored."))
        #expect(try await SecretTool.lookup(instance: standin.url, user: "cmc") == nil)
    }

    @Test func anInstanceWithoutTheAPISaysSo() async throws {
        let (standin, token) = try await standinWithUser()
        try await standin.configure(.init(apiEnabled: false))
        let run = try await Ctl().run(["account", "add", standin.url], stdin: token)
        #expect(run.status == 1)
        #expect(run.stderr.contains("has no gitbay API (404)"))
        #expect(try await SecretTool.lookup(instance: standin.url, user: "cmc") == nil)
    }

    @Test func pushDisabledStillAddsTheAccount() async throws {
        let (standin, token) = try await standinWithUser()
        try await standin.configure(.init(pushEnabled: false))
        let ctl = try Ctl()
        let run = try await ctl.run(["account", "add", standin.url], stdin: token)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Desktop polling works, but this install could not register: this instance does not send push notifications."))
        #expect(try await SecretTool.lookup(instance: standin.url, user: "cmc") == token)
        let listed = try await ctl.run(["account", "list"])
        #expect(listed.stdout.contains("this instance does not send push notifications"))
        _ = try await ctl.run(["account", "remove", standin.url])
    }

    @Test func aReadOnlyTokenStillAddsTheAccount() async throws {
        let (standin, token) = try await standinWithUser(scope: .read)
        let ctl = try Ctl()
        let run = try await ctl.run(["account", "add", standin.url], stdin: token)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("could not register: the token is read-only"))
        _ = try await ctl.run(["account", "remove", standin.url])
    }

    @Test func plainHTTPToAnotherHostNeedsConsent() async throws {
        let run = try await Ctl().run(["account", "add", "http://gitbay.example"], stdin: "gb_x")
        #expect(run.status == 1)
        #expect(run.stderr.contains("--allow-http"))
    }

    @Test func deregistrationHappensBeforeTheTokenLeavesTheKeyring() async throws {
        let (standin, token) = try await standinWithUser()
        let ctl = try Ctl()
        #expect(try await ctl.run(["account", "add", standin.url], stdin: token).status == 0)
        let deviceID = try #require(try await standin.state().devices.first?.id)
        try await standin.clearRequests()
        try await standin.addFault(.init(.delay(seconds: 2), match: .init(argvPrefix: ["notifications", "device", "remove"])))

        let program = try ctl.start(["account", "remove", standin.url])
        let requests = try await standin.waitForRequests(count: 1)
        #expect(requests.first?.argv == ["notifications", "device", "remove", "\(deviceID)"])
        // The stand-in holds its answer for two seconds; the token must still be there meanwhile.
        #expect(try await SecretTool.lookup(instance: standin.url, user: "cmc") == token)
        let run = await program.finish()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try await SecretTool.lookup(instance: standin.url, user: "cmc") == nil)
    }

    @Test func aFailedDeregistrationStillRemovesTheAccount() async throws {
        let (standin, token) = try await standinWithUser()
        let ctl = try Ctl()
        #expect(try await ctl.run(["account", "add", standin.url], stdin: token).status == 0)
        try await standin.addFault(.init(.status(500), match: .init(argvPrefix: ["notifications", "device", "remove"])))
        let run = try await ctl.run(["account", "remove", standin.url])
        #expect(run.status == 0)
        #expect(run.stdout.contains("could not be deregistered"))
        #expect(try await SecretTool.lookup(instance: standin.url, user: "cmc") == nil)
    }

    @Test func removingAnAccountThatDoesNotExistFails() async throws {
        let run = try await Ctl().run(["account", "remove", "nobody@127.0.0.1:1"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("there is no account nobody@127.0.0.1:1"))
    }

    @Test func theTokenIsNeverInArgvOutputOrFiles() async throws {
        let (standin, token) = try await standinWithUser()
        let ctl = try Ctl()
        // Hold whoami until the process has been looked at, however slow the machine; clearing
        // the fault closes the held connection, so that attempt fails and a second one adds.
        try await standin.addFault(.init(.stall, match: .init(argvPrefix: ["whoami"])))
        let held = try ctl.start(["account", "add", standin.url], stdin: token)
        _ = try await standin.waitForRequests(count: 1)
        let commandLine = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(held.pid)/cmdline"))
        #expect(!String(decoding: commandLine, as: UTF8.self).contains(token))
        #expect(String(decoding: commandLine, as: UTF8.self).contains("account"))
        try await standin.clearFaults()
        let failed = await held.finish()
        #expect(failed.status == 1, "\(failed.stderr)")
        let run = try await ctl.run(["account", "add", standin.url], stdin: token)
        #expect(run.status == 0, "\(run.stderr)")

        let listed = try await ctl.run(["account", "list", "--json"])
        let removed = try await ctl.run(["account", "remove", standin.url])
        for text in [failed.stdout, failed.stderr, run.stdout, run.stderr, listed.stdout, listed.stderr, removed.stdout, removed.stderr, try ctl.allFileContents()] {
            #expect(!text.contains(token))
            #expect(!text.contains(String(token.dropFirst(3))))
        }
    }

    /// A proxy in the environment never carries a request to this machine, nor any in plain
    /// http: it would read the bearer token in the clear. The "proxy" is a second stand-in,
    /// which logs whatever reaches it.
    @Test func aProxyInTheEnvironmentNeverCarriesTheTokenInTheClear() async throws {
        let (standin, token) = try await standinWithUser()
        let proxy = try await Standin.start()
        let ctl = try Ctl()
        var environment = ctl.environment
        for name in ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] {
            environment[name] = proxy.url
        }
        environment["no_proxy"] = nil
        environment["NO_PROXY"] = nil
        let added = try await Program.run([Ctl.executable, "account", "add", standin.url], environment: environment, stdin: token)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try await proxy.requests().isEmpty, "a request went through the proxy")
        #expect(try await standin.requests().contains { $0.argv?.starts(with: ["notifications", "device", "add"]) == true })
        _ = try await ctl.run(["account", "remove", standin.url])
    }

    /// `remove` sends the token only where `add` and the daemon would: not to plain http on
    /// another machine without allow-http. The account goes; its device row stays.
    @Test func removeSendsNoTokenWhereThePlainHTTPRuleForbids() async throws {
        let ctl = try Ctl()
        let instance = "http://gitbay-\(UUID().uuidString.lowercased()).invalid"
        try await SecretTool.store(instance: instance, user: "cmc", token: "gb_only-for-this-test")
        try FileManager.default.createDirectory(at: ctl.stateDirectory, withIntermediateDirectories: true)
        try #"{"accounts":{"cmc@\#(instance)":{"deviceID":5,"deviceToken":"\#(String(repeating: "ab", count: 32))"}},"version":1}"#
            .write(to: ctl.stateDirectory.appendingPathComponent("accounts.json"), atomically: true, encoding: .utf8)
        let removed = try await ctl.run(["account", "remove", instance])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout.contains("but device 5 could not be deregistered (\(instance) is plain http to another machine"), "\(removed.stdout)")
        #expect(try await SecretTool.lookup(instance: instance, user: "cmc") == nil)
    }
}

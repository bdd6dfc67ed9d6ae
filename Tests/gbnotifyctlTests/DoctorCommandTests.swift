import DesktopSuites
import Foundation
import Glibc
import PushCore
import Testing
import TestSupport

/// `gbnotifyctl doctor` against real parts. A desktop with one piece missing or broken at a time,
/// each in a session of its own (see `PrivateSession`): doctor looks at the whole desktop, and
/// the shared session has no gbnotifyd and other tests' accounts.
@Suite(.needsDesktopSession) struct DoctorCommandTests {
    @Test func doctorPassesWithEverythingPresent() async throws {
        try await PrivateSession.run(notifications: true) {
            let desktop = try await HealthyDesktop.start()
            let run = try await desktop.doctor()
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            let lines = run.stdout.split(separator: "\n").map(String.init)
            #expect(lines.contains("ok       session bus: reachable"))
            #expect(lines.contains { $0.hasPrefix("ok       notification server: dunst ") && $0.hasSuffix("""
                , with actions, body-markup (bodies are escaped for it); gbnotifyd keeps 3 open (the default for \
                servers that keep any number); after a restart gbnotifyd takes over the notifications it left open
                """) })
            #expect(lines.contains { $0.hasPrefix("warning  dock: no dock that shows badges (nothing owns com.canonical.Unity)") })
            #expect(lines.contains("ok       Secret Service: present and unlocked, holding 1 gitbay account"))
            #expect(lines.contains("ok       account \(desktop.accountName): \(desktop.standin.url) is reachable and the token is valid"))
            #expect(lines.contains { $0.hasPrefix("note     systemd unit: cannot tell whether gbnotifyd.service is enabled") })
            // How many accounts it polls depends on whether it has read the keyring yet.
            #expect(lines.contains { $0.hasPrefix("ok       gbnotifyd: running: gbnotifyd \(GBNotify.version), up ") }, "\(run.stdout)")
            #expect(lines.contains("ok       config: \(desktop.configFile) is valid"))
            #expect(lines.contains { $0.hasPrefix("ok       terminal command: gbnotifyctl show {account} {path}: gbnotify's own view") })
            #expect(lines.contains { $0.hasPrefix("warning  tray: no tray host (nothing owns org.kde.StatusNotifierWatcher)") })
            #expect(lines.last == "All checks passed, with 2 warnings.", "\(run.stdout)")
            try await desktop.stop()
        }
    }

    @Test func doctorFailsWithoutANotificationServer() async throws {
        try await PrivateSession.run(notifications: false) {
            let desktop = try await HealthyDesktop.start()
            let run = try await desktop.doctor()
            #expect(run.status == 1)
            #expect(run.stdout.contains("""
                FAIL     notification server: nothing owns org.freedesktop.Notifications on the session bus, so \
                notices wait unshown. Fix: start your desktop's notification server
                """))
            #expect(try await desktop.failedChecks() == ["notification server"])
            try await desktop.stop()
        }
    }

    @Test func doctorFailsWithoutASecretService() async throws {
        try await PrivateSession.run(keyring: .none, notifications: true) {
            let desktop = try await HealthyDesktop.start(storeAccount: false)
            let run = try await desktop.doctor()
            #expect(run.status == 1)
            #expect(run.stdout.contains("""
                FAIL     Secret Service: none on the session bus (nothing owns org.freedesktop.secrets), so there \
                are no accounts to poll. Fix: install and start one: gnome-keyring
                """))
            #expect(try await desktop.failedChecks() == ["Secret Service"])
            try await desktop.stop()
        }
    }

    @Test func doctorFailsForADeadInstance() async throws {
        try await PrivateSession.run(notifications: true) {
            let desktop = try await HealthyDesktop.start()
            await desktop.standin.stop()
            let run = try await desktop.doctor()
            #expect(run.status == 1)
            #expect(run.stdout.contains("FAIL     account \(desktop.accountName): cannot reach \(desktop.standin.url): "))
            #expect(run.stdout.contains("Fix: check the network, the instance URL, proxy settings and the config's ca-file"))
            #expect(try await desktop.failedChecks() == ["account \(desktop.accountName)"])
            try await desktop.stop()
        }
    }

    @Test func doctorFailsForARejectedToken() async throws {
        try await PrivateSession.run(notifications: true) {
            let desktop = try await HealthyDesktop.start()
            // The account's token replaced by one the server never issued.
            try await SecretTool.store(instance: desktop.standin.url, user: "cmc", token: "gb_revoked-long-ago")
            let run = try await desktop.doctor()
            #expect(run.status == 1)
            #expect(run.stdout.contains("FAIL     account \(desktop.accountName): \(desktop.standin.url) rejected the token (HTTP 401"))
            #expect(run.stdout.contains("gbnotifyctl account add \(desktop.standin.url) --ssh"))
            #expect(!run.stdout.contains("gb_revoked-long-ago"))
            #expect(!run.stdout.contains(desktop.token))
            #expect(try await desktop.failedChecks() == ["account \(desktop.accountName)"])
            try await desktop.stop()
        }
    }

    @Test func doctorNamesTheKeyAndLineOfABadConfig() async throws {
        try await PrivateSession.run(notifications: true) {
            let desktop = try await HealthyDesktop.start()
            // Edited while gbnotifyd runs: it goes on with the config it has.
            try "poll-interval = 30\nbackoff-cap = 5\n".write(toFile: desktop.configFile, atomically: true, encoding: .utf8)
            let run = try await desktop.doctor()
            #expect(run.status == 1)
            #expect(run.stdout.contains("""
                FAIL     config: \(desktop.configFile): line 2: backoff-cap: "5" is below the minimum of 30 \
                seconds. Fix: correct it (see gbnotifyd.conf(5))
                """))
            #expect(try await desktop.failedChecks() == ["config"])
            try await desktop.stop()
        }
    }

    /// In the shared session, with other tests' accounts around: an account argument checks
    /// that account alone.
    @Test func anAccountArgumentLimitsTheAccountChecks() async throws {
        let (chosen, chosenToken) = try await standinWithUser("cmc")
        let (other, otherToken) = try await standinWithUser("krz")
        try await SecretTool.store(instance: chosen.url, user: "cmc", token: chosenToken)
        try await SecretTool.store(instance: other.url, user: "krz", token: otherToken)
        let ctl = try Ctl()
        let host = chosen.url.replacingOccurrences(of: "http://", with: "")

        let run = try await ctl.run(["doctor", "cmc@\(host)", "--json"])
        let report = try JSONDecoder().decode(DoctorJSON.self, from: Data(run.stdout.utf8))
        let accountChecks = report.findings.filter { $0.check.hasPrefix("account") }
        #expect(accountChecks.map(\.check) == ["account cmc@\(host)"])
        #expect(accountChecks.map(\.verdict) == ["ok"])

        let unknown = try await ctl.run(["doctor", "nobody@\(host)"])
        #expect(unknown.status == 1)
        #expect(unknown.stdout.contains("FAIL     account nobody@\(host): there is no account nobody@\(host)"))

        _ = try await ctl.run(["account", "remove", chosen.url])
        _ = try await ctl.run(["account", "remove", other.url])
    }

    /// In terminal mode a click needs the terminal and the command it runs: each checked as
    /// installed, and the gitbay CLI named for what it gets wrong.
    @Test func theTerminalAndItsCommandAreChecked() async throws {
        let ctl = try Ctl()
        let bin = ctl.home.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try "#!/bin/sh\n".write(to: bin.appendingPathComponent("gitbay"), atomically: true, encoding: .utf8)
        chmod(bin.appendingPathComponent("gitbay").path, 0o755)
        let config = ctl.home.appendingPathComponent("config/gbnotifyd")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "open-with = terminal\nterminal = no-such-terminal -e\nterminal-command = gitbay {noun} show {repo} {number}\n"
            .write(to: config.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        var environment = ctl.environment
        environment["PATH"] = "\(bin.path):\(environment["PATH"] ?? "/usr/bin:/bin")"
        // Checking one account that is not there keeps the other tests' accounts out of it.
        let run = try await Program.run([Ctl.executable, "doctor", "nobody@terminal.invalid"], environment: environment)
        #expect(run.status == 1)
        #expect(run.stdout.contains("""
            FAIL     terminal: no-such-terminal is not installed, so a click opens nothing. Fix: install it, or set \
            terminal = ... in the config (for example terminal = kitty -e)
            """), "\(run.stdout)")
        #expect(run.stdout.contains("""
            warning  terminal command: gitbay {noun} show {repo} {number} runs the gitbay CLI, which reads items \
            from its own default instance whatever account a notice came from
            """), "\(run.stdout)")
    }

    /// gbnotifyd does not send a token over plain http to another machine without
    /// `allow-http = true`; neither does doctor.
    @Test func aPlainHTTPAccountOnAnotherMachineIsNotChecked() async throws {
        let url = "http://doctor-\(UUID().uuidString.prefix(8).lowercased()).invalid"
        try await SecretTool.store(instance: url, user: "cmc", token: "gb_plain-http-token")
        let ctl = try Ctl()
        let run = try await ctl.run(["doctor", url])
        #expect(run.status == 1)
        #expect(run.stdout.contains("""
            FAIL     account cmc@\(url.dropFirst(7)): not polled: \(url) is plain http to another machine, which \
            would send the API token readable by anyone on the way. Fix: add the account again with its https \
            URL, or set allow-http = true in \(ctl.home.path)/config/gbnotifyd/config
            """), "\(run.stdout)")
        _ = try await ctl.run(["account", "remove", url])
    }
}

/// doctor's `--json`, as far as these tests read it.
private struct DoctorJSON: Decodable {
    struct Finding: Decodable {
        let check: String
        let verdict: String
    }

    let passed: Bool
    let findings: [Finding]
}

/// A desktop where everything doctor checks is fine, as far as the session allows: a stand-in
/// with user cmc, that account in the keyring, and gbnotifyd running with a valid config.
private struct HealthyDesktop {
    let standin: Standin
    let token: String
    let ctl: Ctl
    let daemon: Program

    var configFile: String { ctl.home.appendingPathComponent("config/gbnotifyd/config").path }
    var accountName: String { "cmc@\(standin.url.replacingOccurrences(of: "http://", with: ""))" }

    static func start(storeAccount: Bool = true) async throws -> HealthyDesktop {
        let (standin, token) = try await standinWithUser("cmc")
        if storeAccount {
            try await SecretTool.store(instance: standin.url, user: "cmc", token: token)
        }
        let ctl = try Ctl()
        let config = ctl.home.appendingPathComponent("config/gbnotifyd")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "poll-interval = 30\n".write(to: config.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        let daemon = try Program([Program.built("gbnotifyd")], environment: ctl.environment)
        let waited = try await Program.run(
            ["gdbus", "wait", "--session", "--timeout", "30", "org.gitbay.Notify1"], environment: ctl.environment)
        try #require(waited.status == 0, "gbnotifyd did not take its bus name: \(waited.stderr)")
        return HealthyDesktop(standin: standin, token: token, ctl: ctl, daemon: daemon)
    }

    func doctor() async throws -> Program.Outcome {
        try await ctl.run(["doctor"])
    }

    /// The checks that failed, from `--json`, which must agree with the exit status.
    func failedChecks() async throws -> [String] {
        let run = try await ctl.run(["doctor", "--json"])
        let report = try JSONDecoder().decode(DoctorJSON.self, from: Data(run.stdout.utf8))
        #expect(report.passed == (run.status == 0))
        return report.findings.filter { $0.verdict == "failure" }.map(\.check)
    }

    func stop() async throws {
        daemon.signal(SIGTERM)
        let stopped = await daemon.finish()
        #expect(stopped.status == 0, "gbnotifyd: \(stopped.stderr)")
        #expect(!stopped.stderr.contains(token))
        await standin.stop()
    }
}

import FoundationEssentials
import PushCore
import Testing

@Suite struct DoctorReportTests {
    static let account = try! Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc")

    static func envelope(_ data: String) -> [UInt8] {
        Array(#"{"protocol_version": 1, "exit_code": 0, "data": \#(data)}"#.utf8)
    }

    // MARK: - The report

    @Test func failuresAloneFailTheReport() {
        let fine = DoctorReport([
            DoctorFinding("a", .ok, "fine"), DoctorFinding("b", .note, "cannot tell"),
            DoctorFinding("c", .warning, "worse", fix: "do x"),
        ])
        #expect(fine.passed)
        #expect(fine.exitStatus == 0)
        let broken = DoctorReport(fine.findings + [DoctorFinding("d", .failure, "broken", fix: "do y")])
        #expect(!broken.passed)
        #expect(broken.exitStatus == 1)
        #expect(DoctorReport([]).exitStatus == 0)
    }

    @Test func textIsOneLinePerFindingWithItsFixThenASummary() {
        let report = DoctorReport([
            DoctorFinding("session bus", .ok, "reachable"),
            DoctorFinding("dock", .warning, "no dock", fix: "start one"),
            DoctorFinding("systemd unit", .note, "cannot tell"),
            DoctorFinding("config", .failure, "line 2: bad", fix: "correct it"),
        ])
        #expect(report.renderText() == """
            ok       session bus: reachable
            warning  dock: no dock. Fix: start one
            note     systemd unit: cannot tell
            FAIL     config: line 2: bad. Fix: correct it

            1 check failed, with 1 warning.

            """)
        #expect(DoctorReport([DoctorFinding("a", .ok, "fine")]).renderText().hasSuffix("\nAll checks passed.\n"))
        let warned = DoctorReport(Array(repeating: DoctorFinding("a", .warning, "meh"), count: 2))
        #expect(warned.renderText().hasSuffix("\nAll checks passed, with 2 warnings.\n"))
    }

    @Test func foreignTextCannotBreakALine() {
        let finding = DoctorFinding("account x\ny", .failure, "server said\r\nFAKE line" + String(repeating: "a", count: 5000))
        let text = DoctorReport([finding]).renderText()
        #expect(text.split(separator: "\n").count == 2)
        #expect(finding.finding.count <= 600)
        #expect(finding.check == "account x y")
    }

    @Test func jsonHasEveryKeyAndNullForNoFix() throws {
        let report = DoctorReport([DoctorFinding("session bus", .ok, "reachable"), DoctorFinding("dock", .warning, "no dock", fix: "start one")])
        let json = report.renderJSON()
        #expect(json.contains(#""fix" : null"#))
        struct Shape: Decodable {
            struct Finding: Decodable { let check, verdict, finding: String; let fix: String? }
            let passed: Bool
            let findings: [Finding]
        }
        let decoded = try JSONDecoder().decode(Shape.self, from: Data(json.utf8))
        #expect(decoded.passed)
        #expect(decoded.findings.map(\.check) == ["session bus", "dock"])
        #expect(decoded.findings.map(\.verdict) == ["ok", "warning"])
        #expect(decoded.findings.map(\.finding) == ["reachable", "no dock"])
        #expect(decoded.findings.map(\.fix) == [nil, "start one"])
    }

    // MARK: - Findings

    @Test func notificationServerSaysWhatItCanDo() {
        let full = DoctorFinding.notificationServer(.init(
            name: "dunst", vendor: "knopwob", version: "1.9.0", capabilities: .init(bodyMarkup: true, actions: true)), maxNotifications: nil)
        #expect(full.verdict == .ok)
        #expect(full.finding == """
            dunst 1.9.0 by knopwob, with actions, body-markup (bodies are escaped for it); gbnotifyd keeps 3 open \
            (the default for servers that keep any number); after a restart gbnotifyd takes over the notifications it left open
            """)

        let plain = DoctorFinding.notificationServer(.init(name: "", vendor: "", version: "", capabilities: .plain), maxNotifications: nil)
        #expect(plain.verdict == .warning)
        #expect(plain.finding.hasPrefix("unnamed, without actions, no body-markup (bodies are sent as plain text)"))
        #expect(plain.fix != nil)
        #expect(DoctorFinding.noNotificationServer.verdict == .failure)
    }

    /// What gbnotifyd does on the server, from the table (ServerQuirks) and the config.
    @Test func notificationServerSaysHowManyGbnotifydKeepsOpenAndWhetherItTakesOverAfterARestart() {
        let gnome48 = DoctorFinding.NotificationServerInfo(
            name: "gnome-shell", vendor: "GNOME", version: "48.7", capabilities: .init(bodyMarkup: true, actions: true))
        #expect(DoctorFinding.notificationServer(gnome48, maxNotifications: nil).finding == """
            gnome-shell 48.7 by GNOME, with actions, body-markup (bodies are escaped for it); gbnotifyd keeps 10 open \
            (what this server keeps per application); this server withdraws an application's notifications when it \
            leaves the bus, so after a restart gbnotifyd shows what is unread afresh
            """)
        #expect(DoctorFinding.notificationServer(gnome48, maxNotifications: 5).finding.contains("gbnotifyd keeps 5 open (max-notifications); "))
        var gnome43 = gnome48
        gnome43.version = "43.9"
        #expect(DoctorFinding.notificationServer(gnome43, maxNotifications: nil).finding.hasSuffix("""
            gbnotifyd keeps 3 open (what this server keeps per application); after a restart gbnotifyd takes over the \
            notifications it left open
            """))
    }

    /// A server the bus can start is no failure: the first notice starts it (issue 25).
    @Test func anActivatableNotificationServerIsNamedAndPasses() {
        let mako = DoctorFinding.notificationServer(activatable: ActivatableService(file: "fr.emersion.mako.service", program: "mako"))
        #expect(mako.verdict == .ok)
        #expect(mako.finding == "activatable: mako (fr.emersion.mako.service); the bus starts it with the first notice, so what it can do was not asked")
        let unnamed = DoctorFinding.notificationServer(activatable: nil)
        #expect(unnamed.verdict == .ok)
        #expect(unnamed.finding.hasPrefix("activatable: a server whose service file was not found; "))
    }

    @Test func aMissingDockIsAWarningOnly() {
        #expect(DoctorFinding.dock(present: true).verdict == .ok)
        #expect(DoctorFinding.dock(present: false).verdict == .warning)
        #expect(DoctorFinding.dock(present: false).finding.contains("com.canonical.Unity"))
    }

    @Test func theTrayHostIsNamedAndItsAbsenceIsAWarningOnly() {
        let present = DoctorFinding.tray(mode: .auto, host: "kded5", owner: ":1.14")
        #expect(present.verdict == .ok)
        #expect(present.finding == "a tray host is present: org.kde.StatusNotifierWatcher is owned by kded5 (:1.14)")
        #expect(DoctorFinding.tray(mode: .on, host: nil, owner: ":1.9").finding.hasSuffix("owned by :1.9"))
        for mode in [Config.Tray.auto, .on] {
            let missing = DoctorFinding.tray(mode: mode, host: nil, owner: nil)
            #expect(missing.verdict == .warning)
            #expect(missing.fix?.contains("gnome-shell-extension-appindicator") == true)
        }
        #expect(DoctorFinding.tray(mode: .off, host: nil, owner: nil).verdict == .ok)
        #expect(DoctorFinding.tray(mode: .off, host: nil, owner: nil).finding.hasPrefix("off"))
        // A process name is the owner's own text.
        #expect(!DoctorFinding.tray(mode: .auto, host: "x\u{1b}[2J", owner: ":1.2").finding.contains("\u{1b}"))
    }

    @Test func withoutAPortalOnlyWaylandGetsANote() {
        #expect(DoctorFinding.focus(portal: true, wayland: true).verdict == .ok)
        #expect(DoctorFinding.focus(portal: false, wayland: false).verdict == .ok)
        let wayland = DoctorFinding.focus(portal: false, wayland: true)
        #expect(wayland.verdict == .note)
        #expect(wayland.finding.contains("activation token"))
        #expect(wayland.fix?.contains("xdg-desktop-portal") == true)
    }

    @Test func whatIsMissingOnTheSystemBusIsNamedAndNeverFails() {
        let both = DoctorFinding.SystemServices(logind: true, networkManager: true)
        #expect(DoctorFinding.system(both).verdict == .ok)
        let noNetworkManager = DoctorFinding.system(.init(logind: true, networkManager: false))
        #expect(noNetworkManager.verdict == .note)
        #expect(noNetworkManager.finding.contains("no NetworkManager"))
        #expect(noNetworkManager.finding.contains("60 s"))
        let noLogind = DoctorFinding.system(.init(logind: false, networkManager: true))
        #expect(noLogind.finding.contains("no systemd-logind"))
        #expect(!noLogind.finding.contains("60 s"))
        let noBus = DoctorFinding.system(nil, unreachable: "no such file")
        #expect(noBus.verdict == .note)
        #expect(noBus.finding.contains("no such file"))
        #expect(noBus.finding.contains("resume") && noBus.finding.contains("network"))
    }

    @Test func unitStatesAreReadTheWaySystemctlMeansThem() {
        for state in ["enabled", "enabled-runtime", "linked", "alias", "indirect", "generated"] {
            #expect(DoctorFinding.unit(state: state).verdict == .ok, "\(state)")
        }
        let disabled = DoctorFinding.unit(state: "disabled")
        #expect(disabled.verdict == .warning)
        #expect(disabled.fix == "systemctl --user enable --now gbnotifyd")
        #expect(DoctorFinding.unit(state: "masked").fix?.hasPrefix("systemctl --user unmask gbnotifyd") == true)
        #expect(DoctorFinding.unit(state: "bad").finding == "systemd reports gbnotifyd.service as \"bad\"")
        #expect(DoctorFinding.noSystemd.verdict == .note)
    }

    @Test func daemonStatusIsSummarised() {
        let status = DaemonStatus(
            version: GBNotify.version, uptimeSeconds: 125, configPath: "/c",
            accounts: [
                AccountStatus(id: "a", instance: "https://a", user: "a", state: .ok),
                AccountStatus(id: "b", instance: "https://b", user: "b", state: .needsToken),
                AccountStatus(id: "c", instance: "https://c", user: "c", state: .ok),
            ])
        let finding = DoctorFinding.daemon(status)
        #expect(finding.verdict == .ok)
        #expect(finding.finding == "running: gbnotifyd \(GBNotify.version), up 2m 5s, 3 accounts (2 ok, 1 needs_token)")

        let old = DoctorFinding.daemon(DaemonStatus(version: "0.0.1", uptimeSeconds: 5, configPath: "", accounts: []))
        #expect(old.verdict == .warning)
        #expect(old.finding == "running: gbnotifyd 0.0.1, up 5s, 0 accounts; this gbnotifyctl is \(GBNotify.version)")
        #expect(DoctorFinding.daemonNotRunning.verdict == .failure)
    }

    @Test func aConfiguredRelayIsReportedAndAMissingOneIsNot() {
        #expect(DoctorFinding.relay(RelayStatus()) == nil)
        #expect(DoctorFinding.relay(RelayStatus(url: "https://ntfy.example.org", connected: true))
            == DoctorFinding("relay", .ok, "connected to https://ntfy.example.org"))
        let down = DoctorFinding.relay(RelayStatus(url: "https://ntfy.example.org", lastError: "connection refused"))
        #expect(down?.verdict == .warning)
        #expect(down?.finding == "not connected to https://ntfy.example.org: connection refused; polling alone meanwhile")
    }

    @Test func whoamiOfTheRightUserPasses() {
        let finding = DoctorFinding.account(Self.account, whoami: .success(
            data: Self.envelope(#"{"username": "cmc", "admin": false, "key_scope": "full"}"#), etag: nil))
        #expect(finding == DoctorFinding("account cmc@gitbay.org", .ok, "https://gitbay.org is reachable and the token is valid"))
    }

    @Test func whoamiOfAnotherUserFails() {
        let finding = DoctorFinding.account(Self.account, whoami: .success(
            data: Self.envelope(#"{"username": "krz", "admin": false, "key_scope": "full"}"#), etag: nil))
        #expect(finding.verdict == .failure)
        #expect(finding.finding == "the token belongs to krz, not cmc")
    }

    @Test func aRejectedTokenSaysHowToMintANewOne() {
        let finding = DoctorFinding.account(Self.account, whoami: .unauthorized(message: "invalid or expired token"))
        #expect(finding.verdict == .failure)
        #expect(finding.finding == "https://gitbay.org rejected the token (HTTP 401: invalid or expired token)")
        #expect(finding.fix == "mint a new token with your SSH key and store it: gbnotifyctl account add https://gitbay.org --ssh")
    }

    @Test func aBusyServerIsAWarningAndAFaultyOneAFailure() {
        #expect(DoctorFinding.account(Self.account, whoami: .rateLimited(retryAfter: 3)).verdict == .warning)
        #expect(DoctorFinding.account(Self.account, whoami: .busy(retryAfter: 60)).verdict == .warning)
        let fault = DoctorFinding.account(Self.account, whoami: .serverError(status: 500, message: "boom"))
        #expect(fault.verdict == .failure)
        #expect(fault.finding == "https://gitbay.org failed to answer whoami: server error (HTTP 500): boom")
        #expect(DoctorFinding.account(Self.account, whoami: .notFound(message: "x")).finding == "no gitbay API at https://gitbay.org (HTTP 404)")
    }

    @Test func anUnreachableInstanceFails() {
        let finding = DoctorFinding.account(Self.account, unreachable: "connection refused")
        #expect(finding == DoctorFinding(
            "account cmc@gitbay.org", .failure, "cannot reach https://gitbay.org: connection refused",
            fix: "check the network, the instance URL, proxy settings and the config's ca-file"))
    }

    @Test func plainHTTPToAnotherMachineIsRefusedLikeTheDaemonDoes() throws {
        let account = try Account(instance: GitbayInstance(parsing: "http://gitbay.lan", allowInsecureHTTP: true), username: "cmc")
        #expect(!Config.defaults.allowsToken(to: account.instance))
        #expect(try Config.parse("allow-http = true").allowsToken(to: account.instance))
        #expect(Config.defaults.allowsToken(to: try GitbayInstance(parsing: "http://127.0.0.1:8080")))
        #expect(Config.defaults.allowsToken(to: try GitbayInstance(parsing: "https://gitbay.org")))
        let finding = DoctorFinding.account(account, plainHTTPRefusedBy: "/c")
        #expect(finding.verdict == .failure)
        #expect(finding.check == "account cmc@gitbay.lan")
        #expect(finding.fix == "add the account again with its https URL, or set allow-http = true in /c")
    }

    @Test func configFindingsNameTheFile() {
        #expect(DoctorFinding.config(path: "/c", exists: true, problem: nil).finding == "/c is valid")
        #expect(DoctorFinding.config(path: "/c", exists: false, problem: nil).finding == "no file at /c, so every setting is at its default")
        let bad = DoctorFinding.config(path: "/c", exists: true, problem: "line 2: backoff-cap: \"5\" is below the minimum of 30 seconds")
        #expect(bad.verdict == .failure)
        #expect(bad.finding == "/c: line 2: backoff-cap: \"5\" is below the minimum of 30 seconds")
    }
}

/// doctor's terminal checks, decided from the config and what is installed.
@Suite struct DoctorTerminalTests {
    static func findings(_ config: String, installed: Set<String>) throws -> [DoctorFinding] {
        DoctorFinding.terminal(try Config.parse(config), isInstalled: installed.contains)
    }

    @Test func theDefaultsInTerminalModeWithAFallbackTerminal() throws {
        let findings = try Self.findings("open-with = terminal", installed: ["x-terminal-emulator"])
        #expect(findings == [
            DoctorFinding("terminal", .ok, "x-terminal-emulator -e, the first of xdg-terminal-exec and x-terminal-emulator installed"),
            DoctorFinding(
                "terminal command", .ok,
                "gbnotifyctl show {account} {path}: gbnotify's own view, read from each notice's own instance (the gbnotifyctl installed beside gbnotifyd)"),
        ])
    }

    @Test func noTerminalFailsInTerminalModeAndIsANoteOtherwise() throws {
        let terminal = try Self.findings("open-with = terminal", installed: [])[0]
        #expect(terminal.verdict == .failure)
        #expect(terminal.finding == "no terminal is set and neither xdg-terminal-exec nor x-terminal-emulator is installed, so a click opens nothing")
        #expect(terminal.fix?.hasPrefix("install a terminal emulator") == true)
        let browser = try Self.findings("", installed: [])
        #expect(browser.map(\.verdict) == [.note, .ok])
        #expect(browser[0].finding.hasSuffix("(used only with open-with = terminal)"))
    }

    @Test func aConfiguredTerminalMustBeInstalled() throws {
        let missing = try Self.findings("open-with = terminal\nterminal = kitty -e", installed: ["xterm"])[0]
        #expect(missing == DoctorFinding(
            "terminal", .failure, "kitty is not installed, so a click opens nothing",
            fix: "install it, or set terminal = ... in the config (for example terminal = kitty -e)"))
        #expect(try Self.findings("open-with = terminal\nterminal = kitty -e", installed: ["kitty"])[0]
            == DoctorFinding("terminal", .ok, "kitty -e"))
    }

    @Test func theGitbayCLIIsAWarningAndAMissingCommandAFailure() throws {
        let gitbay = try Self.findings(
            "open-with = terminal\nterminal = foot\nterminal-command = gitbay {noun} show {repo} {number}", installed: ["foot", "gitbay"])[1]
        #expect(gitbay.verdict == .warning)
        #expect(gitbay.finding.hasPrefix("gitbay {noun} show {repo} {number} runs the gitbay CLI, which reads items from its own default instance"))
        #expect(gitbay.fix == "remove terminal-command from the config, to use gbnotifyctl show {account} {path}")
        let missing = try Self.findings(
            #"open-with = terminal\#nterminal = foot\#nterminal-command = "/opt/my tools/view" {path}"#, installed: ["foot"])[1]
        #expect(missing.verdict == .failure)
        #expect(missing.finding == #"/opt/my tools/view (from terminal-command = "/opt/my tools/view" {path}) is not installed"#)
        let other = try Self.findings("open-with = terminal\nterminal = foot\nterminal-command = ssh -t git@{host} {noun} show {repo} {number}", installed: ["foot", "ssh"])[1]
        #expect(other == DoctorFinding("terminal command", .ok, "ssh -t git@{host} {noun} show {repo} {number}"))
    }
}

import PushCore
import Testing

@Suite struct ConfigTests {
    static let account = try! Account(instance: GitbayInstance(parsing: "https://gitbay.org:8443/git"), username: "cmc")
    static let issue = NotificationDestination(path: "krz/gitbay/issues/12")!
    static let build = NotificationDestination(path: "krz/gitbay/builds/7")!

    static func parse(_ text: String) throws(ConfigError) -> Config {
        try Config.parse(text)
    }

    static func error(parsing text: String) -> String? {
        do {
            _ = try Config.parse(text)
            return nil
        } catch {
            return error.description
        }
    }

    // MARK: - The file

    @Test(arguments: [
        "",
        "\n\n   \n",
        "# a comment\n; another\n   # indented comment\n",
        "\u{FEFF}# a file saved with a byte order mark\n",
    ])
    func emptyFilesGiveTheDefaults(_ text: String) throws {
        #expect(try Self.parse(text) == Config.defaults)
    }

    @Test func defaultsAreSane() {
        let config = Config.defaults
        #expect(config.pollIntervalSeconds == 30)
        #expect(config.backoffCapSeconds == 900)
        #expect(config.caFile == nil)
        #expect(config.openWith == .browser)
        #expect(config.terminal == nil)
        #expect(config.terminalCommand == .standard)
        #expect(config.relayURL == nil)
        // Unset: it follows the server (ServerQuirks.keptOpen).
        #expect(config.maxNotifications == nil)
        #expect(config.warnings.isEmpty)
        #expect(config.relayPollIntervalSeconds == 300)
        #expect(config.relayKeepaliveSeconds == 45)
        #expect(config.logLevel == .info)
        #expect(config.allowHTTP == false)
        #expect(config.tray == .auto)
    }

    @Test func everyKeyInOneFile() throws {
        let config = try Self.parse("""
            # gbnotifyd config
            poll-interval = 60
            backoff-cap=1800
            \tca-file = "/etc/ssl/private ca.pem"\t
            open-with = terminal
            terminal = "/opt/my term/bin/t" --exec

            ; the item view over ssh
            terminal-command = ssh -t git@{host} {noun} show {repo} {number}
            relay-url = https://ntfy.example.org/
            max-notifications = 5
            relay-poll-interval = 600
            relay-keepalive = 30
            log-level = debug
            allow-http = yes
            tray = off
            """)
        #expect(config.pollIntervalSeconds == 60)
        #expect(config.backoffCapSeconds == 1800)
        #expect(config.caFile == "/etc/ssl/private ca.pem")
        #expect(config.openWith == .terminal)
        #expect(config.terminal == ["/opt/my term/bin/t", "--exec"])
        #expect(config.terminalArgv(for: PushTarget(account: Self.account, destination: Self.issue), viewer: "gbnotifyctl", isInstalled: { _ in false }) == [
            "/opt/my term/bin/t", "--exec", "ssh", "-t", "git@gitbay.org", "issue", "show", "krz/gitbay", "12",
        ])
        #expect(config.relayURL?.url == "https://ntfy.example.org")
        #expect(config.maxNotifications == 5)
        #expect(config.relayPollIntervalSeconds == 600)
        #expect(config.relayKeepaliveSeconds == 30)
        #expect(config.logLevel == .debug)
        #expect(config.allowHTTP == true)
        #expect(config.tray == .off)
    }

    @Test(arguments: [("auto", Config.Tray.auto), ("on", .on), ("off", .off)])
    func tray(_ value: String, _ expected: Config.Tray) throws {
        #expect(try Self.parse("tray = \(value)").tray == expected)
    }

    @Test func trayTakesOnlyItsThreeWords() {
        #expect(Self.error(parsing: "tray = always") == #"line 1: tray: "always" is not one of auto, on, off"#)
        #expect(Self.error(parsing: "tray = yes") == #"line 1: tray: "yes" is not one of auto, on, off"#)
    }

    @Test func windowsLineEndingsAreAccepted() throws {
        let config = try Self.parse("# comment\r\npoll-interval = 45\r\nlog-level = notice\r\n")
        #expect(config.pollIntervalSeconds == 45)
        #expect(config.logLevel == .notice)
    }

    /// Every rejection, with its exact text: line numbers count comments and blank lines.
    @Test(arguments: [
        // The file's syntax.
        ("[general]\npoll-interval = 30",
         #"line 1: "[general]" is not a known section; the sections are [account USER@HOST] and [rule NAME], and the global keys come before the first of them"#),
        ("# comment\n\npoll-interval 30",
         #"line 3: "poll-interval 30" is not a "key = value" line (or a comment starting with # or ;)"#),
        ("; c\n= 30", #"line 2: the line has no key before "=""#),
        ("# c\n\n# c\n\npol-interval = 30",
         "line 5: pol-interval: not a known key; the keys are poll-interval, backoff-cap, ca-file, open-with, terminal, terminal-command, relay-url, relay-poll-interval, relay-keepalive, log-level, max-notifications, allow-http, quiet-hours, sound, tray, buttons"),
        ("Poll-Interval = 30",
         "line 1: Poll-Interval: not a known key; the keys are poll-interval, backoff-cap, ca-file, open-with, terminal, terminal-command, relay-url, relay-poll-interval, relay-keepalive, log-level, max-notifications, allow-http, quiet-hours, sound, tray, buttons"),
        ("\(String(repeating: "k", count: 50)) = 1",
         "line 1: \(String(repeating: "k", count: 39))…: not a known key; the keys are poll-interval, backoff-cap, ca-file, open-with, terminal, terminal-command, relay-url, relay-poll-interval, relay-keepalive, log-level, max-notifications, allow-http, quiet-hours, sound, tray, buttons"),
        // Found by Fuzz/Targets/config.swift: the tab inside an unknown key reached the message.
        ("poll_interval\t&= 30",
         "line 1: poll_interval &: not a known key; the keys are poll-interval, backoff-cap, ca-file, open-with, terminal, terminal-command, relay-url, relay-poll-interval, relay-keepalive, log-level, max-notifications, allow-http, quiet-hours, sound, tray, buttons"),
        ("poll-interval = 30\n# c\n\npoll-interval = 60",
         "line 4: poll-interval: set a second time (first on line 1); keep one of the two lines"),
        ("poll-interval = 3\u{1B}[0m0", "line 1: the line contains a control character; write keys and values as plain text"),
        ("poll-interval =", "line 1: poll-interval: the value is empty; remove the line to use the default"),
        (#"poll-interval = """#, "line 1: poll-interval: the value is empty; remove the line to use the default"),
        (#"poll-interval = "30"#, #"line 1: poll-interval: ""30" opens a double quote but does not close it"#),
        (#"poll-interval = ""#, #"line 1: poll-interval: """ opens a double quote but does not close it"#),

        // Seconds.
        ("# c\r\n\r\npoll-interval = 5\r\n", #"line 3: poll-interval: "5" is below the minimum of 10 seconds"#),
        ("\n# c\n\npoll-interval = 5", #"line 4: poll-interval: "5" is below the minimum of 10 seconds"#),
        ("poll-interval = 3601", #"line 1: poll-interval: "3601" is above the maximum of 3600 seconds"#),
        ("poll-interval = 99999999999999999999999", #"line 1: poll-interval: "99999999999999999999999" is above the maximum of 3600 seconds"#),
        ("poll-interval = 30s", #"line 1: poll-interval: "30s" is not a whole number of seconds"#),
        ("poll-interval = -30", #"line 1: poll-interval: "-30" is not a whole number of seconds"#),
        ("poll-interval = 1.5", #"line 1: poll-interval: "1.5" is not a whole number of seconds"#),
        ("poll-interval = ３０", #"line 1: poll-interval: "３０" is not a whole number of seconds"#),
        ("backoff-cap = 29", #"line 1: backoff-cap: "29" is below the minimum of 30 seconds"#),
        ("backoff-cap = 86401", #"line 1: backoff-cap: "86401" is above the maximum of 86400 seconds"#),
        ("relay-poll-interval = 10", #"line 1: relay-poll-interval: "10" is below the minimum of 30 seconds"#),
        ("relay-poll-interval = 100000", #"line 1: relay-poll-interval: "100000" is above the maximum of 86400 seconds"#),
        ("relay-keepalive = 4", #"line 1: relay-keepalive: "4" is below the minimum of 5 seconds"#),
        ("relay-keepalive = 3601", #"line 1: relay-keepalive: "3601" is above the maximum of 3600 seconds"#),

        // Paths, choices, booleans.
        ("ca-file = certs/ca.pem", #"line 1: ca-file: "certs/ca.pem" is not an absolute path; write the full path, starting with /"#),
        ("ca-file = ~/ca.pem", #"line 1: ca-file: "~/ca.pem" is not an absolute path; write the full path, starting with /"#),
        ("open-with = firefox", #"line 1: open-with: "firefox" is not one of browser, terminal"#),
        ("open-with = Browser", #"line 1: open-with: "Browser" is not one of browser, terminal"#),
        ("log-level = warn", #"line 1: log-level: "warn" is not one of error, warning, notice, info, debug"#),
        ("allow-http = maybe", #"line 1: allow-http: "maybe" is not a boolean; use true or false (or yes/no, on/off, 1/0)"#),
        ("allow-http = TRUE", #"line 1: allow-http: "TRUE" is not a boolean; use true or false (or yes/no, on/off, 1/0)"#),

        // The relay.
        ("relay-url = http://ntfy.example.org",
         #"line 1: relay-url: "http://ntfy.example.org" uses plain http, which is only allowed for a loopback relay; use https"#),
        ("allow-http = true\nrelay-url = http://ntfy.example.org",
         #"line 2: relay-url: "http://ntfy.example.org" uses plain http, which is only allowed for a loopback relay; use https"#),
        ("relay-url = ntfy.example.org",
         #"line 1: relay-url: "ntfy.example.org" is not a usable relay URL: the instance URL must start with https:// (or http:// for a loopback host)"#),
        ("relay-url = https://ntfy.example.org/?x=1",
         #"line 1: relay-url: "https://ntfy.example.org/?x=1" is not a usable relay URL: the instance URL must not contain a query (?...)"#),
        ("max-notifications = 0", #"line 1: max-notifications: "0" is below the minimum of 1"#),

        // Terminal words and the command template.
        (#"terminal = "kitty -e"#, #"line 1: terminal: ""kitty -e" opens a double quote but does not close it"#),
        (#"terminal = kitty "" -e"#, #"line 1: terminal: "kitty "" -e" contains an empty argument ("")"#),
        (#"terminal = """#, "line 1: terminal: the value is empty; remove the line to use the default"),
        ("terminal-command = gitbay {noun} show {repos} {number}",
         #"line 1: terminal-command: "{repos}" is not a placeholder; the placeholders are {account}, {path}, {noun}, {repo}, {number}, {host}, {user}"#),
        ("terminal-command = gitbay {} show",
         #"line 1: terminal-command: "{}" is not a placeholder; the placeholders are {account}, {path}, {noun}, {repo}, {number}, {host}, {user}"#),
        ("terminal-command = gitbay { repo }",
         #"line 1: terminal-command: "{" has no closing "}"; the placeholders are {account}, {path}, {noun}, {repo}, {number}, {host}, {user}"#),
        ("terminal-command = gitbay --repo={repo",
         #"line 1: terminal-command: "{repo" has no closing "}"; the placeholders are {account}, {path}, {noun}, {repo}, {number}, {host}, {user}"#),
        (#"terminal-command = gitbay "{repo number}""#,
         #"line 1: terminal-command: "{repo number}" is not a placeholder; the placeholders are {account}, {path}, {noun}, {repo}, {number}, {host}, {user}"#),
        ("terminal-command = gitbay {{repo}}",
         #"line 1: terminal-command: "{{repo}" is not a placeholder; the placeholders are {account}, {path}, {noun}, {repo}, {number}, {host}, {user}"#),
        ("terminal-command = awk {print}",
         #"line 1: terminal-command: "{print}" is not a placeholder; the placeholders are {account}, {path}, {noun}, {repo}, {number}, {host}, {user}"#),
        ("terminal-command = gitbay repo}",
         #"line 1: terminal-command: "}" closes no placeholder; the placeholders are {account}, {path}, {noun}, {repo}, {number}, {host}, {user}"#),
        ("terminal-command = {repo} show",
         "line 1: terminal-command: the program (the first word) must be fixed text, not a placeholder; a value from a notice must never choose what runs"),
        ("terminal-command = /opt/{user}/bin/gitbay show",
         "line 1: terminal-command: the program (the first word) must be fixed text, not a placeholder; a value from a notice must never choose what runs"),
    ])
    func rejectsWithLineKeyAndRemedy(_ text: String, _ message: String) {
        #expect(Self.error(parsing: text) == message)
    }

    @Test func errorsNameTheLineAndKeySeparately() throws {
        let error = try #require(throws: ConfigError.self) { try Config.parse("# c\nlog-level = loud") }
        #expect(error.line == 2)
        #expect(error.key == "log-level")
        #expect(error.reason == #""loud" is not one of error, warning, notice, info, debug"#)
    }

    @Test func longValuesAreShortenedAndMadeOneLineInMessages() {
        let value = String(repeating: "x", count: 200)
        #expect(Self.error(parsing: "open-with = \(value)")
            == "line 1: open-with: \"\(String(repeating: "x", count: 79))…\" is not one of browser, terminal")
    }

    // MARK: - Bounds

    @Test func aFileOf64KiBIsReadAndOneByteMoreIsNot() throws {
        let comment = "#" + String(repeating: "x", count: 1023) + "\n"  // 1 KiB a line
        let full = String(repeating: comment, count: 63) + "poll-interval = 60\n"
        let padded = full + String(repeating: "#", count: 64 * 1024 - full.utf8.count - 1) + "\n"
        #expect(padded.utf8.count == 64 * 1024)
        #expect(try Self.parse(padded).pollIntervalSeconds == 60)
        #expect(Self.error(parsing: padded + "\n")
            == "the file is larger than 64 KiB; a config file needs only a few lines")
    }

    @Test func aLineOf4KiBIsReadAndOneByteMoreIsNot() throws {
        let key = "ca-file = /"
        let longest = key + String(repeating: "a", count: 4096 - key.utf8.count)
        #expect(try Self.parse("# c\n" + longest).caFile?.utf8.count == 4096 - key.utf8.count + 1)
        #expect(Self.error(parsing: "# c\n" + longest + "a") == "line 2: the line is longer than 4096 bytes")
    }

    // MARK: - Each key's accepted values

    @Test(arguments: [
        ("poll-interval", "10", 10), ("poll-interval", "3600", 3600), ("poll-interval", "\"45\"", 45),
        ("poll-interval", "030", 30),
        ("backoff-cap", "30", 30), ("backoff-cap", "86400", 86400),
        ("relay-poll-interval", "30", 30), ("relay-poll-interval", "86400", 86400),
    ])
    func secondsWithinTheirRange(_ key: String, _ value: String, _ seconds: Int) throws {
        let config = try Self.parse("\(key) = \(value)")
        let read = switch key {
        case "poll-interval": config.pollIntervalSeconds
        case "backoff-cap": config.backoffCapSeconds
        default: config.relayPollIntervalSeconds
        }
        #expect(read == seconds)
    }

    @Test(arguments: [
        ("true", true), ("yes", true), ("on", true), ("1", true), ("\"true\"", true),
        ("false", false), ("no", false), ("off", false), ("0", false),
    ])
    func booleans(_ value: String, _ expected: Bool) throws {
        #expect(try Self.parse("allow-http = \(value)").allowHTTP == expected)
    }

    @Test(arguments: [("browser", Config.OpenWith.browser), ("terminal", .terminal), ("\"terminal\"", .terminal)])
    func openWith(_ value: String, _ expected: Config.OpenWith) throws {
        #expect(try Self.parse("open-with = \(value)").openWith == expected)
    }

    @Test(arguments: Config.LogLevel.allCases)
    func logLevels(_ level: Config.LogLevel) throws {
        #expect(try Self.parse("log-level = \(level.rawValue)").logLevel == level)
    }

    @Test func logLevelsFollowSyslogPriorities() {
        #expect(Config.LogLevel.allCases.map(\.priority) == [3, 4, 5, 6, 7])
        #expect(Config.LogLevel.error < .warning)
        #expect(Config.LogLevel.info < .debug)
        #expect(!(Config.LogLevel.debug < .info))
    }

    @Test(arguments: [
        ("/etc/ssl/certs/ca.pem", "/etc/ssl/certs/ca.pem"),
        ("\"/home/me/My CAs/ca.pem\"", "/home/me/My CAs/ca.pem"),
        ("/home/me/My CAs/ca.pem", "/home/me/My CAs/ca.pem"),
    ])
    func caFile(_ value: String, _ path: String) throws {
        #expect(try Self.parse("ca-file = \(value)").caFile == path)
    }

    @Test(arguments: [
        ("https://ntfy.sh", "https://ntfy.sh"),
        ("HTTPS://Ntfy.Example.ORG:443/relay/", "https://ntfy.example.org/relay"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("\"http://localhost:2586\"", "http://localhost:2586"),
        ("http://[::1]:2586", "http://[::1]:2586"),
    ])
    func relayURL(_ value: String, _ url: String) throws {
        #expect(try Self.parse("relay-url = \(value)").relayURL?.url == url)
    }

    @Test func anOldConfigsRelayTopicIsAWarningNotAnError() throws {
        // Each account listens on its own topic now; an old config still starts the daemon.
        let config = try Self.parse("poll-interval = 60\nrelay-topic = gbnotify_cmc-1\n")
        #expect(config.pollIntervalSeconds == 60)
        #expect(config.warnings == [
            "line 2: relay-topic is no longer read: each account listens on its own topic, its device token "
                + "(gbnotifyctl account list --json shows it); remove the line",
        ])
    }

    @Test(arguments: [("0", "below the minimum of 1"), ("51", "above the maximum of 50"), ("three", "is not a whole number")])
    func maxNotificationsIsAWholeNumberFromOneToFifty(_ value: String, _ reason: String) {
        #expect {
            try Self.parse("max-notifications = \(value)")
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test(arguments: [
        ("kitty -e", ["kitty", "-e"]),
        ("  kitty \t -e  ", ["kitty", "-e"]),
        (#""/opt/my term/bin/t" --exec"#, ["/opt/my term/bin/t", "--exec"]),
        (#""kitty -e""#, ["kitty -e"]),
        (#"foot --title="gitbay item" --"#, ["foot", "--title=gitbay item", "--"]),
        ("wezterm start --", ["wezterm", "start", "--"]),
        ("alacritty", ["alacritty"]),
    ])
    func terminalWords(_ value: String, _ words: [String]) throws {
        #expect(try Self.parse("terminal = \(value)").terminal == words)
    }

    // MARK: - The terminal argv

    static func target(_ destination: NotificationDestination?) -> PushTarget {
        PushTarget(account: account, destination: destination)
    }

    @Test func theDefaultTemplateIsGbnotifysOwnViewOfTheAccountsItem() throws {
        #expect(try Self.parse("terminal-command = gbnotifyctl show {account} {path}") == Config.defaults)
        #expect(Config.defaults.terminalCommand.expanded(for: Self.issue, account: Self.account, viewer: "gbnotifyctl")
            == ["gbnotifyctl", "show", "cmc@gitbay.org:8443/git", "krz/gitbay/issues/12"])
    }

    @Test func theProgramNamedGbnotifyctlIsTheViewerFoundForIt() throws {
        let viewer = "/opt/gbnotify/bin/gbnotifyctl"
        #expect(Config.defaults.terminalCommand.expanded(for: Self.build, account: Self.account, viewer: viewer)
            == [viewer, "show", "cmc@gitbay.org:8443/git", "krz/gitbay/builds/7"])
        // Only the program itself, named bare: a path or a later word stays as written.
        for template in ["/usr/bin/gbnotifyctl show {path}", "env gbnotifyctl show {path}", "gbnotifyctl2 {path}"] {
            let config = try Self.parse("terminal = t\nterminal-command = \(template)")
            let argv = config.terminalArgv(for: Self.target(Self.build), viewer: viewer, isInstalled: { _ in true })
            #expect(!argv.contains(viewer), "\(template)")
        }
    }

    @Test(arguments: [
        ("gitbay {noun} show {repo} {number}", ["gitbay", "build", "show", "krz/gitbay", "7"]),
        ("ssh -t git@{host} {noun} show {repo} {number}", ["ssh", "-t", "git@gitbay.org", "build", "show", "krz/gitbay", "7"]),
        ("gb --who={user}@{host} {repo}#{number}", ["gb", "--who=cmc@gitbay.org", "krz/gitbay#7"]),
        (#""/opt/git bay/gb" "{repo} {number}" x"#, ["/opt/git bay/gb", "krz/gitbay 7", "x"]),
        ("echo {user}{user}", ["echo", "cmccmc"]),
        ("view --account={account} {path}", ["view", "--account=cmc@gitbay.org:8443/git", "krz/gitbay/builds/7"]),
    ])
    func templatesFillOneArgvElementPerWord(_ template: String, _ argv: [String]) throws {
        let config = try Self.parse("terminal = kitty -e\nterminal-command = \(template)")
        #expect(config.terminalArgv(for: Self.target(Self.build), viewer: "gbnotifyctl", isInstalled: { _ in true })
            == ["kitty", "-e"] + argv)
    }

    @Test func withoutAnItemTheTerminalShowsTheAccountsInboxWhateverTheTemplate() throws {
        for text in ["terminal = kitty -e", "terminal = kitty -e\nterminal-command = gitbay {noun} show {repo} {number}"] {
            let config = try Self.parse(text)
            #expect(config.terminalArgv(for: Self.target(nil), viewer: "/x/gbnotifyctl", isInstalled: { _ in true })
                == ["kitty", "-e", "/x/gbnotifyctl", "inbox", "cmc@gitbay.org:8443/git"])
        }
    }

    @Test func aValueWithSpacesStaysOneElement() throws {
        // No real gitbay value holds a space, so the template's own grouping stands in for one:
        // the expansion is never split again.
        let config = try Self.parse(#"terminal-command = run "{repo} is #{number}""#)
        let argv = config.terminalArgv(for: Self.target(Self.issue), viewer: "gbnotifyctl", isInstalled: { _ in true })
        #expect(argv == ["xdg-terminal-exec", "run", "krz/gitbay is #12"])
    }

    @Test(arguments: [
        ([String](), ["x-terminal-emulator", "-e"]),
        (["xdg-terminal-exec", "x-terminal-emulator"], ["xdg-terminal-exec"]),
        (["x-terminal-emulator"], ["x-terminal-emulator", "-e"]),
    ])
    func withoutATerminalTheFallbacksAreTriedInOrder(_ installed: [String], _ prefix: [String]) {
        let argv = Config.defaults.terminalArgv(for: Self.target(Self.issue), viewer: "gbnotifyctl", isInstalled: installed.contains)
        #expect(argv == prefix + ["gbnotifyctl", "show", "cmc@gitbay.org:8443/git", "krz/gitbay/issues/12"])
    }

    @Test func aConfiguredTerminalIsUsedWithoutLookingForOthers() throws {
        let config = try Self.parse("terminal = foot")
        let argv = config.terminalArgv(for: Self.target(Self.issue), viewer: "gbnotifyctl") { program in
            Issue.record("looked for \(program)")
            return true
        }
        #expect(argv == ["foot", "gbnotifyctl", "show", "cmc@gitbay.org:8443/git", "krz/gitbay/issues/12"])
    }
}

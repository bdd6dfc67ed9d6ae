/// The daemon's settings, from `$XDG_CONFIG_HOME/gbnotifyd/config`.
///
/// The file is a list of `key = value` lines; `#` and `;` start comment lines; blank lines and
/// whitespace around keys and values are ignored; a value may be wrapped in double quotes. The
/// keys at the top, before any section, are global (a file of those alone is what every earlier
/// version read). Then come sections: `[account USER@HOST]` with one account's own keys, and
/// `[rule NAME]`, the rules for what pops up (`ConfigSections`). Every key is optional and may
/// appear once in its section. A file over 64 KiB, a line over 4 KiB, an unknown section or key,
/// a repeated one or a bad value makes the whole file invalid: the daemon says which line,
/// section and key, and on a reload keeps the settings it had.
///
///     # ~/.config/gbnotifyd/config
///     poll-interval = 60
///     open-with = terminal
///     terminal = kitty -e
///     quiet-hours = 22:00-07:30
///
///     [rule bots]
///     actor = *\[bot\]
///     show = silent
public struct Config: Equatable, Sendable {
    /// `poll-interval`: seconds between two polls of one account while all is well, 10 to 3600;
    /// default 30. Each poll is one request, usually answered 304 with no body.
    public private(set) var pollIntervalSeconds = 30

    /// `backoff-cap`: the longest wait, in seconds, between retries after errors, 30 to 86400;
    /// default 900. A server's `Retry-After` is honoured even when it asks for longer.
    public private(set) var backoffCapSeconds = 900

    /// `ca-file`: an absolute path to a PEM bundle of CA certificates to verify servers with,
    /// for instances (and a relay) behind a private CA; default none, the system's CAs. It is
    /// trusted instead of the system's CAs (libcurl builds one store for all connections only
    /// from one file), so a user who needs both gives a bundle of both.
    /// Certificates are always verified.
    public private(set) var caFile: String?

    /// `open-with`: what a click on a notice opens, `browser` (the default, through
    /// `xdg-open`) or `terminal` (runs `terminal-command` in `terminal`).
    public private(set) var openWith = OpenWith.browser

    /// `terminal`: the terminal to run `terminal-command` in, as the words that come before the
    /// command, e.g. `kitty -e` or `"/opt/my term/bin/t" --exec`. Words split on spaces; double
    /// quotes group words with spaces into one. Default none: `xdg-terminal-exec` when
    /// installed, else `x-terminal-emulator -e`.
    public private(set) var terminal: [String]?

    /// `terminal-command`: the command that shows an item in the terminal; default
    /// `gbnotifyctl show {account} {path}`, gbnotify's own view, which reads the item from the
    /// notice's own instance with its account's token. Split into words like `terminal`, then
    /// these placeholders are replaced inside their word (a value never splits into more
    /// words): `{account}` the account as `USER@HOST`; `{path}` the item's path
    /// `OWNER/REPO/issues/N`; `{noun}` `issue`, `mr` or `build`; `{repo}` `OWNER/REPO`;
    /// `{number}` the item's number; `{host}` the instance's host; `{user}` the account's
    /// username. Any other `{` or `}` is an error, and so is a placeholder in the first word. A
    /// first word `gbnotifyctl` is the one installed beside gbnotifyd when there is one. For
    /// example `ssh -t git@{host} {noun} show {repo} {number}`; the gitbay CLI
    /// (`gitbay {noun} show {repo} {number}`) talks to its own default instance whatever
    /// account a notice came from. A summary, or a notice with no item, runs
    /// `gbnotifyctl inbox {account}` in the terminal whatever this says.
    public private(set) var terminalCommand = CommandTemplate.standard

    /// `relay-url`: an ntfy-compatible relay server (`https://ntfy.example.org`) to hear of new
    /// activity from as it happens; plain `http://` only for a loopback host. Default none:
    /// polling alone.
    public private(set) var relayURL: GitbayInstance?

    /// `relay-poll-interval`: seconds between safety-net polls of each account while the relay
    /// is connected, 30 to 86400; default 300. Used only with `relay-url`.
    public private(set) var relayPollIntervalSeconds = 300

    /// `relay-keepalive`: seconds between the keepalive events the relay sends on a quiet
    /// stream, 5 to 3600; default 45, ntfy's own default (a relay configured otherwise, with
    /// ntfy's `keepalive-interval`, needs the same value here). A stream with no bytes for two
    /// of these periods is taken for dead and reopened. Used only with `relay-url`.
    public private(set) var relayKeepaliveSeconds = 45

    /// `log-level`: the least important messages logged, one of `error`, `warning`, `notice`,
    /// `info` (the default) and `debug`.
    public private(set) var logLevel = LogLevel.info

    /// `max-notifications`: the most of gbnotifyd's notifications open at once, 1 to 50. Unset
    /// (nil, the default), it follows the notification server: as many as the server keeps
    /// per application where it evicts the oldest past a number (3 on GNOME Shell 43, 10 on 48),
    /// else `ServerQuirks.defaultKeptOpen`. Before one more would exceed it, the oldest fold into
    /// one summary per account.
    public private(set) var maxNotifications: Int?

    /// `allow-http`: `true` lets accounts use plain `http://` on hosts other than this machine,
    /// where the API token crosses the network readable by anyone on the path; default
    /// `false`. Booleans are `true`/`false`, `yes`/`no`, `on`/`off` or `1`/`0`.
    public private(set) var allowHTTP = false

    /// `quiet-hours`: a span of local time, `HH:MM-HH:MM`, every day, in which nothing pops up
    /// (polls go on and the badge counts; one summary per account when it ends). It may run
    /// across midnight (`22:00-07:30`). Default none.
    public private(set) var quietHours: QuietHours?

    /// `sound`: the sound of every popup, a name of the freedesktop sound naming spec such as
    /// `message-new-instant`, sent as the `sound-name` hint; `none` (the default) sends
    /// `suppress-sound`. Account sections and rules may say otherwise.
    public internal(set) var sound: String?

    /// `buttons`: the buttons a notification may carry beside the click on its body, most
    /// wanted first, as a list of `mark-read`, `reply`, `react` and `mute` separated by commas
    /// (each once), or `none`. Default `mark-read, reply, react, mute`. A server gets only as
    /// many as it shows (`ServerQuirks.buttonsShown`: GNOME Shell 3), the first that fit the
    /// notification; a summary can carry only Mark read, a build's notice no reply or 👍.
    public private(set) var buttons = NoticeButton.defaultOrder

    /// The `[account USER@HOST]` sections, in file order.
    public internal(set) var accountSections: [AccountSection] = []

    /// The `[rule NAME]` sections with the account sections' and the global sound under them.
    public internal(set) var rules = RuleSet.none

    /// `tray`: the tray item (a StatusNotifierItem with the unread count and the inbox in its
    /// menu), `auto` (the default: shown while a tray host, a StatusNotifierWatcher, is on the
    /// bus), `on` (the same, and its absence is logged as a warning) or `off` (none: gbnotifyd
    /// leaves the tray's names and objects alone).
    public private(set) var tray = Tray.auto

    /// Lines that were accepted but do nothing, or likely not what was meant, each with what to
    /// do instead, for the log.
    public internal(set) var warnings: [String] = []

    /// Every key at its default: what an empty or missing file means.
    public static let defaults = Config()

    /// The terminals tried in order when `terminal` is not set.
    public static let fallbackTerminals = [["xdg-terminal-exec"], ["x-terminal-emulator", "-e"]]

    public enum OpenWith: String, CaseIterable, Sendable {
        case browser
        case terminal
    }

    public enum Tray: String, CaseIterable, Sendable {
        case auto
        case on
        case off
    }

    /// The levels of syslog and journald that the daemon logs at.
    public enum LogLevel: String, CaseIterable, Sendable, Comparable {
        case error, warning, notice, info, debug

        /// The syslog priority, the digit of journald's `<N>` line prefix.
        public var priority: Int {
            switch self {
            case .error: 3
            case .warning: 4
            case .notice: 5
            case .info: 6
            case .debug: 7
            }
        }

        /// A level is "less" than another when it is more important, so a message is logged
        /// when its level is `<=` the configured one.
        public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.priority < rhs.priority }
    }

    private init() {}

    public static func parse(_ text: String) throws(ConfigError) -> Config {
        var config = Config()
        var firstLineOfKey: [Key: Int] = [:]
        let document = try ConfigKeyFile.document(of: text)
        for entry in document.global {
            if let retired = Self.retiredKeys[entry.key] {
                config.warnings.append("line \(entry.line): \(entry.key) is no longer read: \(retired); remove the line")
                continue
            }
            guard let key = Key.named(entry.key) else {
                if let sections = ConfigSections.sections(taking: entry.key) {
                    throw ConfigError(line: entry.line, key: entry.key, reason: """
                        belongs in \(sections): move the line below such a header (the keys at the top are \
                        the global ones)
                        """)
                }
                // A tab may sit inside a key ("poll\tinterval"); the message stays one plain line.
                throw ConfigError(line: entry.line, key: entry.key.displaySafe(truncatedTo: 40), reason: """
                    not a known key; the keys are \(ConfigKeys.global.map(\.name).joined(separator: ", "))
                    """)
            }
            if let earlier = firstLineOfKey[key] {
                throw ConfigError(line: entry.line, key: entry.key, reason: """
                    set a second time (first on line \(earlier)); keep one of the two lines
                    """)
            }
            firstLineOfKey[key] = entry.line
            try config.set(key, to: ConfigValue(line: entry.line, key: entry.key, raw: entry.value))
        }
        try config.readSections(document.sections, globalKeys: Set(ConfigKeys.global.map(\.name)))
        return config
    }

    /// The full argv that shows `target` in a terminal: the terminal's words, then
    /// `terminal-command` expanded for its item, or `gbnotifyctl inbox ACCOUNT` when it has
    /// none. `viewer` is the `gbnotifyctl` to run. `isInstalled` tells whether a program is on
    /// `PATH`; it is asked only when `terminal` is not set, to pick from `fallbackTerminals`
    /// (the last one when none is found, so the launch fails with its name in the error).
    public func terminalArgv(for target: PushTarget, viewer: String, isInstalled: (String) -> Bool) -> [String] {
        let prefix = terminalWords(isInstalled: isInstalled)
        guard let destination = target.destination else {
            return prefix + [viewer, "inbox", target.account.reference]
        }
        return prefix + terminalCommand.expanded(for: destination, account: target.account, viewer: viewer)
    }

    /// The full argv that composes a reply to `destination` of `account`'s in a terminal, what
    /// "Reply…" on a notification runs: the terminal's words, then `gbnotifyctl show --reply
    /// ACCOUNT PATH` (`viewer`): the item in gbnotify's terminal view, which opens `$VISUAL` or
    /// `$EDITOR` once it is shown (from a kept draft), posts the text once and keeps it as a draft
    /// when it cannot. A reply needs gbnotify's own command whatever `open-with` and
    /// `terminal-command` say.
    public func terminalReplyArgv(to destination: NotificationDestination, of account: Account, viewer: String, isInstalled: (String) -> Bool) -> [String] {
        terminalWords(isInstalled: isInstalled) + [viewer, "show", "--reply", account.reference, destination.path]
    }

    /// `terminal`, else the first of `fallbackTerminals` installed, else the last of them (so the
    /// launch fails with its name in the error).
    private func terminalWords(isInstalled: (String) -> Bool) -> [String] {
        terminal
            ?? Self.fallbackTerminals.first { isInstalled($0[0]) }
            ?? Self.fallbackTerminals[Self.fallbackTerminals.count - 1]
    }

    /// Keys of earlier versions, and why they are gone: an old config still starts the daemon.
    private static let retiredKeys = [
        "relay-topic": "each account listens on its own topic, its device token (gbnotifyctl account list --json shows it)",
    ]

    // MARK: - Keys

    enum Key: CaseIterable {
        case pollInterval, backoffCap, caFile, openWith, terminal, terminalCommand, relayURL, relayPollInterval
        case relayKeepalive, logLevel, maxNotifications, allowHTTP, quietHours, sound, tray, buttons

        var declaration: ConfigKey {
            switch self {
            case .pollInterval:
                ConfigKey("poll-interval", .placeholder("seconds"), default: "30", range: 10...3600, "Seconds between two polls of an account.")
            case .backoffCap:
                ConfigKey("backoff-cap", .placeholder("seconds"), default: "900", range: 30...86400, "The longest wait between retries after errors.")
            case .caFile:
                ConfigKey("ca-file", .placeholder("path"), default: "the system's CAs", "A PEM bundle to verify servers with, in place of the system's CAs.")
            case .openWith:
                ConfigKey("open-with", ConfigKey.choice(OpenWith.self), default: "`browser`", "What a click on a notice opens.")
            case .terminal:
                ConfigKey("terminal", .placeholder("words"), default: "`xdg-terminal-exec`", "The terminal the terminal view runs in.")
            case .terminalCommand:
                ConfigKey("terminal-command", .placeholder("words"), default: "`gbnotifyctl show {account} {path}`", "The command that shows an item in the terminal.")
            case .relayURL:
                ConfigKey("relay-url", .placeholder("url"), default: "none", "An ntfy-compatible relay to hear of activity from as it happens.")
            case .relayPollInterval:
                ConfigKey("relay-poll-interval", .placeholder("seconds"), default: "300", range: 30...86400, "Seconds between safety-net polls while the relay is up.")
            case .relayKeepalive:
                ConfigKey("relay-keepalive", .placeholder("seconds"), default: "45", range: 5...3600, "The relay's keepalive period; two without a byte mean a dead stream.")
            case .maxNotifications:
                ConfigKey("max-notifications", .placeholder("count"), default: "what the server keeps", range: 1...50, "The most of gbnotifyd's notifications open at once.")
            case .logLevel:
                ConfigKey("log-level", ConfigKey.choice(LogLevel.self), default: "`info`", "The least important messages logged.")
            case .allowHTTP:
                ConfigKey("allow-http", .placeholder("boolean"), default: "`false`", "Plain `http://` for hosts other than this machine.")
            case .quietHours:
                ConfigKey("quiet-hours", .parts(["hh", ":", "mm-hh", ":", "mm"]), default: "none", "A span of local time, every day, in which nothing pops up.")
            case .sound:
                ConfigKey("sound", .placeholderOr("name", literal: "none"), default: "`none`", "The sound of a popup, a freedesktop sound name.")
            case .tray:
                ConfigKey("tray", ConfigKey.choice(Tray.self), default: "`auto`", "The tray item with the unread count and the inbox.")
            case .buttons:
                ConfigKey(
                    "buttons", .placeholderOr("names", literal: "none"),
                    default: "`\(NoticeButton.defaultOrder.map(\.rawValue).joined(separator: ", "))`",
                    "A notification's buttons, most wanted first: \(NoticeButton.allCases.map { "`\($0.rawValue)`" }.joined(separator: ", ")).")
            }
        }
        /// The numbers a numeric key takes, as declared.
        var bounds: ClosedRange<Int> {
            guard let range = declaration.range else { preconditionFailure("\(declaration.name) is not numeric") }
            return range
        }
    }

    private mutating func set(_ key: Key, to value: ConfigValue) throws(ConfigError) {
        switch key {
        case .pollInterval: pollIntervalSeconds = try value.seconds(in: key.bounds)
        case .backoffCap: backoffCapSeconds = try value.seconds(in: key.bounds)
        case .caFile: caFile = try Self.absolutePath(value)
        case .openWith: openWith = try value.choice(OpenWith.self)
        case .terminal: terminal = try value.words()
        case .terminalCommand: terminalCommand = try value.commandTemplate()
        case .relayURL: relayURL = try Self.relayURL(value)
        case .relayPollInterval: relayPollIntervalSeconds = try value.seconds(in: key.bounds)
        case .relayKeepalive: relayKeepaliveSeconds = try value.seconds(in: key.bounds)
        case .logLevel: logLevel = try value.choice(LogLevel.self)
        case .maxNotifications: maxNotifications = try value.integer(in: key.bounds)
        case .allowHTTP: allowHTTP = try value.boolean()
        case .quietHours: quietHours = try value.quietHours()
        case .sound: sound = try value.sound().name
        case .tray: tray = try value.choice(Tray.self)
        case .buttons: buttons = try value.buttons()
        }
    }

    private static func absolutePath(_ value: ConfigValue) throws(ConfigError) -> String {
        let path = try value.text()
        guard path.hasPrefix("/") else {
            throw value.error("\(ConfigError.quoted(path)) is not an absolute path; write the full path, starting with /")
        }
        return path
    }

    private static func relayURL(_ value: ConfigValue) throws(ConfigError) -> GitbayInstance {
        let text = try value.text()
        do {
            return try GitbayInstance(parsing: text)
        } catch .insecureHTTP {
            throw value.error("\(ConfigError.quoted(text)) uses plain http, which is only allowed for a loopback relay; use https")
        } catch {
            throw value.error("\(ConfigError.quoted(text)) is not a usable relay URL: \(error)")
        }
    }
}

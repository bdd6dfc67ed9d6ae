/// What `gbnotifyctl doctor` says about each thing it looked at, decided here from what it saw,
/// so that every wording and verdict is unit-tested without a bus, a keyring or a server.
///
/// Here, the session gbnotify runs in: the desktop, the system bus, systemd and gbnotifyd itself;
/// what the user set up (accounts, the config, the terminal) is in `DoctorSetupFindings.swift`.
extension DoctorFinding {
    // MARK: - The desktop

    public static func sessionBus(unreachable reason: String?) -> DoctorFinding {
        let check = Localized.text("session bus", note: "gbnotifyctl doctor: the name of a check.")
        guard let reason else {
            return DoctorFinding(check, .ok, Localized.text("reachable", note: "gbnotifyctl doctor: the session bus's finding when it is reachable."))
        }
        return DoctorFinding(
            check, .failure,
            Localized.text(
                "cannot connect ({reason}), so the notification server, dock, systemd unit and gbnotifyd were not checked",
                note: "gbnotifyctl doctor, about the session bus. {reason}: libdbus's error, in English.", ["reason": reason]),
            fix: Localized.text(
                "run gbnotifyctl inside your desktop session, where DBUS_SESSION_BUS_ADDRESS names a running bus (Debian: apt install dbus-user-session, then log in again)",
                note: "gbnotifyctl doctor: what to do. The variable and the command stay as they are."))
    }

    /// What the notification server said about itself (`GetServerInformation`, `GetCapabilities`).
    public struct NotificationServerInfo: Sendable, Equatable {
        public var name: String
        public var vendor: String
        public var version: String
        public var capabilities: NotificationCapabilities

        public init(name: String, vendor: String, version: String, capabilities: NotificationCapabilities) {
            self.name = name
            self.vendor = vendor
            self.version = version
            self.capabilities = capabilities
        }
    }

    private static var notificationServerCheck: String { Localized.text("notification server", note: "gbnotifyctl doctor: the name of a check.") }

    public static var noNotificationServer: DoctorFinding {
        DoctorFinding(
            notificationServerCheck, .failure,
            Localized.text(
                "nothing owns org.freedesktop.Notifications on the session bus, so notices wait unshown",
                note: "gbnotifyctl doctor. The bus name stays as it is."),
            fix: Localized.text(
                "start your desktop's notification server, or install one (apt install dunst, or mako on Sway); gbnotifyd shows what waited as soon as one appears",
                note: "gbnotifyctl doctor: what to do. The commands stay as they are."))
    }

    /// Nothing runs, but the bus starts a server with the first notice, as mako is started on
    /// Sway and MATE's always is. `service` is nil where no service file offering the name was
    /// found where the session bus looks.
    public static func notificationServer(activatable service: ActivatableService?) -> DoctorFinding {
        let server = service.map { "\($0)" }
            ?? Localized.text("a server whose service file was not found", note: "gbnotifyctl doctor: stands for {server} in \"activatable: {server}; ...\".")
        return DoctorFinding(
            notificationServerCheck, .ok,
            Localized.text(
                "activatable: {server}; the bus starts it with the first notice, so what it can do was not asked",
                note: "gbnotifyctl doctor. {server}: the service's name and program, or the message of that name.", ["server": server]))
    }

    public static func notificationServer(unanswered reason: String) -> DoctorFinding {
        DoctorFinding(
            notificationServerCheck, .failure,
            Localized.text(
                "org.freedesktop.Notifications is owned but did not answer: {reason}",
                note: "gbnotifyctl doctor. {reason}: libdbus's error, in English.", ["reason": reason]),
            fix: Localized.text("restart the notification server (or log out and in again)", note: "gbnotifyctl doctor: what to do."))
    }

    /// The server as it named itself, what it can do, and what gbnotifyd does on it
    /// (`ServerQuirks`) with the config's `max-notifications`.
    public static func notificationServer(_ info: NotificationServerInfo, maxNotifications: Int?) -> DoctorFinding {
        let named = [info.name, info.version].filter { !$0.isEmpty }.joined(separator: " ")
        let unnamed = Localized.text("unnamed", note: "gbnotifyctl doctor: stands for a notification server's name when it gave none.")
        let server = info.vendor.isEmpty
            ? (named.isEmpty ? unnamed : named)
            : Localized.text(
                "{server} by {vendor}", note: "gbnotifyctl doctor: a notification server and who made it, as it names them. {server}: its name and version; {vendor}: its maker.",
                ["server": named.isEmpty ? unnamed : named, "vendor": info.vendor])
        let markup = info.capabilities.bodyMarkup
            ? Localized.text("body-markup (bodies are escaped for it)", note: "gbnotifyctl doctor. body-markup is the capability's name and stays as it is.")
            : Localized.text("no body-markup (bodies are sent as plain text)", note: "gbnotifyctl doctor. body-markup is the capability's name and stays as it is.")
        let conduct = conduct(on: ServerQuirks(serverName: info.name, version: info.version), maxNotifications: maxNotifications)
        let values: KeyValuePairs = ["server": server, "markup": markup, "conduct": conduct]
        guard info.capabilities.actions else {
            return DoctorFinding(
                notificationServerCheck, .warning,
                Localized.text(
                    "{server}, without actions, {markup}: a click does whatever this server does, and there is no \"Mark read\"; {conduct}",
                    note: "gbnotifyctl doctor. {server}: the server's name and version (and maker); {markup}: whether it takes body markup; {conduct}: what gbnotifyd does on it. \"Mark read\" is the button of that name.",
                    values),
                fix: Localized.text(
                    "to open items with a click, use a notification server with actions (GNOME Shell, KDE Plasma, dunst, mako)", note: "gbnotifyctl doctor: what to do."))
        }
        return DoctorFinding(
            notificationServerCheck, .ok,
            Localized.text(
                "{server}, with actions, {markup}; {conduct}",
                note: "gbnotifyctl doctor. {server}: the server's name and version (and maker); {markup}: whether it takes body markup; {conduct}: what gbnotifyd does on it.",
                values))
    }

    /// How many notifications gbnotifyd keeps open there and why, and what it does after a restart.
    private static func conduct(on server: ServerQuirks, maxNotifications: Int?) -> String {
        let kept = server.keptOpen(maxNotifications: maxNotifications)
        let why = maxNotifications != nil ? "max-notifications"
            : server.keptPerApplication != nil
            ? Localized.text("what this server keeps per application", note: "gbnotifyctl doctor: why gbnotifyd keeps so many notifications open.")
            : Localized.text("the default for servers that keep any number", note: "gbnotifyctl doctor: why gbnotifyd keeps so many notifications open.")
        let restart = server.adoptsAfterRestart
            ? Localized.text(
                "after a restart gbnotifyd takes over the notifications it left open", note: "gbnotifyctl doctor, about the notification server.")
            : Localized.text(
                "this server withdraws an application's notifications when it leaves the bus, so after a restart gbnotifyd shows what is unread afresh",
                note: "gbnotifyctl doctor, about the notification server.")
        return Localized.plural(
            "gbnotifyd keeps {count} open ({why}); {restart}", "gbnotifyd keeps {count} open ({why}); {restart}",
            count: kept,
            note: "gbnotifyctl doctor: how many notifications gbnotifyd keeps open on the server. {why}: why so many (the config key max-notifications, or a message); {restart}: what happens after a restart.",
            ["why": why, "restart": restart])
    }

    public static func dock(present: Bool) -> DoctorFinding {
        let check = Localized.text("dock", note: "gbnotifyctl doctor: the name of a check.")
        guard present else {
            return DoctorFinding(
                check, .warning,
                Localized.text(
                    "no dock that shows badges (nothing owns com.canonical.Unity), so the unread count shows nowhere",
                    note: "gbnotifyctl doctor. The bus name stays as it is."),
                fix: Localized.text(
                    "nothing to do unless you want the badge: a dock with launcher badges (Ubuntu Dock, Dash to Dock, Plank) shows it as soon as it starts",
                    note: "gbnotifyctl doctor: what to do. The docks' names stay as they are."))
        }
        return DoctorFinding(
            check, .ok,
            Localized.text("a dock that shows badges is present (com.canonical.Unity)", note: "gbnotifyctl doctor. The bus name stays as it is."))
    }

    /// The tray host, as the StatusNotifierWatcher's owner: `host` is its program's name
    /// (kded5 for Plasma, gnome-shell with the AppIndicator extension, panel-1-systray for the
    /// Status Tray of Xfce's panel, which runs in a wrapper of its own), nil when
    /// nothing owns the watcher's name.
    public static func tray(mode: Config.Tray, host: String?, owner: String?) -> DoctorFinding {
        let check = Localized.text("tray", note: "gbnotifyctl doctor: the name of a check.")
        if mode == .off {
            return DoctorFinding(
                check, .ok, Localized.text("off (tray = off): gbnotifyd shows no tray item", note: "gbnotifyctl doctor. \"tray = off\" is the config's line and stays as it is."))
        }
        guard let owner else {
            return DoctorFinding(
                check, .warning,
                Localized.text(
                    "no tray host (nothing owns org.kde.StatusNotifierWatcher), so the tray item shows nowhere until one starts",
                    note: "gbnotifyctl doctor. The bus name stays as it is."),
                fix: Localized.text(
                    "KDE Plasma's system tray and Xfce's panel (its Status Tray plugin) are tray hosts; on GNOME Shell: apt install gnome-shell-extension-appindicator, then enable it in Extensions",
                    note: "gbnotifyctl doctor: what to do. Use the desktops' own names for the system tray, the Status Tray plugin and Extensions."))
        }
        let name = host.map { "\($0.displaySafe(truncatedTo: 40)) (\(owner))" } ?? owner
        return DoctorFinding(
            check, .ok,
            Localized.text(
                "a tray host is present: org.kde.StatusNotifierWatcher is owned by {owner}",
                note: "gbnotifyctl doctor. {owner}: the program and its bus name.", ["owner": name]))
    }

    /// How a click brings the browser to the front. On Wayland a window may take focus only
    /// with an activation token: the OpenURI portal passes one on (and starts the browser
    /// itself); without a portal only a notification server that sends `ActivationToken` with
    /// the click gives one to xdg-open (KDE Plasma does; GNOME Shell 43 does not).
    public static func focus(portal: Bool, wayland: Bool) -> DoctorFinding {
        let check = Localized.text("opening items", note: "gbnotifyctl doctor: the name of a check.")
        if portal {
            return DoctorFinding(
                check, .ok,
                Localized.text("through the OpenURI portal (xdg-desktop-portal), which brings the browser to the front", note: "gbnotifyctl doctor, about opening items."))
        }
        guard wayland else {
            return DoctorFinding(
                check, .ok,
                Localized.text("with xdg-open (no OpenURI portal; on X11 the browser comes to the front by itself)", note: "gbnotifyctl doctor, about opening items."))
        }
        return DoctorFinding(
            check, .note,
            Localized.text(
                "with xdg-open: there is no OpenURI portal, so the browser comes to the front only where the notification server hands over an activation token with the click (KDE Plasma does; GNOME Shell 43 does not)",
                note: "gbnotifyctl doctor, about opening items."),
            fix: Localized.text(
                "apt install xdg-desktop-portal and your desktop's backend (xdg-desktop-portal-gnome, -kde or -gtk)",
                note: "gbnotifyctl doctor: what to do. The command and the package names stay as they are."))
    }

    // MARK: - The system bus

    /// What answers on the system bus, for sleep (systemd-logind) and the network (NetworkManager).
    public struct SystemServices: Sendable, Equatable {
        public var logind: Bool
        public var networkManager: Bool

        public init(logind: Bool, networkManager: Bool) {
            self.logind = logind
            self.networkManager = networkManager
        }
    }

    /// Neither service is required: without them gbnotifyd polls as it would anyway, and this
    /// says what it then cannot do.
    public static func system(_ services: SystemServices?, unreachable reason: String? = nil) -> DoctorFinding {
        let check = Localized.text("system bus", note: "gbnotifyctl doctor: the name of a check.")
        let noSleep = Localized.text(
            "after a resume, polls come when due rather than at once", note: "gbnotifyctl doctor: what gbnotifyd cannot do without systemd-logind.")
        let noNetwork = Localized.text(
            "network changes are not followed (polls that fail for want of a network are tried again within 60 s)",
            note: "gbnotifyctl doctor: what gbnotifyd cannot do without NetworkManager.")
        let both: KeyValuePairs = ["sleep": noSleep, "network": noNetwork]
        guard let services else {
            return DoctorFinding(
                check, .note,
                reason.map {
                    Localized.text(
                        "cannot connect ({reason}), so {sleep}, and {network}",
                        note: "gbnotifyctl doctor, about the system bus. {reason}: libdbus's error, in English; {sleep} and {network}: what gbnotifyd then cannot do (messages).",
                        ["reason": $0, "sleep": noSleep, "network": noNetwork])
                }
                    ?? Localized.text(
                        "cannot connect, so {sleep}, and {network}",
                        note: "gbnotifyctl doctor, about the system bus. {sleep} and {network}: what gbnotifyd then cannot do (messages).", both),
                fix: Localized.text(
                    "nothing to do in a container; on a desktop, start the system bus (apt install dbus)", note: "gbnotifyctl doctor: what to do."))
        }
        switch (services.logind, services.networkManager) {
        case (true, true):
            return DoctorFinding(
                check, .ok,
                Localized.text(
                    "systemd-logind and NetworkManager: gbnotifyd polls at once after a resume and when the network returns",
                    note: "gbnotifyctl doctor, about the system bus."))
        case (true, false):
            return DoctorFinding(
                check, .note,
                Localized.text(
                    "systemd-logind, but no NetworkManager: {network}",
                    note: "gbnotifyctl doctor. {network}: what gbnotifyd then cannot do (a message).", ["network": noNetwork]))
        case (false, true):
            return DoctorFinding(
                check, .note,
                Localized.text(
                    "NetworkManager, but no systemd-logind: {sleep}, and suspends do not wait for state to be saved",
                    note: "gbnotifyctl doctor. {sleep}: what gbnotifyd then cannot do (a message).", ["sleep": noSleep]))
        case (false, false):
            return DoctorFinding(
                check, .note,
                Localized.text(
                    "neither systemd-logind nor NetworkManager: {sleep}, and {network}",
                    note: "gbnotifyctl doctor. {sleep} and {network}: what gbnotifyd then cannot do (messages).", both))
        }
    }

    // MARK: - systemd

    public static let unitName = "gbnotifyd.service"

    private static var unitCheck: String { Localized.text("systemd unit", note: "gbnotifyctl doctor: the name of a check.") }

    public static var noSystemd: DoctorFinding {
        DoctorFinding(
            unitCheck, .note,
            Localized.text(
                "cannot tell whether {unit} is enabled: no systemd user manager on the session bus; the XDG autostart entry starts gbnotifyd in sessions without systemd",
                note: "gbnotifyctl doctor. {unit}: gbnotifyd.service.", ["unit": unitName]))
    }

    /// From the systemd user manager's `GetUnitFileState`.
    public static func unit(state: String) -> DoctorFinding {
        let enable = "systemctl --user enable --now gbnotifyd"
        let values: KeyValuePairs = ["unit": unitName, "state": state]
        switch state {
        case "enabled", "enabled-runtime", "linked", "linked-runtime", "alias", "indirect", "generated", "transient":
            return DoctorFinding(
                unitCheck, .ok,
                Localized.text("{unit} is {state}", note: "gbnotifyctl doctor. {unit}: gbnotifyd.service; {state}: systemd's word for it (as enabled), in English.", values))
        case "disabled":
            return DoctorFinding(
                unitCheck, .warning,
                Localized.text(
                    "{unit} is disabled, so only the autostart entry or D-Bus activation starts gbnotifyd",
                    note: "gbnotifyctl doctor. {unit}: gbnotifyd.service.", ["unit": unitName]),
                fix: enable)
        case "masked", "masked-runtime":
            return DoctorFinding(
                unitCheck, .warning,
                Localized.text(
                    "{unit} is {state}, so systemd never starts it",
                    note: "gbnotifyctl doctor. {unit}: gbnotifyd.service; {state}: systemd's word for it (masked), in English.", values),
                fix: "systemctl --user unmask gbnotifyd && \(enable)")
        default:
            return DoctorFinding(
                unitCheck, .warning,
                state.isEmpty
                    ? Localized.text("systemd reports nothing for {unit}", note: "gbnotifyctl doctor. {unit}: gbnotifyd.service.", ["unit": unitName])
                    : Localized.text(
                        "systemd reports {unit} as \"{state}\"",
                        note: "gbnotifyctl doctor. {unit}: gbnotifyd.service; {state}: systemd's word for it, in English.", values),
                fix: enable)
        }
    }

    public static func unit(unknown reason: String) -> DoctorFinding {
        DoctorFinding(
            unitCheck, .warning,
            Localized.text(
                "systemd does not know {unit} ({reason})",
                note: "gbnotifyctl doctor. {unit}: gbnotifyd.service; {reason}: systemd's error, in English.", ["unit": unitName, "reason": reason]),
            fix: Localized.text(
                "install gbnotify (make install, or the .deb), then: systemctl --user daemon-reload && systemctl --user enable --now gbnotifyd",
                note: "gbnotifyctl doctor: what to do. The commands stay as they are."))
    }

    // MARK: - gbnotifyd

    public static var daemonNotRunning: DoctorFinding {
        DoctorFinding(
            "gbnotifyd", .failure,
            Localized.text(
                "not running (nothing owns {name} on the session bus)", note: "gbnotifyctl doctor, about gbnotifyd. {name}: its bus name.",
                ["name": DaemonInterface.busName]),
            fix: Localized.text(
                "systemctl --user start gbnotifyd, or run gbnotifyd; its log says why it stopped (journalctl --user -u gbnotifyd)",
                note: "gbnotifyctl doctor: what to do. The commands stay as they are."))
    }

    public static func daemon(unanswered reason: String) -> DoctorFinding {
        DoctorFinding(
            "gbnotifyd", .failure,
            Localized.text(
                "running, but Status() failed: {reason}", note: "gbnotifyctl doctor, about gbnotifyd. {reason}: libdbus's error, in English.",
                ["reason": reason]),
            fix: "systemctl --user restart gbnotifyd")
    }

    public static func daemon(_ status: DaemonStatus) -> DoctorFinding {
        var states: [AccountState: Int] = [:]
        for account in status.accounts { states[account.state, default: 0] += 1 }
        let tally = AccountState.allCases.compactMap { state in states[state].map { "\($0) \(state.rawValue)" } }
        let accounts = Localized.plural(
            "{count} account", "{count} accounts", count: status.accounts.count, note: "gbnotifyctl doctor: how many accounts gbnotifyd has.")
            + (tally.isEmpty ? "" : " (\(tally.joined(separator: ", ")))")
        let running = Localized.text(
            "running: gbnotifyd {version}, up {uptime}, {accounts}",
            note: "gbnotifyctl doctor. {version}: gbnotifyd's version; {uptime}: how long it has run (\"3h 20m\"); {accounts}: \"2 accounts\", with their states in English in brackets.",
            ["version": status.version.displaySafe(truncatedTo: 32), "uptime": DaemonStatus.duration(status.uptimeSeconds), "accounts": accounts])
        guard status.version == GBNotify.version else {
            return DoctorFinding(
                "gbnotifyd", .warning,
                Localized.text(
                    "{running}; this gbnotifyctl is {version}",
                    note: "gbnotifyctl doctor when gbnotifyd is another version. {running}: the message that starts \"running: gbnotifyd\"; {version}: gbnotifyctl's version.",
                    ["running": running, "version": GBNotify.version]),
                fix: Localized.text(
                    "systemctl --user restart gbnotifyd, so that the installed version runs", note: "gbnotifyctl doctor: what to do. The command stays as it is."))
        }
        return DoctorFinding("gbnotifyd", .ok, running)
    }

    /// The relay stream as the running daemon reports it; nil when no `relay-url` is configured.
    public static func relay(_ relay: RelayStatus) -> DoctorFinding? {
        guard let url = relay.url else { return nil }
        let check = Localized.text("relay", note: "gbnotifyctl doctor: the name of a check.")
        guard relay.connected else {
            return DoctorFinding(
                check, .warning,
                relay.lastError.map {
                    Localized.text(
                        "not connected to {url}: {error}; polling alone meanwhile",
                        note: "gbnotifyctl doctor, about the relay. {url}: the relay's address; {error}: the last error, in English.",
                        ["url": url, "error": $0])
                }
                    ?? Localized.text(
                        "not connected to {url}; polling alone meanwhile", note: "gbnotifyctl doctor, about the relay. {url}: the relay's address.", ["url": url]),
                fix: Localized.text(
                    "check relay-url (and the relay's access token) and that the relay is up; gbnotifyd reconnects by itself",
                    note: "gbnotifyctl doctor: what to do. relay-url is the config key and stays as it is."))
        }
        return DoctorFinding(
            check, .ok, Localized.text("connected to {url}", note: "gbnotifyctl doctor, about the relay. {url}: the relay's address.", ["url": url]))
    }
}

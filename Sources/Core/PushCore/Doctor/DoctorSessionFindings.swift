/// What `gbnotifyctl doctor` says about each thing it looked at, decided here from what it saw,
/// so that every wording and verdict is unit-tested without a bus, a keyring or a server.
///
/// Here, the session gbnotify runs in: the desktop, the system bus, systemd and gbnotifyd itself;
/// what the user set up (accounts, the config, the terminal) is in `DoctorSetupFindings.swift`.
extension DoctorFinding {
    // MARK: - The desktop

    public static func sessionBus(unreachable reason: String?) -> DoctorFinding {
        guard let reason else { return DoctorFinding("session bus", .ok, "reachable") }
        return DoctorFinding(
            "session bus", .failure,
            "cannot connect (\(reason)), so the notification server, dock, systemd unit and gbnotifyd were not checked",
            fix: """
                run gbnotifyctl inside your desktop session, where DBUS_SESSION_BUS_ADDRESS names a running \
                bus (Debian: apt install dbus-user-session, then log in again)
                """)
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

    public static let noNotificationServer = DoctorFinding(
        "notification server", .failure,
        "nothing owns org.freedesktop.Notifications on the session bus, so notices wait unshown",
        fix: """
            start your desktop's notification server, or install one (apt install dunst, or mako on \
            Sway); gbnotifyd shows what waited as soon as one appears
            """)

    /// Nothing runs, but the bus starts a server with the first notice, as mako is started on
    /// Sway and MATE's always is. `service` is nil where no service file offering the name was
    /// found where the session bus looks.
    public static func notificationServer(activatable service: ActivatableService?) -> DoctorFinding {
        let server = service.map { "\($0)" } ?? "a server whose service file was not found"
        return DoctorFinding(
            "notification server", .ok,
            "activatable: \(server); the bus starts it with the first notice, so what it can do was not asked")
    }

    public static func notificationServer(unanswered reason: String) -> DoctorFinding {
        DoctorFinding(
            "notification server", .failure, "org.freedesktop.Notifications is owned but did not answer: \(reason)",
            fix: "restart the notification server (or log out and in again)")
    }

    /// The server as it named itself, what it can do, and what gbnotifyd does on it
    /// (`ServerQuirks`) with the config's `max-notifications`.
    public static func notificationServer(_ info: NotificationServerInfo, maxNotifications: Int?) -> DoctorFinding {
        let server = [info.name, info.version].filter { !$0.isEmpty }.joined(separator: " ")
        let by = info.vendor.isEmpty ? "" : " by \(info.vendor)"
        let markup = info.capabilities.bodyMarkup
            ? "body-markup (bodies are escaped for it)" : "no body-markup (bodies are sent as plain text)"
        let conduct = conduct(on: ServerQuirks(serverName: info.name, version: info.version), maxNotifications: maxNotifications)
        guard info.capabilities.actions else {
            return DoctorFinding(
                "notification server", .warning,
                "\(server.isEmpty ? "unnamed" : server)\(by), without actions, \(markup): a click does whatever this server does, and there is no \"Mark read\"; \(conduct)",
                fix: "to open items with a click, use a notification server with actions (GNOME Shell, KDE Plasma, dunst, mako)")
        }
        return DoctorFinding("notification server", .ok, "\(server.isEmpty ? "unnamed" : server)\(by), with actions, \(markup); \(conduct)")
    }

    /// How many notifications gbnotifyd keeps open there and why, and what it does after a restart.
    private static func conduct(on server: ServerQuirks, maxNotifications: Int?) -> String {
        let kept = server.keptOpen(maxNotifications: maxNotifications)
        let why = maxNotifications != nil ? "max-notifications"
            : server.keptPerApplication != nil ? "what this server keeps per application"
            : "the default for servers that keep any number"
        let restart = server.adoptsAfterRestart
            ? "after a restart gbnotifyd takes over the notifications it left open"
            : "this server withdraws an application's notifications when it leaves the bus, so after a restart gbnotifyd shows what is unread afresh"
        return "gbnotifyd keeps \(kept) open (\(why)); \(restart)"
    }

    public static func dock(present: Bool) -> DoctorFinding {
        guard present else {
            return DoctorFinding(
                "dock", .warning,
                "no dock that shows badges (nothing owns com.canonical.Unity), so the unread count shows nowhere",
                fix: """
                    nothing to do unless you want the badge: a dock with launcher badges (Ubuntu Dock, \
                    Dash to Dock, Plank) shows it as soon as it starts
                    """)
        }
        return DoctorFinding("dock", .ok, "a dock that shows badges is present (com.canonical.Unity)")
    }

    /// The tray host, as the StatusNotifierWatcher's owner: `host` is its program's name
    /// (kded5 for Plasma, gnome-shell with the AppIndicator extension, panel-1-systray for the
    /// Status Tray of Xfce's panel, which runs in a wrapper of its own), nil when
    /// nothing owns the watcher's name.
    public static func tray(mode: Config.Tray, host: String?, owner: String?) -> DoctorFinding {
        if mode == .off {
            return DoctorFinding("tray", .ok, "off (tray = off): gbnotifyd shows no tray item")
        }
        guard let owner else {
            return DoctorFinding(
                "tray", .warning,
                "no tray host (nothing owns org.kde.StatusNotifierWatcher), so the tray item shows nowhere until one starts",
                fix: """
                    KDE Plasma's system tray and Xfce's panel (its Status Tray plugin) are tray hosts; on GNOME Shell: apt install gnome-shell-extension-appindicator, then enable it in Extensions
                    """)
        }
        let name = host.map { "\($0.displaySafe(truncatedTo: 40)) (\(owner))" } ?? owner
        return DoctorFinding("tray", .ok, "a tray host is present: org.kde.StatusNotifierWatcher is owned by \(name)")
    }

    /// How a click brings the browser to the front. On Wayland a window may take focus only
    /// with an activation token: the OpenURI portal passes one on (and starts the browser
    /// itself); without a portal only a notification server that sends `ActivationToken` with
    /// the click gives one to xdg-open (KDE Plasma does; GNOME Shell 43 does not).
    public static func focus(portal: Bool, wayland: Bool) -> DoctorFinding {
        if portal {
            return DoctorFinding("opening items", .ok, "through the OpenURI portal (xdg-desktop-portal), which brings the browser to the front")
        }
        guard wayland else {
            return DoctorFinding("opening items", .ok, "with xdg-open (no OpenURI portal; on X11 the browser comes to the front by itself)")
        }
        return DoctorFinding(
            "opening items", .note,
            """
            with xdg-open: there is no OpenURI portal, so the browser comes to the front only where the \
            notification server hands over an activation token with the click (KDE Plasma does; GNOME Shell 43 does not)
            """,
            fix: "apt install xdg-desktop-portal and your desktop's backend (xdg-desktop-portal-gnome, -kde or -gtk)")
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
        let noSleep = "after a resume, polls come when due rather than at once"
        let noNetwork = "network changes are not followed (polls that fail for want of a network are tried again within 60 s)"
        guard let services else {
            return DoctorFinding(
                "system bus", .note,
                "cannot connect\(reason.map { " (\($0))" } ?? ""), so \(noSleep), and \(noNetwork)",
                fix: "nothing to do in a container; on a desktop, start the system bus (apt install dbus)")
        }
        switch (services.logind, services.networkManager) {
        case (true, true):
            return DoctorFinding(
                "system bus", .ok,
                "systemd-logind and NetworkManager: gbnotifyd polls at once after a resume and when the network returns")
        case (true, false):
            return DoctorFinding("system bus", .note, "systemd-logind, but no NetworkManager: \(noNetwork)")
        case (false, true):
            return DoctorFinding(
                "system bus", .note, "NetworkManager, but no systemd-logind: \(noSleep), and suspends do not wait for state to be saved")
        case (false, false):
            return DoctorFinding("system bus", .note, "neither systemd-logind nor NetworkManager: \(noSleep), and \(noNetwork)")
        }
    }

    // MARK: - systemd

    public static let unitName = "gbnotifyd.service"

    public static let noSystemd = DoctorFinding(
        "systemd unit", .note,
        "cannot tell whether \(unitName) is enabled: no systemd user manager on the session bus; the XDG autostart entry starts gbnotifyd in sessions without systemd")

    /// From the systemd user manager's `GetUnitFileState`.
    public static func unit(state: String) -> DoctorFinding {
        let enable = "systemctl --user enable --now gbnotifyd"
        switch state {
        case "enabled", "enabled-runtime", "linked", "linked-runtime", "alias", "indirect", "generated", "transient":
            return DoctorFinding("systemd unit", .ok, "\(unitName) is \(state)")
        case "disabled":
            return DoctorFinding(
                "systemd unit", .warning,
                "\(unitName) is disabled, so only the autostart entry or D-Bus activation starts gbnotifyd",
                fix: enable)
        case "masked", "masked-runtime":
            return DoctorFinding(
                "systemd unit", .warning, "\(unitName) is \(state), so systemd never starts it",
                fix: "systemctl --user unmask gbnotifyd && \(enable)")
        default:
            return DoctorFinding(
                "systemd unit", .warning, "systemd reports \(unitName) as \(state.isEmpty ? "nothing" : "\"\(state)\"")",
                fix: enable)
        }
    }

    public static func unit(unknown reason: String) -> DoctorFinding {
        DoctorFinding(
            "systemd unit", .warning, "systemd does not know \(unitName) (\(reason))",
            fix: "install gbnotify (make install, or the .deb), then: systemctl --user daemon-reload && systemctl --user enable --now gbnotifyd")
    }

    // MARK: - gbnotifyd

    public static let daemonNotRunning = DoctorFinding(
        "gbnotifyd", .failure, "not running (nothing owns \(DaemonInterface.busName) on the session bus)",
        fix: "systemctl --user start gbnotifyd, or run gbnotifyd; its log says why it stopped (journalctl --user -u gbnotifyd)")

    public static func daemon(unanswered reason: String) -> DoctorFinding {
        DoctorFinding(
            "gbnotifyd", .failure, "running, but Status() failed: \(reason)",
            fix: "systemctl --user restart gbnotifyd")
    }

    public static func daemon(_ status: DaemonStatus) -> DoctorFinding {
        var states: [AccountState: Int] = [:]
        for account in status.accounts { states[account.state, default: 0] += 1 }
        let tally = AccountState.allCases.compactMap { state in states[state].map { "\($0) \(state.rawValue)" } }
        let accounts = status.accounts.count.counted("account")
            + (tally.isEmpty ? "" : " (\(tally.joined(separator: ", ")))")
        let running = "running: gbnotifyd \(status.version.displaySafe(truncatedTo: 32)), up \(DaemonStatus.duration(status.uptimeSeconds)), \(accounts)"
        guard status.version == GBNotify.version else {
            return DoctorFinding(
                "gbnotifyd", .warning, "\(running); this gbnotifyctl is \(GBNotify.version)",
                fix: "systemctl --user restart gbnotifyd, so that the installed version runs")
        }
        return DoctorFinding("gbnotifyd", .ok, running)
    }

    /// The relay stream as the running daemon reports it; nil when no `relay-url` is configured.
    public static func relay(_ relay: RelayStatus) -> DoctorFinding? {
        guard let url = relay.url else { return nil }
        guard relay.connected else {
            return DoctorFinding(
                "relay", .warning,
                "not connected to \(url)\(relay.lastError.map { ": \($0)" } ?? ""); polling alone meanwhile",
                fix: "check relay-url (and the relay's access token) and that the relay is up; gbnotifyd reconnects by itself")
        }
        return DoctorFinding("relay", .ok, "connected to \(url)")
    }
}

import Accounts
import CGlibc
import DBus
import Desktop
import FoundationEssentials
import Glibc
import Keyring
import LocalTime
import Logging
import MainLoop
import Notifications
import PushCore
import Settings
import Spawn
import StateStore
import SystemCalls
import Tray

/// gbnotifyd from start to exit: config, bus name, supervisor, signals, readiness.
///
/// gbnotifyd never forks: systemd (`Type=notify` or `Type=dbus`), D-Bus activation and XDG
/// autostart all want the process they started to be the daemon.
public enum Lifecycle {
    public struct Options: Sendable {
        /// `--config PATH`; nil for `$XDG_CONFIG_HOME/gbnotifyd/config`.
        public var configPath: String?
        /// `--verbose`: debug lines whatever `log-level` says.
        public var verbose: Bool
        /// `--unless-running`: another gbnotifyd on the bus is success, not an error. The XDG
        /// autostart entry uses it, so that a session whose daemon systemd or D-Bus activation
        /// already started logs no error.
        public var unlessRunning: Bool
        /// `--events-fd N`: what the daemon does, as JSON lines on this descriptor (`EventLines`).
        public var eventsDescriptor: Int32?

        public init(configPath: String?, verbose: Bool, unlessRunning: Bool, eventsDescriptor: Int32? = nil) {
            self.configPath = configPath
            self.verbose = verbose
            self.unlessRunning = unlessRunning
            self.eventsDescriptor = eventsDescriptor
        }
    }

    /// Runs the daemon until SIGTERM or SIGINT (exit 0) or a fault it cannot live with, such as
    /// a bad config at start, another gbnotifyd on the bus or a lost bus (exit 1, logged).
    ///
    /// Here the parts are made and wired together: the signals, the bus, the keyring, the relay,
    /// the system bus and the desktop's clicks all reach the supervisor by a call, and the
    /// supervisor feeds the desktop. Every task started here ends with the stop.
    ///
    /// Isolated to `LoopActor`, as the stages are: the tasks that follow the signals, the bus
    /// and the keyring run on the loop with them and call them directly.
    @LoopActor
    public static func run(_ options: Options, environment: [String: String]) async -> Int32 {
        let logger = Logger(level: .info, verbose: options.verbose)
        // No core dump, and no peeking from other processes: either would show every token.
        if gbn_forbid_core_dumps() != 0 {
            logger.warning("cannot make gbnotifyd undumpable: \(String(cString: strerror(errno)))")
        }
        guard let configPath = options.configPath ?? ConfigFile.defaultPath(environment: environment) else {
            logger.error("neither XDG_CONFIG_HOME nor HOME is set, so there is no config file to read")
            return 1
        }
        let settings: DaemonSettings
        let state: StateDirectory
        let events: DaemonEvents
        do {
            settings = DaemonSettings(config: try ConfigFile.load(configPath))
            state = try StateDirectory(environment: environment)
            events = try options.eventsDescriptor.map { descriptor throws(EventLinesError) in
                try EventLines.events(writingTo: descriptor, logger: logger)
            } ?? .none
        } catch {
            logger.error("\(error)")
            return 1
        }
        logger.setLevel(settings.config.logLevel)
        // From here on a stalled loop stops the pings, and systemd restarts the daemon.
        let watchdog = Watchdog(environment: environment)
        watchdog?.start()

        // Taken from here on, and read once the supervisor exists: a SIGTERM or a SIGHUP during
        // start-up waits for that, and still stops cleanly or reloads.
        let requests: AsyncCompactMapSequence<AsyncStream<Int32>, SignalRequest>?
        do {
            requests = try SignalRequest.requests()
        } catch {
            logger.warning("\(error); SIGTERM and SIGHUP are not handled")
            requests = nil
        }
        let (endings, end) = AsyncStream.makeStream(of: Ending.self)
        var wiring: [Task<Void, Never>] = []
        defer { wiring.forEach { $0.cancel() } }

        let connection: DBusConnection
        do {
            // Nothing the daemon is sent comes near the limit; a call over it is refused, the
            // connection kept, and the caller said once.
            connection = try await DBusConnection.connect(limitingIncomingMessagesTo: maximumIncomingMessage) { refused in
                logger.warning("""
                    refused \(refused.member) from \(refused.sender): over \(maximumIncomingMessage / 1024) KiB \
                    (said once per caller)
                    """)
            }
        } catch {
            logger.error("cannot connect to the session bus: \(error)")
            return 1
        }
        connection.whenReconnected { name in
            logger.warning("the session bus dropped gbnotifyd's connection; connected again as \(name)")
        }
        // The keyring waits as long as the user takes over its dialogs; a wait is said in
        // `status` meanwhile. The report comes from an alarm, on the loop's thread, and is
        // handed on in a job of the loop's own, outside the keyring's call.
        let keyringWaits = KeyringWaitsTold()
        let keyring = Keyring(reportingWaits: KeyringWaitReport(after: .seconds(1)) { wait in
            MainLoop.shared.submit { LoopActor.assumeIsolated { keyringWaits.tell(wait) } }
        })
        let stateFiles = StateFiles(state)
        let desktop: Desktop?
        do {
            desktop = try await Desktop.start(
                on: connection, state: stateFiles, options: Desktop.Options(config: settings.config, environment: environment, events: events),
                logger: logger)
        } catch {
            logger.error("cannot reach the desktop's notification server (\(error)); notices only go to the log")
            desktop = nil
        }
        let screenSink: DesktopSink
        if let desktop {
            screenSink = { await desktop.hand($0) }
        } else {
            screenSink = LogSink.sink(logger)
        }
        let tray = await startTray(on: connection, config: settings.config, environment: environment, logger: logger)
        // The tray hears what the screen hears, after it.
        let sink: DesktopSink = { news in
            await screenSink(news)
            await tray?.hand(news)
        }
        let supervisor = Supervisor(
            settings: settings, configPath: configPath,
            sources: Supervisor.Sources(
                accounts: { AccountListing(try await keyring.list()) }, relayToken: { try await keyring.relayToken(for: $0) },
                loadSettings: { () throws(ConfigFileError) in DaemonSettings(config: try ConfigFile.load(configPath)) }),
            state: stateFiles, desktop: sink,
            logger: logger, hostname: AccountManager.localHostname, keyring: keyring, parts: Supervisor.Parts(events: events))
        let readiness = Readiness(SystemdNotifier(environment: environment))
        if let requests {
            wiring.append(Task {
                for await request in requests {
                    switch request {
                    case .reload: supervisor.take(.reload(reply: nil))
                    case .stop(let number): end.yield(.stopSignal(number))
                    }
                }
            })
        }
        keyringWaits.to = { wait in
            supervisor.take(.keyringWaiting(wait))
            readiness.status("Waiting for the keyring")
        }
        desktop?.sendRequests(to: supervisor)
        if let tray {
            wiring.append(Task {
                for await request in tray.tray.requests {
                    switch tray.choice(for: request) {
                    case .open(let target, let token)?: desktop?.open(target, activationToken: token)
                    case .supervisor(let event)?: supervisor.take(event)
                    case nil: logger.info("nothing to open from the tray: no account is polled")
                    }
                }
            })
        }
        if let following = await followTheKeyring(on: connection, telling: supervisor, logger: logger) {
            wiring.append(following)
        }
        do {
            try await BusService.export(supervisor, on: connection, logger: logger)
            guard try await connection.requestName(DaemonInterface.busName) else {
                if options.unlessRunning {
                    logger.debug("another gbnotifyd already owns \(DaemonInterface.busName); nothing to do (--unless-running)")
                    await connection.close()
                    return 0
                }
                let owner = (try? await connection.nameOwner(DaemonInterface.busName)) ?? nil
                logger.error("""
                    another gbnotifyd is already running on this session bus (\(DaemonInterface.busName) is \
                    owned by \(owner ?? "another connection")); not starting a second one
                    """)
                await connection.close()
                return 1
            }
        } catch {
            logger.error("cannot offer \(DaemonInterface.busName) on the session bus: \(error)")
            await connection.close()
            return 1
        }
        wiring.append(Task {
            switch try? await connection.waitUntilClosed() {
            case .disconnected?: end.yield(.busLost)
            case .nameTaken(let name, let owner)?: end.yield(.nameTaken(name, owner: owner))
            case .closed?, nil: break
            }
        })

        let system = await followTheSystem(telling: supervisor, state: stateFiles, logger: logger)

        wiring.append(Task {
            do {
                try await supervisor.start()
            } catch {
                logger.error("cannot use the state directory \(state.path): \(error)")
                end.yield(.startFailed)
                return
            }
            let accounts = supervisor.status().accounts.count
            readiness.status("Polling \(accounts) account\(accounts == 1 ? "" : "s")")
        })

        var exitStatus: Int32 = 0
        waiting: for await ending in endings {
            switch ending {
            case .stopSignal(let number):
                logger.info("stopping on signal \(number)")
                break waiting
            case .busLost:
                logger.error("lost the session bus; exiting so that the service manager can start gbnotifyd again")
                exitStatus = 1
                break waiting
            case .nameTaken(let name, let owner):
                // What was sent to the name meanwhile (clicks, calls) went to the other owner; no
                // click on a notification shown before can be told from one it sent.
                logger.error("""
                    the session bus dropped gbnotifyd's connection, and by the time it was back \
                    \(owner.map { "another process (\($0))" } ?? "another process") had taken \(name); \
                    exiting rather than serve it beside that process
                    """)
                exitStatus = 1
                break waiting
            case .startFailed:
                exitStatus = 1
                break waiting
            }
        }
        readiness.stopping()
        watchdog?.stop()
        // A second SIGTERM stays unread: it cannot cut the clean stop short.
        wiring.forEach { $0.cancel() }
        _ = consume system
        await supervisor.stop()
        await desktop?.stop()
        tray?.tray.stop()
        await connection.close()
        logger.info("stopped")
        return exitStatus
    }

    /// The largest D-Bus message the daemon takes in: `Deliver`'s 8 KiB payload and the
    /// desktop's other signals are far below it. `NotificationReplied` carries what the user
    /// typed into a popup: a reply over gitbay's limit, up to what a draft keeps, must still
    /// arrive (with room for the message's header), to be kept and refused with the limit named
    /// rather than dropped unseen.
    static let maximumIncomingMessage = DraftRecord.maximumTextBytes + 4 * 1024

    /// The tray item on `connection`, unless `tray = off`; nil then, and when it cannot be
    /// exported (logged). The count is drawn on the icon file a notification names (the
    /// installed one, or the source tree's for a build), by the `gbnotifyctl` a click's terminal
    /// view would run.
    private static func startTray(
        on connection: DBusConnection, config: Config, environment: [String: String], logger: Logger
    ) async -> TrayStage? {
        guard config.tray != .off else { return nil }
        let icon = Notification.appIcon(environment: environment)
        let drawing = icon.hasPrefix("file://")
            ? Tray.IconDrawing(
                program: ClickLaunch.viewerProgram(
                    in: RunningProgram.directory, isInstalled: { RunningProgram.isInstalled($0, environment: environment) }),
                svgFile: String(icon.dropFirst("file://".count)))
            : nil
        do {
            // A host's clicks and menu events open things and mark notices read: only from the
            // user's own programs outside a sandbox, as the daemon's own methods that steer it.
            let callers = CallerCheck(connection: connection, logger: logger)
            let options = Tray.Options(mode: config.tray, drawing: drawing, admit: { try await callers.admit($0) })
            let tray = try await Tray.start(on: connection, options: options, logger: logger)
            return TrayStage(tray: tray, wallClock: WallClock(timeline: Timeline()), zone: SystemZone.offsets)
        } catch {
            logger.warning("no tray item: \(error)")
            return nil
        }
    }

    /// An account stored, changed or removed by anyone (`secret-tool` too), or a keyring
    /// unlocked, is read at once: no SIGHUP needed. Changes that come while the accounts are
    /// being read are read once more after, not once each.
    @LoopActor
    private static func followTheKeyring(
        on connection: DBusConnection, telling supervisor: Supervisor, logger: Logger
    ) async -> Task<Void, Never>? {
        do {
            return try await KeyringChanges.follow(on: connection) { change in
                logger.debug("\(change)")
                supervisor.take(.keyringChanged)
            }
        } catch {
            logger.warning("cannot follow the keyring's changes (\(error)); accounts are read again on SIGHUP and gbnotifyctl's reloads")
            return nil
        }
    }

    /// The system bus's word on sleep and the network, for the supervisor; nothing where there
    /// is no system bus (then polling goes on as without it, and `doctor` says so). The watch
    /// lives as long as what this returns.
    private static func followTheSystem(
        telling supervisor: Supervisor, state: StateFiles, logger: Logger
    ) async -> [AnyObject] {
        let bus: DBusConnection
        do {
            bus = try await DBusConnection.connect(to: .system, limitingIncomingMessagesTo: maximumIncomingMessage)
        } catch {
            logger.notice("no system bus (\(error)); sleep and network changes are not followed")
            return []
        }
        do {
            return [bus, try await SystemWatch.start(telling: supervisor, state: state, on: bus, logger: logger)]
        } catch {
            logger.warning("cannot follow sleep and the network on the system bus: \(error)")
            return [bus]
        }
    }

    /// Where the keyring's waits are told, once the supervisor exists: the keyring is made before
    /// it (the supervisor reads the accounts through it), and only the supervisor's calls wait.
    @LoopActor
    private final class KeyringWaitsTold {
        var to: (KeyringWait) -> Void = { _ in }

        nonisolated init() {}

        func tell(_ wait: KeyringWait) { to(wait) }
    }

    /// What ends the daemon.
    private enum Ending: Sendable {
        /// SIGTERM or SIGINT.
        case stopSignal(Int32)
        case busLost
        case nameTaken(String, owner: String?)
        case startFailed
    }
}

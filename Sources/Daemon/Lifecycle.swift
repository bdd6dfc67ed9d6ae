import Accounts
import DBus
import Glibc
import Keyring
import PushCore
import StateStore

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

        public init(configPath: String?, verbose: Bool, unlessRunning: Bool) {
            self.configPath = configPath
            self.verbose = verbose
            self.unlessRunning = unlessRunning
        }
    }

    /// Runs the daemon until SIGTERM or SIGINT (exit 0) or a fault it cannot live with, such as
    /// a bad config at start, another gbnotifyd on the bus or a lost bus (exit 1, logged).
    public static func run(_ options: Options, environment: [String: String]) async -> Int32 {
        let logger = Logger(level: .info, verbose: options.verbose)
        guard let configPath = options.configPath ?? ConfigFile.defaultPath(environment: environment) else {
            logger.error("neither XDG_CONFIG_HOME nor HOME is set, so there is no config file to read")
            return 1
        }
        let settings: DaemonSettings
        let state: StateDirectory
        do {
            settings = try ConfigFile.load(configPath)
            state = try StateDirectory(environment: environment)
        } catch {
            logger.error("\(error)")
            return 1
        }
        logger.setLevel(settings.config.logLevel)

        // Handled from here on: a SIGTERM during start-up still stops cleanly.
        let (events, feed) = AsyncStream.makeStream(of: Event.self)
        let signals = SignalHandlers { feed.yield(.signal($0)) }

        let connection: DBusConnection
        do {
            connection = try await DBusConnection.connect()
        } catch {
            logger.error("cannot connect to the session bus: \(error)")
            return 1
        }
        // The keyring speaks to the Secret Service through libsecret, on a thread of its own.
        let keyring = Keyring()
        let desktop: DesktopPresenter?
        do {
            desktop = try await DesktopPresenter.start(
                on: connection, options: DesktopPresenter.Options(config: settings.config, environment: environment),
                markRead: ServerMarkRead.through(keyring, options: settings.client), logger: logger)
        } catch {
            logger.error("cannot watch for a notification server on the session bus (\(error)); notices only go to the log")
            desktop = nil
        }
        let supervisor = Supervisor(
            settings: settings, configPath: configPath, loadSettings: { () throws(ConfigFileError) in try ConfigFile.load(configPath) },
            state: state, accounts: { AccountListing(try await keyring.list()) },
            presenter: desktop ?? LogPresenter(logger: logger), logger: logger, hostname: AccountManager.localHostname,
            keyring: keyring, relayToken: { try await keyring.relayToken(for: $0) })
        do {
            try await BusService.export(supervisor, on: connection)
            if let desktop {
                try await DesktopService.export(
                    desktop, accounts: { try await keyring.list().accounts.map(\.account) }, on: connection)
            }
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
        Task {
            if (try? await connection.waitUntilClosed()) == .disconnected { feed.yield(.busLost) }
        }

        let notifier = SystemdNotifier(environment: environment)
        Task {
            do {
                try await supervisor.start()
            } catch {
                logger.error("cannot use the state directory \(state.path): \(error)")
                feed.yield(.startFailed)
                return
            }
            let accounts = await supervisor.status().accounts.count
            notifier?.notify("READY=1\nSTATUS=Polling \(accounts) account\(accounts == 1 ? "" : "s")")
        }

        var exitStatus: Int32 = 0
        eventLoop: for await event in events {
            switch event {
            case .signal(.reload):
                Task { try? await supervisor.reload() }
            case .signal(.stop(let number)):
                logger.info("stopping on signal \(number)")
                break eventLoop
            case .busLost:
                logger.error("lost the session bus; exiting so that the service manager can start gbnotifyd again")
                exitStatus = 1
                break eventLoop
            case .startFailed:
                exitStatus = 1
                break eventLoop
            }
        }
        notifier?.notify("STOPPING=1")
        // The handlers served the loop above; the signals stay ignored, so a second SIGTERM
        // cannot cut the clean stop short.
        _ = consume signals
        await supervisor.stop()
        await desktop?.stop()
        await connection.close()
        logger.info("stopped")
        return exitStatus
    }

    private enum Event: Sendable {
        case signal(SignalRequest)
        case busLost
        case startFailed
    }
}

import DBus
import Logging
import PushCore

/// What a click opens, and opening it: a URL through the OpenURI portal where there is one
/// (it raises the browser even without an activation token), else by launching a program, by
/// argv with no shell.
struct Clicks: Sendable {
    private let portal: OpenURIPortal
    private let launcher: Launcher
    private var config: Config
    private let browser: [String]
    private let environment: [String: String]
    private let events: DaemonEvents
    private let logger: Logger

    init(connection: DBusConnection, options: Desktop.Options, logger: Logger) {
        portal = OpenURIPortal(connection: connection)
        launcher = Launcher(logger: logger, environment: options.environment)
        config = options.config
        browser = options.browser
        environment = options.environment
        events = options.events
        self.logger = logger
    }

    mutating func configChanged(_ config: Config) {
        self.config = config
    }

    /// Opens what a click on a notice of `target` opens. Returns what it did, for
    /// `gbnotifyctl open`.
    @discardableResult
    func open(_ target: PushTarget, activationToken: String?) async -> String {
        let environment = environment
        let launch = ClickLaunch.forClick(
            target, config: config, activationToken: activationToken, browser: browser,
            programDirectory: Launcher.programDirectory, isInstalled: { Launcher.isInstalled($0, environment: environment) })
        if let url = launch.url {
            do {
                try await portal.open(url, activationToken: launch.environment["XDG_ACTIVATION_TOKEN"])
                logger.info("opened \(url) through the OpenURI portal")
                events.tell(.opened([OpenURIPortal.interface, url]))
                return "\(OpenURIPortal.interface).OpenURI \(url)"
            } catch let error as DBusError where OpenURIPortal.isAbsent(error) {
                logger.debug("no OpenURI portal on the session bus; opening with \(launch.argv[0])")
            } catch {
                logger.warning("the OpenURI portal did not open \(url) (\(error)); opening with \(launch.argv[0]) instead")
            }
        }
        launcher.launch(launch)
        events.tell(.opened(launch.argv))
        return launch.argv.joined(separator: " ")
    }
}

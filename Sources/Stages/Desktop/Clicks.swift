import DBus
import Logging
import MainLoop
import Opener
import PushCore

/// What a click opens, and opening it (`Opener`), logged; a program that exits with an error
/// later is logged with what to install.
struct Clicks: Sendable {
    private let opener: Opener
    private var config: Config
    private let browser: [String]
    private let environment: [String: String]
    private let events: DaemonEvents
    private let logger: Logger

    init(connection: DBusConnection, options: Desktop.Options, logger: Logger) {
        opener = Opener(connection: connection, environment: options.environment, trustedPortals: options.trustedPortals)
        config = options.config
        browser = options.browser
        environment = options.environment
        events = options.events
        self.logger = logger
    }

    mutating func configChanged(_ config: Config) {
        self.config = config
    }

    /// Opens what a click on a notice of `target` opens.
    func open(_ target: PushTarget, activationToken: String?) async {
        await start(Opener.launch(
            for: target, config: config, activationToken: activationToken, browser: browser, environment: environment))
    }

    /// "Reply…": the reply composed in the editor, in the terminal (`gbnotifyctl reply`).
    func reply(to destination: NotificationDestination, of account: Account, activationToken: String?) async {
        await start(Opener.replyLaunch(
            to: destination, of: account, config: config, activationToken: activationToken, environment: environment))
    }

    private func start(_ launch: ClickLaunch) async {
        switch await opener.open(launch) {
        case .portal(let url):
            logger.info("opened \(url) through the OpenURI portal")
            events.tell(.opened([Opener.portalInterface, url]))
        case .started(let argv, let pid, let passedOver):
            if let passedOver { logger.warning("\(passedOver); opening with \(argv[0]) instead") }
            logger.info("opened with \(argv[0]) (pid \(pid))")
            events.tell(.opened(argv))
            // Reaped by the main loop's child watch: a browser launcher may take its time.
            let logger = logger
            Task {
                let exit = await ChildWatch.exit(of: pid)
                guard exit != .exited(0) else { return }
                logger.error("cannot open the notice: \(argv[0]) \(exit); \(Opener.advice(for: argv[0]))")
            }
        case .failed(let program, let reason, let advice, let passedOver):
            if let passedOver { logger.warning("\(passedOver); opening with \(program) instead") }
            logger.error("cannot open the notice: \(program): \(reason); \(advice)")
        }
    }
}

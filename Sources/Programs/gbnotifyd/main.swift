import CommandKit
import Daemon
import FoundationEssentials
import Gettext
import Glibc
import PushCore
import MainLoop

/// `gbnotifyd`: the user daemon.
struct GBNotifyDaemon: Command {
    static let configuration = CommandConfiguration(
        name: "gbnotifyd",
        abstract: "Show gitbay activity as desktop notifications.",
        discussion: """
            Reads every gitbay account from the desktop keyring, registers this install with each,
            and shows new inbox activity as desktop notifications with an unread badge. Normally
            started by systemd (gbnotifyd.service) or D-Bus activation; manage accounts with
            gbnotifyctl. SIGHUP reloads the config and the accounts; SIGTERM stops.
            """,
        options: [foreground, verbose, config, unlessRunning, eventsFD]
    )
    static let foreground = Option(
        "--foreground", help: "Run attached to the terminal. gbnotifyd never detaches, so this is always so.")
    static let verbose = Option("--verbose", help: "Log debug lines.")
    static let config = Option(
        "--config", .required("PATH"), help: "Read this config file instead of $XDG_CONFIG_HOME/gbnotifyd/config.",
        completion: .file)
    static let unlessRunning = Option(
        "--unless-running", help: "Exit with status 0 if a gbnotifyd already runs on this session bus.")
    static let eventsFD = Option(
        "--events-fd", .required("N"), help: "Write what gbnotifyd does (polled, shown, clicked, ...) as JSON lines to descriptor N.")

    var verbose: Bool
    var configPath: String?
    var unlessRunning: Bool
    var eventsDescriptor: Int32?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        // Accepted for the command lines of service managers and scripts that expect it.
        _ = arguments.flag(Self.foreground)
        verbose = arguments.flag(Self.verbose)
        configPath = try arguments.value(of: Self.config)
        unlessRunning = arguments.flag(Self.unlessRunning)
        if let number = try arguments.value(of: Self.eventsFD) {
            guard let descriptor = Int32(number), descriptor >= 0 else {
                throw UsageError("\(Self.eventsFD.name) takes a descriptor's number")
            }
            eventsDescriptor = descriptor
        }
    }

    func run() async throws -> Int32 {
        await Lifecycle.run(
            Lifecycle.Options(
                configPath: configPath, verbose: verbose, unlessRunning: unlessRunning, eventsDescriptor: eventsDescriptor),
            environment: ProcessInfo.processInfo.environment)
    }
}

// The notifications and the tray's menu in the session's language; the log stays English.
Gettext.start()
Localized.use(Localized.Catalog(text: Gettext.text, plural: Gettext.plural))

// On the main loop, where every task runs and everything waits (MainLoop says why). With Swift's
// default executor, libdispatch would also wake the idle daemon every second for its thread pool.
LoopMain.run(blocking: SignalRequest.signals) {
    await CommandLineTool.main(
        Array(CommandLine.arguments.dropFirst()), root: GBNotifyDaemon.self, toolName: "gbnotifyd",
        version: GBNotify.version, print: { print($0) }, printError: { StandardError.write($0) })
}

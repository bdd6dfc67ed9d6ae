import CommandKit
import Daemon
import FoundationEssentials
import Glibc
import PushCore
import MainLoop

/// `gbnotifyd`: the user daemon.
struct GBNotifyDaemon: Command {
    static let configuration = CommandConfiguration(
        name: "gbnotifyd",
        abstract: "Show gitbay activity as desktop notifications.",
        usage: "[--foreground] [--verbose] [--config PATH] [--unless-running] [--events-fd N]",
        discussion: """
            Reads every gitbay account from the desktop keyring, registers this install with each,
            and shows new inbox activity as desktop notifications with an unread badge. Normally
            started by systemd (gbnotifyd.service) or D-Bus activation; manage accounts with
            gbnotifyctl. SIGHUP reloads the config and the accounts; SIGTERM stops.
            """,
        options: [
            ("--foreground", "Run attached to the terminal. gbnotifyd never detaches, so this is always so."),
            ("--verbose", "Log debug lines."),
            ("--config PATH", "Read this config file instead of $XDG_CONFIG_HOME/gbnotifyd/config."),
            ("--unless-running", "Exit with status 0 if a gbnotifyd already runs on this session bus."),
            ("--events-fd N", "Write what gbnotifyd does (polled, shown, clicked, ...) as JSON lines to descriptor N."),
            ("--version", "Print the version."),
        ]
    )

    var verbose: Bool
    var configPath: String?
    var unlessRunning: Bool
    var eventsDescriptor: Int32?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        // Accepted for the command lines of service managers and scripts that expect it.
        _ = arguments.flag("--foreground")
        verbose = arguments.flag("--verbose")
        configPath = try arguments.option("--config")
        unlessRunning = arguments.flag("--unless-running")
        if let number = try arguments.option("--events-fd") {
            guard let descriptor = Int32(number), descriptor >= 0 else { throw UsageError("--events-fd takes a descriptor's number") }
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

// On the main loop, where every task runs and everything waits (MainLoop says why). With Swift's
// default executor, libdispatch would also wake the idle daemon every second for its thread pool.
LoopMain.run(blocking: SignalRequest.signals) {
    await CommandLineTool.main(
        Array(CommandLine.arguments.dropFirst()), root: GBNotifyDaemon.self, toolName: "gbnotifyd",
        version: GBNotify.version, print: { print($0) }, printError: { Console.error($0) })
}

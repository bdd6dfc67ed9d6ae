import CommandKit
import Glibc
import PushCore

/// `gbnotifyctl`: accounts, status and the running daemon, from the command line.
struct Root: Command {
    static let configuration = CommandConfiguration(
        name: "gbnotifyctl",
        abstract: "Manage gitbay accounts for gbnotifyd and talk to the running daemon.",
        discussion: """
            Accounts live in the desktop keyring (Secret Service). Account commands work with or
            without a running daemon; when gbnotifyd runs, it is told to reload.
            """,
        options: [("--version", "Print the version.")],
        subcommands: [
            AccountCommand.self, RelayCommand.self, StatusCommand.self, ShowCommand.self, InboxCommand.self, TestCommand.self,
            OpenCommand.self, DeliverCommand.self, DoctorCommand.self, MuteCommand.self, UnmuteCommand.self, WatchCommand.self,
            MutesCommand.self, ReadCommand.self, RulesCommand.self, SnoozeCommand.self,
        ]
    )
}

let status = await CommandLineTool.main(
    Array(CommandLine.arguments.dropFirst()), root: Root.self, toolName: "gbnotifyctl",
    version: GBNotify.version, print: { print($0) }, printError: { Console.error($0) })
exit(status)

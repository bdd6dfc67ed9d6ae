import CGlibc
import CommandKit
import Gettext
import Glibc
import MainLoop
import PushCore
import Terminal

// First of all, before a token is read: `show` and `inbox` are long-lived and hold tokens, as
// the daemon does, so neither a core file nor another process of the user may see them.
if gbn_forbid_core_dumps() != 0 {
    Console.error("gbnotifyctl: warning: cannot forbid core dumps: \(String(cString: strerror(errno)))")
}

// What gbnotifyctl says to a person in the session's language; command and option names, help
// and JSON stay English.
Gettext.start()
Localized.use(Localized.Catalog(text: Gettext.text, plural: Gettext.plural))

/// `gbnotifyctl`: accounts, status and the running daemon, from the command line.
struct Root: Command {
    static let configuration = CommandConfiguration(
        name: "gbnotifyctl",
        abstract: "Manage gitbay accounts for gbnotifyd and talk to the running daemon.",
        discussion: """
            Accounts live in the desktop keyring (Secret Service). Account commands work with or
            without a running daemon; when gbnotifyd runs, it is told to reload.
            """,
        subcommands: [
            AccountCommand.self, RelayCommand.self, StatusCommand.self, ShowCommand.self, InboxCommand.self, TestCommand.self,
            OpenCommand.self, DeliverCommand.self, DoctorCommand.self, MuteCommand.self, UnmuteCommand.self, WatchCommand.self,
            MutesCommand.self, ReadCommand.self, ReplyCommand.self, ReactCommand.self, RulesCommand.self, SnoozeCommand.self, DrawTrayIconCommand.self,
        ]
    )
}

// The terminal view reads its signals off the main loop, which needs them blocked in every thread
// from the start (before libsecret's GDBus thread exists); every other command keeps their
// default actions.
let arguments = Array(CommandLine.arguments.dropFirst())
let viewCommands = [ShowCommand.configuration.name, InboxCommand.configuration.name]
LoopMain.run(blocking: viewCommands.contains(arguments.first ?? "") ? TerminalInput.signals : []) {
    await CommandLineTool.main(
        arguments, root: Root.self, toolName: "gbnotifyctl", version: GBNotify.version, usageWords: .localized,
        print: { Console.out($0) }, printError: { Console.error($0) })
}

import Accounts
import CommandKit
import PushCore

struct AccountRemove: Command {
    static let configuration = CommandConfiguration(
        name: "remove",
        abstract: "Deregister this install from an account and delete its token.",
        usage: "USER@HOST | URL [--user USER]",
        discussion: "USER@HOST is as 'gbnotifyctl account list' prints it, e.g. cmc@gitbay.org.",
        options: [("--user USER", "With a URL: the account's user, when the instance has several.")]
    )

    var reference: String
    var user: String?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        user = try arguments.option("--user")
        reference = try arguments.positional("USER@HOST or URL")
    }

    func run() async throws -> Int32 {
        let settings = Setup.settings()
        let manager = try Setup.accountManager(settings)
        let accounts = try await manager.list().accounts.map(\.account)
        let account = try AccountReference(parsing: reference, user: user).resolve(among: accounts)
        let report = try await manager.remove(account, allowsToken: settings.config.allowsToken)
        switch report.deregistration {
        case .notRegistered:
            Console.out("Removed \(account.displayName).")
        case .removed(let id):
            Console.out("Removed \(account.displayName) (deregistered device \(id)).")
        case .failed(let id, let reason):
            Console.out("Removed \(account.displayName), but device \(id) could not be deregistered (\(reason)); "
                  + "it is harmless and can be deleted on the web.")
        }
        await DaemonCall.reloadIfRunning()
        return ExitStatus.success
    }
}

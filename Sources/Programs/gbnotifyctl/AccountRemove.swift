import Accounts
import CommandKit
import PushCore

struct AccountRemove: Command {
    static let configuration = CommandConfiguration(
        name: "remove",
        abstract: "Deregister this install from an account and delete its token.",
        positionals: [reference],
        discussion: """
            USER@HOST is as 'gbnotifyctl account list' prints it, e.g. cmc@gitbay.org. A token
            gbnotifyctl minted over SSH is revoked there too (token revoke NAME, with the key it
            was minted with); if that fails, the account is removed all the same and the warning
            gives the command to run by hand.
            """,
        options: [user]
    )
    static let reference = Positional("USER@HOST | URL", help: "account (USER@HOST or URL)", completion: .account)
    static let user = Option("--user", .required("USER"), help: "With a URL: the account's user, when the instance has several.")

    var reference: String
    var user: String?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        user = try arguments.value(of: Self.user)
        reference = try arguments.positional(Self.reference)
    }

    func run() async throws -> Int32 {
        let settings = Setup.settings()
        let manager = try Setup.accountManager(settings)
        let accounts = try await manager.list().accounts.map(\.account)
        let account = try AccountReference(parsing: reference, user: user).resolve(among: accounts)
        let report = try await manager.remove(account, allowsToken: settings.config.allowsToken)
        var done: [String] = []
        if case .removed(let id) = report.deregistration {
            done.append(Localized.text("deregistered device {id}", note: "gbnotifyctl account remove, in brackets. {id}: the device's id.", ["id": "\(id)"]))
        }
        if case .revoked(let name) = report.revocation {
            done.append(
                Localized.text("revoked token \"{name}\"", note: "gbnotifyctl account remove, in brackets. {name}: the token's name.", ["name": name.displaySafe]))
        }
        let line = Localized.text("Removed {account}", note: "gbnotifyctl account remove. {account}: user@host.", ["account": account.displayName])
            + (done.isEmpty ? "" : " (\(done.joined(separator: ", ")))")
        if case .failed(let id, let reason) = report.deregistration {
            Console.out(
                line
                    + Localized.text(
                        ", but device {id} could not be deregistered ({reason}); it is harmless and can be deleted on the web.",
                        note: "Ends gbnotifyctl account remove's line. {id}: the device's id; {reason}: why, in English.",
                        ["id": "\(id)", "reason": "\(reason)"]))
        } else {
            Console.out(line + ".")
        }
        if case .failed = report.revocation {
            Console.error(
                Localized.text(
                    "gbnotifyctl: warning: {warning}", note: "A warning of gbnotifyctl. {warning}: what, in English.", ["warning": "\(report.revocation)"]))
        }
        await DaemonCall.reloadIfRunning()
        return ExitStatus.success
    }
}

import Accounts
import CommandKit
import PushCore

struct AccountAdd: Command {
    static let configuration = CommandConfiguration(
        name: "add",
        abstract: "Add a gitbay account, or replace its token.",
        usage: "URL [--allow-http]",
        discussion: """
            Reads an API token from standard input, or prompts for it without echo. Mint one over
            SSH: ssh git@HOST token create --name gbnotify --scope full
            The token is checked with the server, stored in the desktop keyring under the username
            the server reports, and this install is registered for push notifications.

            Example: ssh git@gitbay.org token create --name gbnotify --scope full \\
                       | jq -r .token | gbnotifyctl account add https://gitbay.org
            """,
        options: [("--allow-http", "Allow plain http:// for a host that is not this machine.")]
    )

    var url: String
    var allowHTTP: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        allowHTTP = arguments.flag("--allow-http")
        url = try arguments.positional("URL")
    }

    func run() async throws -> Int32 {
        let instance = try GitbayInstance(parsing: url, allowInsecureHTTP: allowHTTP)
        let token = try TokenInput.read(prompt: "API token for \(instance.url): ")
        let manager = try Setup.accountManager()
        let report = try await manager.add(instance: instance, token: token)
        switch report.registration {
        case .registered(let id):
            Console.out("Added \(report.account.displayName) (registered as device \(id)).")
        case .pushUnavailable, .readOnlyToken, .failed:
            Console.out("Added \(report.account.displayName). Desktop polling works, but this install could not register: \(report.registration).")
        }
        await DaemonCall.reloadIfRunning()
        return ExitStatus.success
    }
}

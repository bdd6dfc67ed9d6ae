import Accounts
import CommandKit
import GitbaySSH
import PushCore

struct AccountAdd: Command {
    static let configuration = CommandConfiguration(
        name: "add",
        abstract: "Add a gitbay account, or replace its token.",
        positionals: [url],
        discussion: """
            With --ssh, mints the API token itself with your SSH key, as the gitbay CLI reaches the
            instance: ssh USER@HOST -- token create --name NAME --scope full, by argv in batch mode
            with your own ssh config, agent and known_hosts (USER is git and HOST the URL's host
            unless given). The token goes from ssh straight into the keyring and is never shown;
            the keyring item records its name, so that 'account remove' revokes it. NAME is
            "gbnotifyd on HOSTNAME" and a short random suffix unless --token-name says otherwise.

            Without --ssh, reads an API token from standard input; at a terminal it first offers
            to mint one over SSH, then prompts for one without echo.

            The token is checked with whoami at URL, stored in the desktop keyring under the
            username the server reports, and this install is registered for push notifications.
            A minted token that URL does not take is revoked again at once.

            Example: gbnotifyctl account add https://gitbay.org --ssh
                     gbnotifyctl account add https://gitbay.example --ssh git@ssh.gitbay.example:2222
            """,
        options: [ssh, tokenName, allowHTTP]
    )
    static let url = Positional("URL", help: "instance URL", completion: .url)
    static let ssh = Option(
        "--ssh", .optional("USER@HOST[:PORT]"), help: "Mint the token over SSH with your key (default git@ the URL's host).",
        completion: .sshRemote)
    static let tokenName = Option("--token-name", .required("NAME"), help: "With --ssh: the name of the token on the server.")
    static let allowHTTP = Option("--allow-http", help: "Allow plain http:// for a host that is not this machine.")

    var url: String
    /// nil: no --ssh; .some(nil): --ssh without a remote.
    var ssh: String??
    var tokenName: String?
    var allowHTTP: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        allowHTTP = arguments.flag(Self.allowHTTP)
        // A URL after --ssh is the URL, not the remote.
        ssh = arguments.optionalValue(of: Self.ssh) { !$0.contains("://") }
        tokenName = try arguments.value(of: Self.tokenName)
        url = try arguments.positional(Self.url)
        if tokenName != nil && ssh == nil {
            throw UsageError(
                Localized.text(
                    "{option} goes with {other}", note: "A usage error of gbnotifyctl. {option} and {other}: options (stay as they are).",
                    ["option": Self.tokenName.name, "other": Self.ssh.name]))
        }
        if let tokenName, SSHAnswer.checkedTokenName(tokenName) == nil {
            throw UsageError(
                Localized.text(
                    "{option} must be 1 to 255 bytes without control characters", note: "A usage error of gbnotifyctl. {option}: the option (stays as it is).",
                    ["option": Self.tokenName.name]))
        }
    }

    func run() async throws -> Int32 {
        let instance = try GitbayInstance(parsing: url, allowInsecureHTTP: allowHTTP)
        let manager = try Setup.accountManager()
        let report: AddReport
        if let ssh {
            let remote = try ssh.map { try SSHRemote(parsing: $0) } ?? Self.defaultRemote(instance)
            report = try await Minting.mint(instance: instance, remote: remote, tokenName: tokenName, manager: manager)
        } else if TokenInput.isInteractive, let remote = try Self.askForRemote(instance) {
            report = try await Minting.mint(instance: instance, remote: remote, tokenName: nil, manager: manager)
        } else {
            let token = try TokenInput.read(
                prompt: Localized.text("API token for {url}: ", note: "gbnotifyctl account add's prompt for the token, typed without echo. {url}: the instance.", ["url": instance.url]))
            report = try await manager.add(instance: instance, token: token)
        }
        Console.out(Minting.addedLine(report))
        Minting.warnAboutReplacedToken(report)
        await DaemonCall.reloadIfRunning()
        return ExitStatus.success
    }

    /// At a terminal, minting comes first: an empty answer or yes mints as `git@HOST`, a
    /// `USER@HOST[:PORT]` mints there, and no asks for a token to paste instead.
    private static func askForRemote(_ instance: GitbayInstance) throws -> SSHRemote? {
        let fallback = try? defaultRemote(instance)
        let answers = "[Y/n, or USER@HOST[:PORT]] "
        let answer = try TokenInput.ask(
            fallback.map {
                Localized.text(
                    "Mint a token for {url} over SSH with your SSH key, as {remote}? {answers}",
                    note: "gbnotifyctl account add's question at a terminal. {url}: the instance; {remote}: the SSH login, as git@gitbay.org; {answers}: the answers it takes, which stay English.",
                    ["url": instance.url, "remote": "\($0)", "answers": answers])
            }
                ?? Localized.text(
                    "Mint a token for {url} over SSH with your SSH key (give USER@HOST[:PORT])? {answers}",
                    note: "gbnotifyctl account add's question at a terminal. {url}: the instance; {answers}: the answers it takes, which stay English. USER@HOST[:PORT] stays as it is.",
                    ["url": instance.url, "answers": answers]))
        switch answer.lowercased() {
        case "", "y", "yes":
            guard let fallback else { throw UsageError(
                    Localized.text("give the SSH host as USER@HOST[:PORT]", note: "A usage error of gbnotifyctl account add. USER@HOST[:PORT] stays as it is.")) }
            return fallback
        case "n", "no":
            return nil
        default:
            return try SSHRemote(parsing: answer)
        }
    }

    /// `git@HOST`, the URL's host without the brackets of an IPv6 address.
    private static func defaultRemote(_ instance: GitbayInstance) throws(SSHRemoteError) -> SSHRemote {
        let host = instance.host
        return try SSHRemote(host: host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host)
    }
}

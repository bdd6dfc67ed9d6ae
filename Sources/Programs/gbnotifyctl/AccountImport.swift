import Accounts
import CommandKit
import FoundationEssentials
import PushCore
import SystemCalls

/// `gbnotifyctl account import`: every instance of the gitbay CLI's config, minted over SSH as
/// `account add URL --ssh` does.
struct AccountImport: Command {
    static let configuration = CommandConfiguration(
        name: "import",
        abstract: "Add every instance of the gitbay CLI's config, minting each token over SSH.",
        discussion: """
            Reads $XDG_CONFIG_HOME/gitbay/config.toml (~/.config/gitbay/config.toml): each
            [instances.NAME] table's host, port, user and ssh_options say how to reach the instance
            over SSH, as the gitbay CLI does, and a token is minted there with your key as
            'account add URL --ssh' mints it. The web address is https://HOST unless --url
            NAME=URL gives another. An instance with an account in the keyring already is skipped.
            Prints one line per instance: added, skipped, or failed and why; exits with status 1
            when any failed.
            """,
        options: [url]
    )
    static let url = Option(
        "--url", .required("NAME=URL"), help: "The web address of instance NAME, when it is not https://HOST (repeatable).",
        repeats: true)

    var urls: [String: String]

    init(parsing arguments: inout Arguments) throws(UsageError) {
        urls = [:]
        for pair in try arguments.values(of: Self.url) {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw UsageError(
                    Localized.text(
                        "{option} takes NAME=URL, e.g. {option} work=https://gitbay.example",
                        note: "A usage error of gbnotifyctl. {option}: the option (stays as it is); NAME=URL and the example stay as they are.", ["option": Self.url.name]))
            }
            urls[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
    }

    func run() async throws -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        guard let path = Self.configPath(environment) else {
            Console.error(
                Localized.text(
                    "gbnotifyctl: neither XDG_CONFIG_HOME nor HOME is set, so there is no gitbay CLI config to read",
                    note: "An error of gbnotifyctl account import. The variables' names stay as they are."))
            return ExitStatus.failure
        }
        let config: GitbayCLIConfig
        do {
            config = try GitbayCLIConfig.parse(try Self.read(path))
        } catch {
            Console.error("gbnotifyctl: \(path): \(error)")
            return ExitStatus.failure
        }
        if let unknown = urls.keys.sorted().first(where: { name in !config.instances.contains { $0.name == name } }) {
            Console.error(
                Localized.text(
                    "gbnotifyctl: --url {name}=...: {path} has no instance {name}",
                    note: "An error of gbnotifyctl account import. {name}: an instance's name in the gitbay CLI's config; {path}: that config file.",
                    ["name": unknown, "path": path]))
            return ExitStatus.usage
        }
        if config.instances.isEmpty {
            Console.out(
                Localized.text("{path} names no instances.", note: "gbnotifyctl account import. {path}: the gitbay CLI's config file.", ["path": path]))
            return ExitStatus.success
        }
        let manager = try Setup.accountManager()
        var inKeyring = try await manager.list().accounts.map(\.account)
        var failed = false
        var added = false
        for instance in config.instances {
            let name = instance.name.displaySafe.truncated(to: 64)
            let web: GitbayInstance
            do {
                web = try GitbayInstance(parsing: urls[instance.name] ?? "https://\(Self.urlHost(instance.remote.host))")
            } catch {
                Console.out(
                    Localized.text(
                        "{name}: failed: its web address: {error}", note: "gbnotifyctl account import. {name}: the instance's name; {error}: why, in English.",
                        ["name": name, "error": "\(error)"]))
                failed = true
                continue
            }
            if let existing = inKeyring.first(where: { $0.instance == web }) {
                Console.out(
                    Localized.text(
                        "{name}: skipped: {account} is in the keyring already", note: "gbnotifyctl account import. {name}: the instance's name; {account}: user@host.",
                        ["name": name, "account": existing.displayName]))
                continue
            }
            do {
                let report = try await Minting.mint(instance: web, remote: instance.remote, tokenName: nil, manager: manager)
                Console.out("\(name): \(Minting.addedLine(report))")
                Minting.warnAboutReplacedToken(report)
                inKeyring.append(report.account)
                added = true
            } catch {
                Console.out(
                    Localized.text(
                        "{name}: failed: {error}", note: "gbnotifyctl account import. {name}: the instance's name; {error}: why, in English.",
                        ["name": name, "error": "\(error)"]))
                failed = true
            }
        }
        if added { await DaemonCall.reloadIfRunning() }
        return failed ? ExitStatus.failure : ExitStatus.success
    }

    /// The gitbay CLI's own place for it.
    static func configPath(_ environment: [String: String]) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/gitbay/config.toml" }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/.config/gitbay/config.toml"
    }

    /// An IPv6 address goes in brackets in a URL.
    private static func urlHost(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }

    private struct ReadFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// The file, refused unread past the parser's bound, and unread unless a regular file: a
    /// FIFO there would otherwise hold the command for ever, waiting for a writer.
    private static func read(_ path: String) throws(ReadFailure) -> String {
        let read: [UInt8]?
        do {
            read = try FileDescriptor.readRegularFile(path, upTo: GitbayCLIConfig.maximumSize + 1)
        } catch {
            throw ReadFailure(description: "\(error)")
        }
        guard let bytes = read else { throw ReadFailure(description: "no such file: the gitbay CLI is not set up here") }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw ReadFailure(description: "it is not UTF-8 text") }
        return text
    }
}

import Accounts
import FoundationEssentials
import GitbayClient
import Keyring
import PushCore
import Settings
import StateStore

/// Builds the pieces the commands share from the process environment.
enum Setup {
    /// The config file, read the way gbnotifyd reads it: its `ca-file` and `allow-http` apply to
    /// what gbnotifyctl sends too. The one reading of it for every command.
    static func settings(environment: [String: String] = ProcessInfo.processInfo.environment) -> ConfigSettings {
        guard let path = ConfigFile.defaultPath(environment: environment) else {
            return ConfigSettings(path: nil, config: .defaults, problem: nil)
        }
        do {
            return ConfigSettings(path: path, config: try ConfigFile.load(path), problem: nil)
        } catch {
            return ConfigSettings(path: path, config: .defaults, problem: error)
        }
    }

    /// The account commands' manager, sending with the config file's settings; an unusable
    /// file is said once.
    static func accountManager(_ settings: ConfigSettings = settings()) throws -> AccountManager {
        settings.warnIfUnusable()
        return AccountManager(
            keyring: keyring(), state: try StateDirectory(environment: ProcessInfo.processInfo.environment),
            clientOptions: GitbayClient.Options(caFile: settings.config.caFile), hostname: AccountManager.localHostname)
    }

    /// The keyring as the commands use it: waiting for a prompt as long as the user takes, and
    /// saying on standard error, after a second of silence, what the keyring is waiting for.
    static func keyring() -> Keyring {
        Keyring(reportingWaits: KeyringWaitReport(after: .seconds(1)) { wait in Console.error("gbnotifyctl: \(wait.spoken)") })
    }
}

/// What the config file gives gbnotifyctl: its settings, or every default when it cannot be used.
struct ConfigSettings {
    /// The file; nil when neither XDG_CONFIG_HOME nor HOME is set.
    let path: String?
    let config: Config
    /// Why the file cannot be used, when it cannot.
    let problem: ConfigFileError?

    /// The file as a fix names it.
    var pathWords: String { path ?? "the config file" }

    /// Says on standard error, once, that the defaults stand in for an unusable file.
    func warnIfUnusable() {
        if let problem {
            Console.error(
                Localized.text(
                    "gbnotifyctl: warning: {problem}; using the default settings",
                    note: "A warning of gbnotifyctl when the config file cannot be used. {problem}: why, in English.", ["problem": "\(problem)"]))
        }
    }
}

extension Setup {
    /// The accounts and their instances for the commands that act on one (mute, read, rules
    /// check): the config file read as gbnotifyd reads it, an unusable one said once.
    static func accountItems(environment: [String: String] = ProcessInfo.processInfo.environment) -> AccountItems {
        let read = settings(environment: environment)
        read.warnIfUnusable()
        return AccountItems(settings: ViewSettings(read, environment: environment))
    }

    /// The state directory the daemon reads: where the noise record is.
    static func stateDirectory() throws(StateError) -> StateDirectory {
        try StateDirectory(environment: ProcessInfo.processInfo.environment)
    }
}

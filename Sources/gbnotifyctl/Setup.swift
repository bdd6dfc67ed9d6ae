import Accounts
import FoundationEssentials
import Keyring
import PushCore
import Settings
import StateStore

/// Builds the pieces the commands share from the process environment.
enum Setup {
    /// The config file, as the daemon reads it: its `ca-file` and `allow-http` apply to what
    /// gbnotifyctl sends too. A config that does not read is said once and its defaults used.
    static func settings() -> DaemonSettings {
        let environment = ProcessInfo.processInfo.environment
        guard let path = ConfigFile.defaultPath(environment: environment) else { return DaemonSettings(config: .defaults) }
        do {
            return try ConfigFile.load(path)
        } catch {
            Console.error("gbnotifyctl: \(error); using the defaults")
            return DaemonSettings(config: .defaults)
        }
    }

    static func accountManager(_ settings: DaemonSettings = settings()) throws -> AccountManager {
        let environment = ProcessInfo.processInfo.environment
        return AccountManager(
            keyring: keyring(), state: try StateDirectory(environment: environment),
            clientOptions: settings.client, hostname: AccountManager.localHostname)
    }

    /// The keyring as the commands use it: waiting for a prompt as long as the user takes, and
    /// saying on standard error, after a second of silence, what the keyring is waiting for.
    static func keyring() -> Keyring {
        Keyring(reportingWaits: KeyringWaitReport(after: .seconds(1)) { wait in Console.error("gbnotifyctl: \(wait)") })
    }
}

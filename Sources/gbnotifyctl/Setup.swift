import Accounts
import FoundationEssentials
import GitbayClient
import Keyring
import StateStore

/// Builds the pieces the commands share from the process environment.
enum Setup {
    static func accountManager() throws -> AccountManager {
        let environment = ProcessInfo.processInfo.environment
        return AccountManager(
            keyring: keyring(), state: try StateDirectory(environment: environment),
            clientOptions: GitbayClient.Options(), hostname: AccountManager.localHostname)
    }

    /// The keyring as the commands use it: waiting for a prompt as long as the user takes, and
    /// saying on standard error, after a second of silence, what the keyring is waiting for.
    static func keyring() -> Keyring {
        Keyring(reportingWaits: KeyringWaitReport(after: .seconds(1)) { wait in Console.error("gbnotifyctl: \(wait)") })
    }
}

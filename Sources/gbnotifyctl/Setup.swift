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
            keyring: Keyring(), state: try StateDirectory(environment: environment),
            clientOptions: GitbayClient.Options(), hostname: AccountManager.localHostname)
    }
}

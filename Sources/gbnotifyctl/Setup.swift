import Accounts
import FoundationEssentials
import GitbayClient
import Glibc
import Keyring
import StateStore

/// Builds the pieces the commands share from the process environment.
enum Setup {
    static func accountManager() throws -> AccountManager {
        let environment = ProcessInfo.processInfo.environment
        return AccountManager(
            keyring: Keyring(), state: try StateDirectory(environment: environment),
            clientOptions: GitbayClient.Options(), hostname: hostname())
    }

    private static func hostname() -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
    }
}

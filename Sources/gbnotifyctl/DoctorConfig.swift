import Settings
import GitbayClient
import Glibc
import PushCore

/// doctor's config check: the file gbnotifyd reads, read the way gbnotifyd reads it.
struct DoctorConfig {
    let finding: DoctorFinding
    /// The requests of the account checks, with the config's `ca-file` when the config is
    /// usable, and timeouts short enough that a dead instance costs seconds, not minutes.
    let clientOptions: GitbayClient.Options
    /// The settings gbnotifyd runs with: the file's, or the defaults when it is unusable.
    let config: Config
    /// The file, named in the fix for a refused plain-http account.
    let path: String

    static func check(environment: [String: String]) -> DoctorConfig {
        guard let path = ConfigFile.defaultPath(environment: environment) else {
            return DoctorConfig(finding: .noConfigPath, path: "the config file", config: .defaults)
        }
        do {
            let settings = try ConfigFile.load(path)
            return DoctorConfig(
                finding: .config(path: path, exists: access(path, F_OK) == 0, problem: nil), path: path,
                config: settings.config)
        } catch {
            // gbnotifyd would not start with this file, or keeps its own: the defaults are the
            // best guess at what it runs with.
            return DoctorConfig(finding: .config(path: path, exists: true, problem: error.problem), path: path, config: .defaults)
        }
    }

    private init(finding: DoctorFinding, path: String, config: Config) {
        self.finding = finding
        self.path = path
        self.config = config
        clientOptions = GitbayClient.Options(
            caFile: config.caFile, connectTimeout: .seconds(5), stallTimeout: .seconds(5), overallTimeout: .seconds(10))
    }
}

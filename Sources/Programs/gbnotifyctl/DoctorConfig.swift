import GitbayClient
import Settings
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
        let read = Setup.settings(environment: environment)
        guard let path = read.path else {
            return DoctorConfig(finding: .noConfigPath, path: read.pathWords, config: read.config)
        }
        // With an unusable file gbnotifyd would not start, or keeps its own settings: the
        // defaults are the best guess at what it runs with.
        let finding = DoctorFinding.config(
            path: path, exists: read.problem != nil || access(path, F_OK) == 0, problem: read.problem?.problem)
        return DoctorConfig(finding: finding, path: path, config: read.config)
    }

    private init(finding: DoctorFinding, path: String, config: Config) {
        self.finding = finding
        self.path = path
        self.config = config
        clientOptions = GitbayClient.Options(
            caFile: config.caFile, connectTimeout: .seconds(5), stallTimeout: .seconds(5), overallTimeout: .seconds(10))
    }
}

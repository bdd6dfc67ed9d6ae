import Foundation
import Glibc
import Testing
import TestSupport

/// A FIFO where gbnotifyctl reads a file (issue 44): opening one for reading waits for a writer
/// that never comes, and reading one with none gives nothing. Each is refused at once, saying
/// what it is.
@Suite struct SpecialFileTests {
    /// gbnotifyctl, killed if it has not ended within a minute: a command waiting on a FIFO
    /// would otherwise hold the test for ever. Killed, its status is 137, which no check takes.
    private func runBounded(_ ctl: Ctl, _ arguments: [String]) async throws -> Program.Outcome {
        let program = try ctl.start(arguments)
        let deadline = Task {
            try await Task.sleep(for: .seconds(60))
            program.signal(SIGKILL)
        }
        defer { deadline.cancel() }
        return await program.finish()
    }

    @Test func accountImportRefusesAFIFOAsTheGitbayCLIsConfig() async throws {
        let ctl = try Ctl()
        let directory = ctl.home.appendingPathComponent("config/gitbay")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let fifo = directory.appendingPathComponent("config.toml").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let imported = try await runBounded(ctl, ["account", "import"])
        #expect(imported.status == 1)
        #expect(imported.stderr == "gbnotifyctl: \(fifo): it is a FIFO, not a regular file\n")
        #expect(imported.stdout.isEmpty)
    }

    @Test func rulesCheckRefusesAFIFOAsTheConfig() async throws {
        let ctl = try Ctl()
        try FileManager.default.createDirectory(at: ctl.configFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try #require(mkfifo(ctl.configFile.path, 0o600) == 0)
        let checked = try await runBounded(ctl, ["rules", "check"])
        #expect(checked.status == 1)
        #expect(checked.stderr == "gbnotifyctl: config \(ctl.configFile.path): it is a FIFO, not a regular file\n")
    }
}

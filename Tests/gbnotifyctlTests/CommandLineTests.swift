import Foundation
import PushCore
import Testing
import TestSupport

/// Both executables answer `--help` and `--version` and reject what they do not know, as users
/// and shell scripts see it: exit status, stdout and stderr.
@Suite struct CommandLineTests {
    let environment = ProcessInfo.processInfo.environment

    @Test(arguments: ["gbnotifyctl", "gbnotifyd"])
    func versionIsPrinted(tool: String) async throws {
        let run = try await Program.run([Program.built(tool), "--version"], environment: environment)
        #expect(run.status == 0)
        #expect(run.stdout == "\(tool) \(GBNotify.version)\n")
    }

    @Test(arguments: [["--help"], ["account", "--help"], ["account", "add", "--help"]])
    func ctlHelpIsRealHelp(arguments: [String]) async throws {
        let run = try await Program.run([Program.built("gbnotifyctl")] + arguments, environment: environment)
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("Usage: gbnotifyctl"))
        #expect(run.stdout.contains("-h, --help"))
        #expect(run.stderr.isEmpty)
    }

    @Test func helpShowsEachCommandsOwnSynopsis() async throws {
        let run = try await Program.run([Program.built("gbnotifyctl"), "open", "--help"], environment: environment)
        #expect(run.stdout.hasPrefix("Usage: gbnotifyctl open [ACCOUNT [OWNER/REPO/(issues|mrs|builds)/N]]\n"))
    }

    @Test func daemonHelpNamesItsOptions() async throws {
        let run = try await Program.run([Program.built("gbnotifyd"), "--help"], environment: environment)
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("Usage: gbnotifyd"))
        #expect(run.stdout.contains("--foreground"))
    }

    @Test(arguments: [["bogus"], ["account", "frobnicate"], ["account", "add"], ["account", "list", "--colour"]])
    func ctlRejectsUnknownWordsWithStatusTwo(arguments: [String]) async throws {
        let run = try await Program.run([Program.built("gbnotifyctl")] + arguments, environment: environment)
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("\nUsage: gbnotifyctl"))
    }
}

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

    /// The completions and the manual pages' SYNOPSIS are written by `make generated-docs` from the
    /// commands' declarations, and the OPTIONS headers by hand beside their prose: either way
    /// they must say what the declarations say.
    @Test(arguments: ["bash", "zsh", "fish"])
    func checkedInCompletionsAreWhatTheDeclarationsGive(shell: String) async throws {
        let file = ["bash": "gbnotifyctl.bash", "zsh": "_gbnotifyctl", "fish": "gbnotifyctl.fish"][shell]!
        let run = try await Program.run(
            [Program.built("gbnotifyctl"), "--generate-completion-script", shell], environment: environment)
        #expect(run.status == 0)
        let checkedIn = try String(contentsOfFile: "\(Standin.packageRoot)/packaging/completions/\(file)", encoding: .utf8)
        #expect(run.stdout == checkedIn, "packaging/completions/\(file) differs from the declarations: run make generated-docs")
    }

    @Test(arguments: ["gbnotifyctl", "gbnotifyd"])
    func manualPageSynopsisAndOptionsAreWhatTheDeclarationsGive(tool: String) async throws {
        let page = try String(contentsOfFile: "\(Standin.packageRoot)/packaging/man/\(tool).1", encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func section(_ name: String) throws -> ArraySlice<String> {
            let start = try #require(page.firstIndex(of: ".SH \(name)")) + 1
            let end = page[start...].firstIndex { $0.hasPrefix(".SH ") } ?? page.endIndex
            return page[start..<end]
        }
        let synopsis = try await Program.run([Program.built(tool), "--generate-manual", "synopsis"], environment: environment)
        let writtenSynopsis = try section("SYNOPSIS").joined(separator: "\n") + "\n"
        #expect(synopsis.stdout == writtenSynopsis, "run make generated-docs")

        let options = try await Program.run([Program.built(tool), "--generate-manual", "options"], environment: environment)
        let written = try section("OPTIONS")
        let headers = zip(written, written.dropFirst()).filter { $0.0 == ".TP" }.map { ".TP\n" + $0.1 }
        #expect(options.stdout == headers.joined(separator: "\n") + "\n", "the headers of \(tool).1's OPTIONS")
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

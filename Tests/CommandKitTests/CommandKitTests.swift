import CommandKit
import Testing

/// A two-level tree like gbnotifyctl's: `tool remote add NAME [--force] [--url U]`.
private struct Tool: Command {
    static let configuration = CommandConfiguration(
        name: "tool", abstract: "A tool.", options: [("--version", "Print the version.")],
        subcommands: [Remote.self])
}

private struct Remote: Command {
    static let configuration = CommandConfiguration(
        name: "remote", abstract: "Remotes.", subcommands: [Add.self])
}

private struct Add: Command {
    static let configuration = CommandConfiguration(
        name: "add", abstract: "Add a remote.", usage: "NAME [--force] [--url U]",
        discussion: "Adds NAME.", options: [("--force", "Replace."), ("--url U", "Where.")])

    var name: String
    var force: Bool
    var url: String?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        force = arguments.flag("--force")
        url = try arguments.option("--url")
        name = try arguments.positional("NAME")
    }

    func run() async throws -> Int32 { force ? 7 : 0 }
}

private func parsed(_ words: [String]) -> Add? {
    if case .run(let command) = CommandLineTool.parse(words, root: Tool.self, toolName: "tool") {
        return command as? Add
    }
    return nil
}

private func usageError(_ words: [String]) -> String? {
    if case .usageError(let error, _) = CommandLineTool.parse(words, root: Tool.self, toolName: "tool") {
        return error.description
    }
    return nil
}

@Suite struct CommandKitTests {
    @Test func parsesOptionsAnywhereAndInEitherSpelling() throws {
        let a = try #require(parsed(["remote", "add", "--url", "u1", "origin", "--force"]))
        #expect(a.name == "origin" && a.force && a.url == "u1")
        let b = try #require(parsed(["remote", "add", "origin", "--url=u2"]))
        #expect(b.url == "u2" && !b.force)
    }

    @Test func doubleDashMakesOptionLikeWordsPositional() throws {
        let a = try #require(parsed(["remote", "add", "--", "--force"]))
        #expect(a.name == "--force" && !a.force)
    }

    @Test(arguments: [
        (["bogus"], "unknown command 'bogus'; expected one of: remote"),
        ([], "missing command; expected one of: remote"),
        (["remote"], "missing command; expected one of: add"),
        (["remote", "add"], "missing NAME"),
        (["remote", "add", "x", "--colour"], "unknown option '--colour'"),
        (["remote", "add", "x", "y"], "unexpected argument 'y'"),
        (["remote", "add", "x", "--url"], "--url needs a value"),
    ])
    func rejectsWhatDoesNotFit(words: [String], message: String) {
        #expect(usageError(words) == message)
    }

    @Test func helpIsRenderedFromTheConfiguration() {
        guard case .help(let text) = CommandLineTool.parse(["remote", "add", "--help"], root: Tool.self, toolName: "tool") else {
            Issue.record("--help did not give help")
            return
        }
        #expect(text.hasPrefix("Usage: tool remote add NAME [--force] [--url U]\n\nAdd a remote.\n\nAdds NAME."))
        #expect(text.contains("  --url U      Where."))
        #expect(text.contains("  -h, --help   Show this help."))

        guard case .help(let groupHelp) = CommandLineTool.parse(["-h"], root: Tool.self, toolName: "tool") else {
            Issue.record("-h did not give help")
            return
        }
        #expect(groupHelp.contains("Commands:\n  remote   Remotes."))
    }

    @Test func versionOnlyAtTheTop() {
        guard case .version = CommandLineTool.parse(["--version"], root: Tool.self, toolName: "tool") else {
            Issue.record("--version was not recognised")
            return
        }
        #expect(usageError(["remote", "add", "x", "--version"]) == "unknown option '--version'")
    }

    @Test func mainReportsUsageErrorsWithStatusTwoAndRunsCommands() async {
        final class Capture: @unchecked Sendable { var out: [String] = []; var err: [String] = [] }
        let capture = Capture()
        let bad = await CommandLineTool.main(["nope"], root: Tool.self, toolName: "tool", version: "1",
                                             print: { capture.out.append($0) }, printError: { capture.err.append($0) })
        #expect(bad == 2)
        #expect(capture.out.isEmpty)
        #expect(capture.err == ["tool: unknown command 'nope'; expected one of: remote\nUsage: tool <command> [options]\nSee 'tool --help'."])

        let ran = await CommandLineTool.main(["remote", "add", "x", "--force"], root: Tool.self, toolName: "tool", version: "1",
                                             print: { capture.out.append($0) }, printError: { capture.err.append($0) })
        #expect(ran == 7)
        let version = await CommandLineTool.main(["--version"], root: Tool.self, toolName: "tool", version: "1.2",
                                                 print: { capture.out.append($0) }, printError: { capture.err.append($0) })
        #expect(version == 0 && capture.out == ["tool 1.2"])
    }
}

@Suite struct OptionalValueAndRepeatedOptionTests {
    private static func isRemote(_ word: String) -> Bool { !word.contains("://") }

    @Test func takesTheNextWordOnlyWhenItIsAValue() {
        var given = Arguments(["https://x", "--ssh", "git@x:2222"])
        let givenSSH = given.optionalValueOption("--ssh", isValue: Self.isRemote)
        #expect(givenSSH == .some("git@x:2222"))
        let givenPositional = given.optionalPositional()
        #expect(givenPositional == "https://x")

        var bare = Arguments(["--ssh", "https://x"])
        let bareSSH = bare.optionalValueOption("--ssh", isValue: Self.isRemote)
        #expect(bareSSH == .some(nil))
        let barePositional = bare.optionalPositional()
        #expect(barePositional == "https://x")

        var last = Arguments(["https://x", "--ssh"])
        let lastSSH = last.optionalValueOption("--ssh", isValue: Self.isRemote)
        #expect(lastSSH == .some(nil))

        var beforeAnOption = Arguments(["--ssh", "--allow-http"])
        let beforeAnOptionSSH = beforeAnOption.optionalValueOption("--ssh", isValue: Self.isRemote)
        #expect(beforeAnOptionSSH == .some(nil))
        let allowsHTTP = beforeAnOption.flag("--allow-http")
        #expect(allowsHTTP)

        var equals = Arguments(["--ssh=cmc@host"])
        let equalsSSH = equals.optionalValueOption("--ssh", isValue: Self.isRemote)
        #expect(equalsSSH == .some("cmc@host"))

        var absent = Arguments(["https://x"])
        let absentSSH = absent.optionalValueOption("--ssh", isValue: Self.isRemote)
        #expect(absentSSH == nil)
    }

    @Test func repeatedOptionTakesEveryOneInOrder() throws {
        var arguments = Arguments(["--url", "a=https://a", "--url=b=https://b", "x"])
        let argumentsURLs = try arguments.repeatedOption("--url")
        #expect(argumentsURLs == ["a=https://a", "b=https://b"])
        let argumentsPositional = arguments.optionalPositional()
        #expect(argumentsPositional == "x")
        var none = Arguments([])
        let noneURLs = try none.repeatedOption("--url")
        #expect(noneURLs == [])
    }
}

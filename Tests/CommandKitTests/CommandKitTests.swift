import CommandKit
import Testing

/// A two-level tree like gbnotifyctl's: `tool remote add NAME [--force] [--url U]`.
private struct Tool: Command {
    static let configuration = CommandConfiguration(
        name: "tool", abstract: "A tool.", subcommands: [Remote.self])
}

private struct Remote: Command {
    static let configuration = CommandConfiguration(
        name: "remote", abstract: "Remotes.", subcommands: [Add.self])
}

private struct Add: Command {
    static let configuration = CommandConfiguration(
        name: "add", abstract: "Add a remote.", positionals: [name],
        discussion: "Adds NAME.", options: [force, url])
    static let name = Positional("NAME", help: "remote name")
    static let force = Option("--force", help: "Replace.")
    static let url = Option("--url", .required("U"), help: "Where.", completion: .url)

    var name: String
    var force: Bool
    var url: String?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        force = arguments.flag(Self.force)
        url = try arguments.value(of: Self.url)
        name = try arguments.positional(Self.name)
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
    private static let ssh = Option("--ssh", .optional("REMOTE"), help: "Mint over SSH.")
    private static let allowHTTP = Option("--allow-http", help: "Allow http.")
    private static let url = Option("--url", .required("NAME=URL"), help: "An instance.", repeats: true)
    private static let word = Positional("WORD", help: "a word", isOptional: true)

    @Test func takesTheNextWordOnlyWhenItIsAValue() {
        var given = Arguments(["https://x", "--ssh", "git@x:2222"])
        let givenSSH = given.optionalValue(of: Self.ssh, isValue: Self.isRemote)
        #expect(givenSSH == .some("git@x:2222"))
        let givenPositional = given.optionalPositional(Self.word)
        #expect(givenPositional == "https://x")

        var bare = Arguments(["--ssh", "https://x"])
        let bareSSH = bare.optionalValue(of: Self.ssh, isValue: Self.isRemote)
        #expect(bareSSH == .some(nil))
        let barePositional = bare.optionalPositional(Self.word)
        #expect(barePositional == "https://x")

        var last = Arguments(["https://x", "--ssh"])
        let lastSSH = last.optionalValue(of: Self.ssh, isValue: Self.isRemote)
        #expect(lastSSH == .some(nil))

        var beforeAnOption = Arguments(["--ssh", "--allow-http"])
        let beforeAnOptionSSH = beforeAnOption.optionalValue(of: Self.ssh, isValue: Self.isRemote)
        #expect(beforeAnOptionSSH == .some(nil))
        let allowsHTTP = beforeAnOption.flag(Self.allowHTTP)
        #expect(allowsHTTP)

        var equals = Arguments(["--ssh=cmc@host"])
        let equalsSSH = equals.optionalValue(of: Self.ssh, isValue: Self.isRemote)
        #expect(equalsSSH == .some("cmc@host"))

        var absent = Arguments(["https://x"])
        let absentSSH = absent.optionalValue(of: Self.ssh, isValue: Self.isRemote)
        #expect(absentSSH == nil)
    }

    @Test func repeatedOptionTakesEveryOneInOrder() throws {
        var arguments = Arguments(["--url", "a=https://a", "--url=b=https://b", "x"])
        let argumentsURLs = try arguments.values(of: Self.url)
        #expect(argumentsURLs == ["a=https://a", "b=https://b"])
        let argumentsPositional = arguments.optionalPositional(Self.word)
        #expect(argumentsPositional == "x")
        var none = Arguments([])
        let noneURLs = try none.values(of: Self.url)
        #expect(noneURLs == [])
    }
}

/// Help, the completion scripts and the manual's synopsis all come from one declaration.
@Suite struct RenderedFromTheDeclarationsTests {
    @Test func anOptionsHelpAndValueReachEveryRendering() throws {
        let bash = try #require(CompletionScripts.render("bash", root: Tool.self, toolName: "tool"))
        #expect(bash.contains(#""remote add") offer="--force --url --help" ;;"#))
        #expect(bash.contains("        --url) return ;;"))
        let zsh = try #require(CompletionScripts.render("zsh", root: Tool.self, toolName: "tool"))
        #expect(zsh.contains(#"add) _arguments '--force[replace]' '--url[where]:U:_urls' '--help[show this help]' ':remote name:' ;;"#))
        let fish = try #require(CompletionScripts.render("fish", root: Tool.self, toolName: "tool"))
        #expect(fish.contains(
            #"complete -c tool -n '__fish_seen_subcommand_from remote; and __fish_seen_subcommand_from add' -l url -x -d 'Where.'"#))
        let synopsis = try #require(ManualPage.render("synopsis", root: Tool.self, toolName: "tool"))
        #expect(synopsis == ".B tool remote add\n\\fIname\\fR [\\fB\\-\\-force\\fR] [\\fB\\-\\-url\\fR \\fIu\\fR]\n")
        #expect(CompletionScripts.render("tcsh", root: Tool.self, toolName: "tool") == nil)
    }

    @Test func theToolAnswersTheGenerationOptionsAndRefusesAnUnknownShell() {
        guard case .generated(let text) = CommandLineTool.parse(
            ["--generate-completion-script", "fish"], root: Tool.self, toolName: "tool")
        else {
            Issue.record("--generate-completion-script was not answered")
            return
        }
        #expect(text.hasPrefix("# Generated by `tool --generate-completion-script fish`"))
        guard case .usageError = CommandLineTool.parse(["--generate-completion-script", "tcsh"], root: Tool.self, toolName: "tool")
        else {
            Issue.record("an unknown shell was not refused")
            return
        }
    }
}

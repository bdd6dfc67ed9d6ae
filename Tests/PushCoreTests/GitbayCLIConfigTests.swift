import PushCore
import Testing

@Suite struct GitbayCLIConfigTests {
    @Test func readsTheContractsExample() throws {
        let config = try GitbayCLIConfig.parse("""
            default = "work"
            [instances.work]
            host = "gitbay.example.org"   # the SSH host
            port = 2222                   # optional, 22 when absent
            user = "git"                  # optional, "git" when absent
            ssh_options = ["-i", "~/.ssh/gitbay_ed25519"]   # optional, passed to ssh as they are

            """)
        #expect(config.defaultInstance == "work")
        #expect(config.instances == [GitbayCLIConfig.Instance(
            name: "work",
            remote: try SSHRemote(user: "git", host: "gitbay.example.org", port: 2222, options: ["-i", "~/.ssh/gitbay_ed25519"]),
            line: 2)])
    }

    @Test func readsEveryInstanceInOrderWithDefaultsAndTOMLsOwnSpellings() throws {
        let config = try GitbayCLIConfig.parse("""
            # gitbay CLI\r
            [instances]
            [ instances . "home box" ]
            host = 'git.home.example'
            [instances.'work']
            "host" = "gitbay.org"
            user = "alice"
            port = +2_222
            pager = true
            ssh_options = [
                "-o", "IdentitiesOnly=yes",  # one key only
                'C:\\not\\escaped',
                "tab\\there \\u00e9\\U0001F600",
            ]
            """)
        #expect(config.defaultInstance == nil)
        #expect(config.instances.map(\.name) == ["home box", "work"])
        #expect(config.instances[0].remote == (try SSHRemote(host: "git.home.example")))
        #expect(config.instances[1].remote == (try SSHRemote(
            user: "alice", host: "gitbay.org", port: 2222,
            options: ["-o", "IdentitiesOnly=yes", #"C:\not\escaped"#, "tab\there é😀"])))
        #expect(config.instances[1].line == 5)
    }

    @Test(arguments: [
        ("[instances.a]\nhost = \"h\"\nport = 3.5\n", 3, "only decimal integers"),
        ("[instances.a]\nhost = \"h\"\nport = 0x16\n", 3, "only decimal integers"),
        ("[instances.a]\nhost = \"h\"\nport = 022\n", 3, "not a decimal integer"),
        ("[instances.a]\nhost = \"h\"\nport = 70000\n", 3, "port must be an integer from 1 to 65535"),
        ("[instances.a]\nhost = \"h\"\nport = \"22\"\n", 3, "port must be an integer"),
        ("[instances.a]\nhost = 7\n", 2, "host must be a string"),
        ("[instances.a]\nuser = \"git\"\n", 1, "[instances.a] has no host"),
        ("[instances.a]\nhost = \"-oProxyCommand=x\"\n", 2, "is not an SSH host"),
        ("[instances.a]\nhost = \"h\"\nssh_options = \"-i k\"\n", 3, "ssh_options must be an array of strings"),
        ("[instances.a]\nhost = \"h\"\nssh_options = [1, 2]\n", 3, "an array here holds strings only"),
        ("[instances.a]\nhost = \"h\"\nssh_options = [\"a\"\n", 3, "the array that starts here is not closed"),
        ("[instances.a]\nhost = \"h\"\nwhen = 1979-05-27\n", 3, "only decimal integers"),
        ("[instances.a]\nhost = \"h\"\nx = {a = 1}\n", 3, "inline tables"),
        ("[instances.a]\nhost = \"\"\"h\"\"\"\n", 2, "multi-line strings"),
        ("[instances.a]\nhost = \"h\n", 2, "not closed on its line"),
        ("[instances.a]\nhost = \"h\" x\n", 2, "unexpected text after the value"),
        ("[instances.a]\nhost = \"h\"\nhost = \"i\"\n", 3, "the key host is set twice"),
        ("[instances.a]\nhost = \"h\"\n[instances.a]\n", 3, "defined twice"),
        ("[[instances]]\n", 1, "arrays of tables"),
        ("[other]\nx = 1\n", 1, "only [instances.NAME] tables"),
        ("[instances.a.b]\n", 1, "only [instances.NAME] tables"),
        ("[instances]\nhost = \"h\"\n", 2, "not in [instances] itself"),
        ("default = 3\n", 1, "default must be a string"),
        ("a.b = 1\n", 1, "dotted keys"),
        ("= 1\n", 1, "expected a key"),
        ("key 1\n", 1, "expected = after the key"),
        ("key =\n", 1, "expected a value"),
        ("key = \"\\q\"\n", 1, "an unknown escape"),
        ("key = \"\\uD800\"\n", 1, "not a Unicode scalar value"),
        ("key = \"a\u{1}b\"\n", 1, "a control character in a string"),
        ("key = \"a\" # \u{1B}\n", 1, "a control character in a comment"),
        ("[instances.a\n", 1, "must end with ]"),
    ])
    func refusesWithTheLine(_ text: String, _ line: Int, _ words: String) {
        do {
            _ = try GitbayCLIConfig.parse(text)
            Issue.record("accepted \(text.debugDescription)")
        } catch {
            #expect(error.line == line, "\(error)")
            #expect(error.description.hasPrefix("line \(line): "), "\(error)")
            #expect(error.description.contains(words), "\(error)")
        }
    }

    @Test func refusesAFileLargerThanAnyConfig() {
        #expect(throws: GitbayConfigError.self) { try GitbayCLIConfig.parse(String(repeating: "#\n", count: 200_000)) }
    }

    @Test func anEmptyFileHasNoInstances() throws {
        #expect(try GitbayCLIConfig.parse("").instances.isEmpty)
        #expect(try GitbayCLIConfig.parse("\n# nothing\n").instances.isEmpty)
    }
}

import PushCore
import Testing

@Suite struct ShellWordsTests {
    @Test(arguments: [
        ("token", "token"),
        ("--json", "--json"),
        ("a@b%c+d=e:f,g.h/i_j!k-l", "a@b%c+d=e:f,g.h/i_j!k-l"),
        ("", "''"),
        ("gbnotifyd on laptop 3fa9c2", "'gbnotifyd on laptop 3fa9c2'"),
        ("it's", #"'it'\''s'"#),
        (#"say "hi""#, #"'say "hi"'"#),
        ("$HOME", "'$HOME'"),
        ("a;b", "'a;b'"),
        ("`id`", "'`id`'"),
        ("*", "'*'"),
        ("~/.ssh/key", "'~/.ssh/key'"),
        ("tab\there", "'tab\there'"),
        ("new\nline", "'new\nline'"),
        ("é", "'é'"),
        ("'", #"''\'''"#),
    ])
    func quotes(_ word: String, _ quoted: String) {
        #expect(ShellWords.quote(word) == quoted)
    }

    @Test func joinsTheCreateCommandAsTheServerReadsIt() {
        let name = #"Chloé's "work" laptop"#
        #expect(ShellWords.join(["--json", "token", "create", "--name", name, "--scope", "full"])
            == #"--json token create --name 'Chloé'\''s "work" laptop' --scope full"#)
    }

    @Test(arguments: [
        ["--json", "token", "create", "--name", "gbnotifyd on laptop 3fa9c2", "--scope", "full"],
        ["it's", #"a "b" c"#, "", "'", "''", "\\", "$x", "a\nb", " lead", "trail ", "é€"],
        // A quote and a combining mark are one Character; the quote must still be escaped.
        ["'\u{0657}", "a'\u{0301}b"],
        [],
        [""],
    ])
    func splitReadsBackWhatJoinWrote(_ words: [String]) throws {
        #expect(try ShellWords.split(ShellWords.join(words)) == words)
    }

    @Test(arguments: [
        ("a  b\tc", ["a", "b", "c"]),
        (#"'a b'c"#, ["a bc"]),
        (#""a \"b\" \$x \\ \n""#, [#"a "b" $x \ \n"#]),
        (#"a\ b"#, ["a b"]),
        ("a\\\nb", ["ab"]),
        (#"''"#, [""]),
        (#""""#, [""]),
        (#"$HOME *"#, ["$HOME", "*"]),
    ])
    func splitsByPOSIXRulesWithoutExpansion(_ text: String, _ words: [String]) throws {
        #expect(try ShellWords.split(text) == words)
    }

    @Test(arguments: [
        ("'open", ShellWords.SplitError.unterminatedQuote),
        (#""open"#, .unterminatedQuote),
        (#""open\"#, .unterminatedQuote),
        (#"end\"#, .trailingBackslash),
    ])
    func refusesUnfinishedText(_ text: String, _ error: ShellWords.SplitError) {
        #expect(throws: error) { try ShellWords.split(text) }
    }
}

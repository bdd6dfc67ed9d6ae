import PushCore
import Testing

@Suite struct SSHRemoteTests {
    @Test(arguments: [
        ("gitbay.org", "git", "gitbay.org", nil as Int?),
        ("cmc@gitbay.org", "cmc", "gitbay.org", nil),
        ("git@gitbay.org:2222", "git", "gitbay.org", 2222),
        ("127.0.0.1:22", "git", "127.0.0.1", 22),
        ("git@[::1]:2222", "git", "::1", 2222),
        ("[::1]", "git", "::1", nil),
        ("::1", "git", "::1", nil),
        ("git@work-alias", "git", "work-alias", nil),
    ])
    func parses(_ text: String, _ user: String, _ host: String, _ port: Int?) throws {
        let remote = try SSHRemote(parsing: text)
        #expect(remote.user == user)
        #expect(remote.host == host)
        #expect(remote.port == port)
        #expect(try SSHRemote(parsing: remote.description) == remote)
    }

    @Test(arguments: [
        ("-oProxyCommand=evil", SSHRemoteError.badHost("-oProxyCommand=evil")),
        ("-l@host", .badUser("-l")),
        ("git@", .badHost("")),
        ("git@host:0", .badPort("0")),
        ("git@host:65536", .badPort("65536")),
        ("git@host:22x", .badPort("22x")),
        ("git@host:", .badPort("")),
        ("git@ho st", .badHost("ho st")),
        ("gi t@host", .badUser("gi t")),
        ("git@[::1]x", .badHost("git@[::1]x")),
        ("git@[a", .badHost("[a")),
    ])
    func refuses(_ text: String, _ error: SSHRemoteError) {
        #expect(throws: error) { try SSHRemote(parsing: text) }
    }

    @Test func aHostWithAColonReadsBackFromItsDescription() throws {
        let remote = try SSHRemote(host: "gitbay.exa:mple.org")
        #expect(remote.description == "git@[gitbay.exa:mple.org]")
        #expect(try SSHRemote(parsing: remote.description) == remote)
        #expect(try SSHRemote(host: "::1", port: 22).description == "git@[::1]:22")
    }

    @Test func argvRunsInBatchModeWithTheCommandAsOneQuotedStringAfterDashDash() throws {
        let remote = try SSHRemote(user: "git", host: "gitbay.org", port: 2222, options: ["-i", "~/.ssh/gitbay key"])
        #expect(remote.argv(running: ["--json", "token", "revoke", "gbnotifyd on box 1a2b3c"]) == [
            "ssh", "-o", "BatchMode=yes", "-p", "2222", "-i", "~/.ssh/gitbay key", "git@gitbay.org", "--",
            "--json token revoke 'gbnotifyd on box 1a2b3c'",
        ])
        // Nothing that weakens the host key check, whatever the options.
        #expect(!remote.argv(running: ["whoami"]).contains { $0.contains("StrictHostKeyChecking") || $0.contains("KnownHostsFile") })
    }

    @Test func theCommandForAPersonIsQuotedForTheirShellToo() throws {
        let remote = try SSHRemote(user: "git", host: "gitbay.org", port: 2222, options: ["-i", "~/k"])
        let line = remote.commandLine(running: ["token", "revoke", "it's mine"])
        #expect(line.hasPrefix("ssh -p 2222 -i '~/k' git@gitbay.org -- 'token revoke "))
        // What the user's shell makes of it is ssh's argv, and the server reads the name back.
        let argv = try ShellWords.split(line)
        #expect(argv == ["ssh", "-p", "2222", "-i", "~/k", "git@gitbay.org", "--", #"token revoke 'it'\''s mine'"#])
        #expect(try ShellWords.split(argv.last!) == ["token", "revoke", "it's mine"])
    }
}

import PushCore
import Testing

@Suite struct SSHAnswerTests {
    static let remote = try! SSHRemote(user: "git", host: "gitbay.org", port: 2222)
    static let name = "gbnotifyd on laptop 3fa9c2"
    static let token = "gb_" + String(repeating: "0123456789abcdef", count: 2) + "01234567"

    static func outcome(_ stdout: String, exit: Int32 = 0, stderr: String = "", overflowed: Bool = false) -> SSHOutcome {
        SSHOutcome(termination: .exited(exit), stdout: Array(stdout.utf8), stdoutOverflowed: overflowed, stderr: Array(stderr.utf8))
    }

    @Test func createCommandAsksForAFullTokenOfTheName() {
        #expect(SSHAnswer.createCommand(name: Self.name) == ["--json", "token", "create", "--name", Self.name, "--scope", "full"])
        #expect(SSHAnswer.tokenName(hostname: "laptop", suffix: "3fa9c2") == Self.name)
        #expect(SSHAnswer.tokenName(hostname: "", suffix: "3fa9c2") == "gbnotifyd on unknown host 3fa9c2")
    }

    @Test func readsTheMintedToken() throws {
        let answer = #"{"protocol_version":1,"data":{"name":"\#(Self.name)","scope":"full","token":"\#(Self.token)"}}"#
        let minted = try SSHAnswer.mintedToken(Self.outcome(answer + "\n"), name: Self.name, from: Self.remote)
        #expect(minted.name == Self.name)
        #expect(minted.token.secret == Self.token)
    }

    @Test(arguments: [
        // Not JSON, not an envelope, no data, the wrong version.
        ("gb_0123456789abcdef0123\n", SSHFailure.notAnEnvelope(remote)),
        (#"{"protocol_version":1}"#, .notAnEnvelope(remote)),
        (#"{"protocol_version":2,"data":{"name":"n","token":"gb_x"}}"#, .notAnEnvelope(remote)),
        (#"{"protocol_version":1,"data":"gb_0123456789abcdef0123"}"#, .notAnEnvelope(remote)),
        (#"{"protocol_version":1,"data":{"name":"\#(name)","scope":"full"}}"#, .notAnEnvelope(remote)),
        // Tokens that are no gitbay token.
        (#"{"protocol_version":1,"data":{"name":"\#(name)","scope":"full","token":"0123456789abcdef0123456"}}"#,
         .badToken(remote, "a token that is not gb_ followed by token characters")),
        (#"{"protocol_version":1,"data":{"name":"\#(name)","scope":"full","token":"gb_0123456789abcdef012 3"}}"#,
         .badToken(remote, "a token that is not gb_ followed by token characters")),
        (#"{"protocol_version":1,"data":{"name":"\#(name)","scope":"full","token":"gb_0123456789abcdef012\n3"}}"#,
         .badToken(remote, "a token that is not gb_ followed by token characters")),
        (#"{"protocol_version":1,"data":{"name":"\#(name)","scope":"full","token":"gb_0123456789abcdef012\u001b[2J"}}"#,
         .badToken(remote, "a token that is not gb_ followed by token characters")),
        (#"{"protocol_version":1,"data":{"name":"\#(name)","scope":"full","token":"gb_short"}}"#,
         .badToken(remote, "a token that is not gb_ followed by token characters")),
        (#"{"protocol_version":1,"data":{"name":"\#(name)","scope":"full","token":"gb_0123456789abcdéf0123"}}"#,
         .badToken(remote, "a token that is not gb_ followed by token characters")),
        (#"{"protocol_version":1,"data":{"name":"other","scope":"full","token":"\#(token)"}}"#,
         .badToken(remote, #"a token of another name ("other")"#)),
        (#"{"protocol_version":1,"data":{"name":"\#(name)","scope":"read","token":"\#(token)"}}"#,
         .badToken(remote, #"a token of scope "read" instead of full"#)),
    ])
    func refusesWhatIsNoMintedToken(_ stdout: String, _ failure: SSHFailure) {
        #expect(throws: failure) { try SSHAnswer.mintedToken(Self.outcome(stdout), name: Self.name, from: Self.remote) }
    }

    @Test func refusesAnAnswerPastTheLimitUnread() {
        let outcome = Self.outcome(String(repeating: " ", count: 100), overflowed: true)
        #expect(throws: SSHFailure.tooLarge(Self.remote)) { try SSHAnswer.mintedToken(outcome, name: Self.name, from: Self.remote) }
        // Killed at the bound, as the runner does.
        let killed = SSHOutcome(termination: .signalled(9), stdout: Array(repeating: 32, count: 100), stdoutOverflowed: true, stderr: [])
        #expect(throws: SSHFailure.tooLarge(Self.remote)) { try SSHAnswer.mintedToken(killed, name: Self.name, from: Self.remote) }
        #expect(SSHFailure.tooLarge(Self.remote).description.contains("more than 64 KiB"))
    }

    @Test func exitCodesAreGitbaysWords() {
        let readKey = Self.outcome(#"{"protocol_version":1,"error":"this key's scope (read) does not allow control commands"}"#, exit: 4)
        #expect(throws: SSHFailure.denied(Self.remote, "this key's scope (read) does not allow control commands")) {
            try SSHAnswer.mintedToken(readKey, name: Self.name, from: Self.remote)
        }
        #expect(SSHFailure.denied(Self.remote, "this key's scope (read) does not allow control commands").description
            == "git@gitbay.org:2222 denied it: this key's scope (read) does not allow control commands")
        let unknown = Self.outcome(#"{"protocol_version":1,"error":"no token named \"x\""}"#, exit: 3)
        #expect(throws: SSHFailure.notFound(Self.remote, #"no token named "x""#)) {
            try SSHAnswer.revoked(unknown, name: "x", from: Self.remote)
        }
        // Without an envelope, ssh's last line on standard error says why.
        let crashed = Self.outcome("", exit: 1, stderr: "panic: oops\n\u{1B}[31mgoroutine 1\n\n")
        #expect(throws: SSHFailure.failed(Self.remote, exitCode: 1, "[31mgoroutine 1")) {
            try SSHAnswer.mintedToken(crashed, name: Self.name, from: Self.remote)
        }
    }

    @Test func sshsOwnFailuresAreToldApart() {
        func failure(_ stderr: String) -> SSHFailure? {
            do {
                _ = try SSHAnswer.mintedToken(Self.outcome("", exit: 255, stderr: stderr), name: Self.name, from: Self.remote)
                return nil
            } catch {
                return error
            }
        }
        #expect(failure("git@127.0.0.1: Permission denied (publickey).\n") == .keyRefused(Self.remote, "git@127.0.0.1: Permission denied (publickey)."))
        #expect(failure("No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.\nHost key verification failed.\n")
            == .hostKeyUnknown(Self.remote))
        #expect(failure("""
            @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@
            @    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @
            @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@
            Host key verification failed.
            """) == .hostKeyChanged(Self.remote))
        #expect(failure("ssh: connect to host gitbay.org port 2222: Connection refused\r\n")
            == .connection(Self.remote, "ssh: connect to host gitbay.org port 2222: Connection refused"))
        #expect(failure("") == .connection(Self.remote, "exit status 255"))
    }

    @Test func hostKeyFailuresSayHowToAddTheHostWithoutPromptingForIt() {
        let unknown = SSHFailure.hostKeyUnknown(Self.remote).description
        #expect(unknown.contains("ssh -p 2222 git@gitbay.org -- whoami"))
        #expect(unknown.contains("check the fingerprint"))
        let changed = SSHFailure.hostKeyChanged(Self.remote).description
        #expect(changed.contains("ssh-keygen -R '[gitbay.org]:2222'"))
    }

    @Test func timeoutsAndSignals() {
        let late = SSHOutcome(termination: .timedOut(seconds: 30), stdout: [], stdoutOverflowed: false, stderr: [])
        #expect(throws: SSHFailure.timedOut(Self.remote, seconds: 30)) { try SSHAnswer.whoami(late, from: Self.remote) }
        #expect(SSHFailure.timedOut(Self.remote, seconds: 30).description == "git@gitbay.org:2222 did not answer over SSH within 30 s")
    }

    @Test func readsRevokeAndWhoami() throws {
        try SSHAnswer.revoked(Self.outcome(#"{"protocol_version":1,"data":{"revoked":"\#(Self.name)"}}"#), name: Self.name, from: Self.remote)
        #expect(throws: SSHFailure.notAnEnvelope(Self.remote)) {
            try SSHAnswer.revoked(Self.outcome(#"{"protocol_version":1,"data":{"revoked":"other"}}"#), name: Self.name, from: Self.remote)
        }
        let whoami = try SSHAnswer.whoami(
            Self.outcome(#"{"protocol_version":1,"data":{"username":"cmc","admin":false,"key_scope":"read"}}"#), from: Self.remote)
        #expect(whoami == SSHWhoami(username: "cmc", keyScope: "read"))
    }

    @Test func acceptsOnlyGitbayTokens() {
        #expect(SSHAnswer.isGitbayToken(Self.token))
        #expect(SSHAnswer.isGitbayToken("gb_" + String(repeating: "A-_9", count: 4)))
        #expect(!SSHAnswer.isGitbayToken("gb_" + String(repeating: "a", count: 15)))
        #expect(!SSHAnswer.isGitbayToken("gb_" + String(repeating: "a", count: 510)))
        #expect(!SSHAnswer.isGitbayToken("GB_" + String(repeating: "a", count: 20)))
        #expect(!SSHAnswer.isGitbayToken("gb_" + String(repeating: "a", count: 20) + "="))
    }

    @Test func errorsAreOneLine() {
        let envelope = Self.outcome(#"{"protocol_version":1,"error":"line one\nline\u001b[2Jtwo"}"#, exit: 4)
        #expect(throws: SSHFailure.denied(Self.remote, "line one line [2Jtwo")) {
            try SSHAnswer.mintedToken(envelope, name: Self.name, from: Self.remote)
        }
    }
}

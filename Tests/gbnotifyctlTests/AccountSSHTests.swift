import DesktopSuites
import Foundation
import Testing
import TestSupport

/// A test's own gitbay over SSH: a stand-in with user `cmc`, a real sshd on a loopback port whose
/// sessions are the stand-in's SSH front, a key of the test's, and a private home for `ssh` with
/// that key as its identity and the server's host key in its known_hosts.
struct SSHWorld {
    let standin: Standin
    let sshd: OpenSSHServer
    let ctl: Ctl
    let home: SSHClientHome
    let key: SSHKey

    static func start(scope: OpenSSHServer.KeyScope = .full, authorize: Bool = true) async throws -> SSHWorld {
        let standin = try await Standin.start()
        try await standin.addUser("cmc")
        let sshd = try await OpenSSHServer.start()
        let ctl = try Ctl()
        let key = try await SSHKey.make(in: ctl.home.appendingPathComponent("keys"), named: "cmc-key")
        if authorize { try sshd.authorize(key, as: "cmc", scope: scope, on: standin) }
        let home = try SSHClientHome(in: ctl.home)
        try home.useIdentity(key)
        try home.writeKnownHosts([sshd.knownHostsLine])
        return SSHWorld(standin: standin, sshd: sshd, ctl: ctl, home: home, key: key)
    }

    var account: String { "cmc@\(standin.url.dropFirst("http://".count))" }

    func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Program.Outcome {
        try await ctl.run(arguments, adding: home.environment.merging(environment) { $1 })
    }

    /// `account add URL --ssh USER@127.0.0.1:PORT`, and more arguments.
    func mint(_ more: [String] = []) async throws -> Program.Outcome {
        try await run(["account", "add", standin.url, "--ssh", sshd.remote] + more)
    }

    func storedToken() async throws -> String? {
        try await SecretTool.lookup(instance: standin.url, user: "cmc")
    }

    /// The keyring item's attributes, as secret-tool shows them.
    func storedItem() async throws -> String {
        try await SecretTool.search(["instance": standin.url, "user": "cmc"])
    }

    func stop() async {
        _ = try? await run(["account", "remove", standin.url])
        await sshd.stop()
        await standin.stop()
    }
}

/// `gbnotifyctl account add --ssh`, `account import`, `account remove` and `doctor` against a real
/// OpenSSH server and the stand-in, with the session's real keyring. No mock of ssh anywhere.
@Suite(.needsDesktopSession) struct AccountSSHTests {
    @Test func mintsTheTokenThenPollsWithIt() async throws {
        let world = try await SSHWorld.start()
        defer { Task { await world.stop() } }
        try await world.standin.addNotification(for: "cmc")

        let added = try await world.mint()
        #expect(added.status == 0, "\(added.stderr)")
        let device = try #require(try await world.standin.state().devices.first)
        #expect(added.stdout == "Added \(world.account) (registered as device \(device.id)).\n")

        // One token on the server, named for this machine, and it is the keyring's.
        let tokens = try await world.standin.state().tokens
        #expect(tokens.count == 1)
        let name = try #require(tokens.first?.name)
        #expect(name.wholeMatch(of: /gbnotifyd on .+ [0-9a-f]{6}/) != nil, "\(name)")
        #expect(tokens.first?.scope == .full)
        let token = try #require(try await world.storedToken())
        #expect(token.hasPrefix("gb_"))
        #expect(try await world.storedItem().contains("attribute.token-name = \(name)"))
        #expect(try await world.storedItem().contains("attribute.ssh-remote = \(world.sshd.remote)"))
        let commands = try await world.standin.sshCommands()
        #expect(commands.map(\.argv) == [["token", "create", "--name", name, "--scope", "full"]])

        // The new token polls: the inbox is read with it from the stand-in's API.
        try await world.standin.clearRequests()
        let inbox = try await world.run(["inbox", world.account, "--json"])
        #expect(inbox.status == 0, "\(inbox.stderr)")
        #expect(inbox.stdout.contains("\"summary\""))
        let polls = try await world.standin.requests().filter { $0.queryArgv?.starts(with: ["notifications", "list"]) == true }
        #expect(!polls.isEmpty)
        #expect(polls.allSatisfy { $0.header("Authorization") == "Bearer \(token)" && $0.status == 200 })
    }

    /// `/proc/*/cmdline` of every process is read over and over while the mint runs; the token
    /// is in none of them, nor in what gbnotifyctl printed, nor in its files, nor in sshd's log.
    @Test func theMintedTokenIsInNoArgvNoOutputAndNoLog() async throws {
        let world = try await SSHWorld.start()
        defer { Task { await world.stop() } }
        // whoami waits a moment, so that the sampling sees gbnotifyctl while it holds the token.
        try await world.standin.addFault(.init(.delay(seconds: 1), match: .init(argvPrefix: ["whoami"])))
        let program = try world.ctl.start(["account", "add", world.standin.url, "--ssh", world.sshd.remote], adding: world.home.environment)
        var commandLines = Set<String>()
        while kill(program.pid, 0) == 0, (try? String(contentsOfFile: "/proc/\(program.pid)/stat", encoding: .utf8))?.contains(") Z ") != true {
            commandLines.formUnion(Self.everyCommandLine())
        }
        let added = await program.finish()
        #expect(added.status == 0, "\(added.stderr)")
        // The sampling saw ssh at work, with the command it was given.
        #expect(commandLines.contains { $0.hasPrefix("ssh\u{0}-o\u{0}BatchMode=yes") && $0.contains("token create") }, "\(commandLines.filter { $0.hasPrefix("ssh") })")
        let token = try #require(try await world.storedToken())
        for text in commandLines.sorted() + [added.stdout, added.stderr, try world.ctl.allFileContents(), try world.sshd.log()] {
            #expect(!text.contains(token))
            #expect(!text.contains(String(token.dropFirst(3))))
        }
    }

    @Test func removeRevokesTheMintedTokenAndTheServerThenRefusesIt() async throws {
        let world = try await SSHWorld.start()
        defer { Task { await world.stop() } }
        #expect(try await world.mint().status == 0)
        let token = try #require(try await world.storedToken())
        let name = try #require(try await world.standin.state().tokens.first?.name)
        #expect(try await world.standin.whoamiStatus(token: token) == 200)

        let removed = try await world.run(["account", "remove", world.account])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout.hasPrefix("Removed \(world.account) (deregistered device "))
        #expect(removed.stdout.hasSuffix(", revoked token \"\(name)\").\n"), "\(removed.stdout)")
        #expect(try await world.standin.whoamiStatus(token: token) == 401)
        #expect(try await world.standin.state().devices.isEmpty)
        #expect(try await world.storedToken() == nil)
    }

    /// A token handed over on standard input replaces the minted one in the keyring (one item,
    /// no token-name left), and the minted one is revoked: nobody would know of it otherwise.
    @Test func aTokenThatReplacesAMintedOneRevokesIt() async throws {
        let world = try await SSHWorld.start()
        defer { Task { await world.stop() } }
        #expect(try await world.mint().status == 0)
        let minted = try #require(try await world.storedToken())
        let pasted = try await world.standin.addToken(for: "cmc")
        let replaced = try await world.ctl.run(["account", "add", world.standin.url], stdin: pasted, adding: world.home.environment)
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try await world.storedToken() == pasted)
        let item = try await world.storedItem()
        #expect(!item.contains("token-name"), "\(item)")
        #expect(item.components(separatedBy: "attribute.instance = ").count == 2, "\(item)")
        #expect(try await world.standin.whoamiStatus(token: minted) == 401)
        #expect(try await world.standin.whoamiStatus(token: pasted) == 200)
    }

    @Test func aFailedRevokeStillRemovesTheAccountAndSaysWhatToRun() async throws {
        let world = try await SSHWorld.start()
        defer { Task { await world.stop() } }
        #expect(try await world.mint().status == 0)
        let name = try #require(try await world.standin.state().tokens.first?.name)
        try world.sshd.deauthorizeAll()

        let removed = try await world.run(["account", "remove", world.account])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(try await world.storedToken() == nil)
        #expect(removed.stderr.contains("could not be revoked"), "\(removed.stderr)")
        #expect(removed.stderr.contains("refused your SSH key"), "\(removed.stderr)")
        let command = try #require(removed.stderr.components(separatedBy: "revoke it by hand: ").last?.trimmingCharacters(in: .newlines))
        #expect(command.hasPrefix("ssh -p \(world.sshd.port) \(world.sshd.user)@127.0.0.1 -- "), "\(command)")

        // The command as printed, run by the user's shell, revokes it.
        try world.sshd.authorize(world.key, as: "cmc", on: world.standin)
        let byHand = try await Program.run(
            ["/bin/sh", "-c", command.replacingOccurrences(of: "ssh ", with: "ssh -o BatchMode=yes ", options: .anchored)],
            environment: ProcessInfo.processInfo.environment.merging(world.home.environment) { $1 })
        #expect(byHand.status == 0, "\(byHand.stderr)")
        #expect(byHand.stdout.contains("\"revoked\": \"\(name)\""), "\(byHand.stdout)")
        #expect(try await world.standin.state().tokens.allSatisfy { $0.revoked })
    }

    @Test func aNameWithSpacesAndQuotesReachesTheServerIntact() async throws {
        let world = try await SSHWorld.start()
        defer { Task { await world.stop() } }
        let name = #"Chloé's "work" laptop; $HOME * \ `id`"#
        let added = try await world.mint(["--token-name", name])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try await world.standin.state().tokens.map(\.name) == [name])
        let removed = try await world.run(["account", "remove", world.account])
        #expect(removed.stdout.contains("revoked token \"\(name)\""), "\(removed.stdout)")
        #expect(try await world.standin.state().tokens.allSatisfy { $0.revoked })
    }

    @Test func aRefusedKeyStoresNothingAndQuotesSSH() async throws {
        let world = try await SSHWorld.start(authorize: false)
        defer { Task { await world.stop() } }
        let added = try await world.mint()
        #expect(added.status == 1)
        #expect(added.stderr.contains("refused your SSH key (ssh said: \(world.sshd.user)@127.0.0.1: Permission denied (publickey).)"), "\(added.stderr)")
        #expect(added.stderr.contains("Nothing was stored."))
        #expect(try await world.storedToken() == nil)
    }

    @Test func anUnknownHostKeyIsNeverAcceptedAndTheUserIsToldHowToAddIt() async throws {
        let world = try await SSHWorld.start()
        defer { Task { await world.stop() } }
        try world.home.writeKnownHosts([])
        let added = try await world.mint()
        #expect(added.status == 1)
        #expect(added.stderr.contains("is not in your known_hosts, and gbnotifyctl never accepts a host key by itself"), "\(added.stderr)")
        #expect(added.stderr.contains("connect once by hand (ssh -p \(world.sshd.port) \(world.sshd.user)@127.0.0.1 -- whoami)"))
        // Batch mode: nothing was added to known_hosts behind the user's back.
        #expect(try String(contentsOf: world.home.home.appendingPathComponent(".ssh/known_hosts"), encoding: .utf8).isEmpty)
        #expect(try await world.standin.sshCommands().isEmpty)
        #expect(try await world.storedToken() == nil)
    }

    @Test func aChangedHostKeyIsRefused() async throws {
        let world = try await SSHWorld.start()
        defer { Task { await world.stop() } }
        let other = try await SSHKey.make(in: world.ctl.home.appendingPathComponent("keys"), named: "other-host")
        try world.home.writeKnownHosts(["[127.0.0.1]:\(world.sshd.port) \(other.publicKey)"])
        let added = try await world.mint()
        #expect(added.status == 1)
        #expect(added.stderr.contains("is not the one in your known_hosts"), "\(added.stderr)")
        #expect(added.stderr.contains("ssh-keygen -R '[127.0.0.1]:\(world.sshd.port)'"))
        #expect(try await world.storedToken() == nil)
    }

    @Test func aReadScopedKeyGetsGitbaysWords() async throws {
        let world = try await SSHWorld.start(scope: .read)
        defer { Task { await world.stop() } }
        let added = try await world.mint()
        #expect(added.status == 1)
        #expect(added.stderr.contains("denied it: this key's scope (read) does not allow control commands"), "\(added.stderr)")
        #expect(try await world.standin.state().tokens.isEmpty)
        #expect(try await world.storedToken() == nil)
    }

    /// Each answer that is no minted token is refused, and the token the command minted all the
    /// same is revoked at once: nothing is left behind on the server or in the keyring.
    @Test(arguments: [
        (Standin.SSHFault.stdout("not a gitbay reply\n"), "is not a gitbay reply"),
        (.stdoutBytes(100_000), "more than 64 KiB"),
        (.token("gb_0123456789abcdef0123\u{1B}]0;owned\u{7}"), "a token that is not gb_ followed by token characters"),
        (.token("0123456789abcdef0123456789"), "a token that is not gb_ followed by token characters"),
        (.token("gb_../../../../etc/passwd_"), "a token that is not gb_ followed by token characters"),
    ])
    func aHostileAnswerIsRefusedAndItsTokenRevoked(_ fault: Standin.SSHFault, _ words: String) async throws {
        let world = try await SSHWorld.start()
        defer { Task { await world.stop() } }
        try await world.standin.addSSHFault(fault, argvPrefix: ["token", "create"])
        let added = try await world.mint()
        #expect(added.status == 1)
        #expect(added.stderr.contains(words), "\(added.stderr)")
        #expect(added.stderr.contains("refused"), "\(added.stderr)")
        #expect(added.stderr.contains("The new token was revoked again."), "\(added.stderr)")
        let tokens = try await world.standin.state().tokens
        #expect(tokens.count == 1)
        #expect(tokens.allSatisfy { $0.revoked })
        #expect(try await world.storedToken() == nil)
        #expect(!added.stderr.contains("\u{1B}"))
    }

    @Test func aTokenTheWebAddressDoesNotTakeIsRevokedAtOnce() async throws {
        let world = try await SSHWorld.start()
        defer { Task { await world.stop() } }
        // Another instance's web address: it has no account of that token.
        let elsewhere = try await Standin.start()
        let added = try await world.run(["account", "add", elsewhere.url, "--ssh", world.sshd.remote])
        #expect(added.status == 1)
        #expect(added.stderr.contains("a token was minted at \(world.sshd.remote), but \(elsewhere.url), the web address tried, did not take it"), "\(added.stderr)")
        #expect(added.stderr.contains("The new token was revoked again."))
        #expect(try await world.standin.state().tokens.allSatisfy { $0.revoked })
        #expect(try await SecretTool.lookup(instance: elsewhere.url, user: "cmc") == nil)
        await elsewhere.stop()
    }

    @Test func sshMissingFromPathIsSaid() async throws {
        let world = try await SSHWorld.start()
        defer { Task { await world.stop() } }
        let empty = world.ctl.home.appendingPathComponent("empty-bin")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let added = try await world.run(["account", "add", world.standin.url, "--ssh", world.sshd.remote], environment: ["PATH": empty.path])
        #expect(added.status == 1)
        #expect(added.stderr.contains("there is no ssh on PATH to mint the token with; install OpenSSH's client"), "\(added.stderr)")
        #expect(try await world.standin.state().tokens.isEmpty)
    }

    @Test func importTakesEveryInstanceOfTheGitbayCLIsConfig() async throws {
        // Instance a: a Host alias of the user's ssh config, which names the port and the key.
        // Instance b: the port and the key in the gitbay CLI's own config.
        let world = try await SSHWorld.start()
        defer { Task { await world.stop() } }
        let second = try await Standin.start()
        try await second.addUser("krz")
        let keyB = try await SSHKey.make(in: world.ctl.home.appendingPathComponent("keys"), named: "krz-key")
        try world.sshd.authorize(keyB, as: "krz", on: second)
        try world.home.writeConfig("""
            Host gitbay-a.test
                HostName 127.0.0.1
                Port \(world.sshd.port)
                HostKeyAlias [127.0.0.1]:\(world.sshd.port)
                IdentityFile \(world.key.privateKeyPath)
                IdentitiesOnly yes

            """)
        let config = world.ctl.home.appendingPathComponent("config/gitbay")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try """
            default = "a"
            [instances.a]
            host = "gitbay-a.test"
            user = "\(world.sshd.user)"

            [instances.b]
            host = "127.0.0.1"
            port = \(world.sshd.port)
            user = "\(world.sshd.user)"
            ssh_options = ["-i", "\(keyB.privateKeyPath)", "-o", "IdentitiesOnly=yes"]
            """.write(to: config.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
        let urls = ["--url", "a=\(world.standin.url)", "--url", "b=\(second.url)"]

        let imported = try await world.run(["account", "import"] + urls)
        #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
        let lines = imported.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(imported.stdout)")
        #expect(lines.first?.hasPrefix("a: Added \(world.account) (registered as device ") == true, "\(lines)")
        #expect(lines.last?.hasPrefix("b: Added krz@\(second.url.dropFirst("http://".count)) (registered as device ") == true, "\(lines)")
        #expect(try await world.standin.state().tokens.map(\.username) == ["cmc"])
        #expect(try await second.state().tokens.map(\.username) == ["krz"])
        let itemB = try await SecretTool.search(["instance": second.url, "user": "krz"])
        #expect(itemB.contains("attribute.ssh-options = -i \(keyB.privateKeyPath) -o IdentitiesOnly=yes"), "\(itemB)")

        let again = try await world.run(["account", "import"] + urls)
        #expect(again.status == 0)
        #expect(again.stdout == """
            a: skipped: \(world.account) is in the keyring already
            b: skipped: krz@\(second.url.dropFirst("http://".count)) is in the keyring already

            """)

        // Removing b revokes its token with b's own options.
        let removed = try await world.run(["account", "remove", second.url])
        #expect(removed.stdout.contains("revoked token"), "\(removed.stdout)\(removed.stderr)")
        #expect(try await second.state().tokens.allSatisfy { $0.revoked })
        await second.stop()
    }

    @Test func importSaysWhatIsWrongWithTheConfigAndWhichInstanceFailed() async throws {
        let world = try await SSHWorld.start()
        defer { Task { await world.stop() } }
        let config = world.ctl.home.appendingPathComponent("config/gitbay")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        let file = config.appendingPathComponent("config.toml")

        try "[instances.a]\nhost = \"h\"\nport = 22.5\n".write(to: file, atomically: true, encoding: .utf8)
        let broken = try await world.run(["account", "import"])
        #expect(broken.status == 1)
        #expect(broken.stderr.contains("\(file.path): line 3: only decimal integers"), "\(broken.stderr)")

        // One instance that works, one whose key the server refuses.
        try world.home.writeConfig("")
        try """
            [instances.good]
            host = "127.0.0.1"
            port = \(world.sshd.port)
            user = "\(world.sshd.user)"
            ssh_options = ["-i", "\(world.key.privateKeyPath)"]
            [instances.refused]
            host = "127.0.0.1"
            port = \(world.sshd.port)
            user = "\(world.sshd.user)"
            ssh_options = ["-i", "/nonexistent/key", "-o", "IdentitiesOnly=yes"]
            """.write(to: file, atomically: true, encoding: .utf8)
        let second = try await Standin.start()
        let mixed = try await world.run(["account", "import", "--url", "good=\(world.standin.url)", "--url", "refused=\(second.url)"])
        #expect(mixed.status == 1)
        #expect(mixed.stdout.contains("good: Added \(world.account)"), "\(mixed.stdout)")
        #expect(mixed.stdout.contains("refused: failed: cannot mint a token over SSH: "), "\(mixed.stdout)")
        #expect(mixed.stdout.contains("refused your SSH key"), "\(mixed.stdout)")
        let unknown = try await world.run(["account", "import", "--url", "nope=https://x.example"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("has no instance nope"))
        await second.stop()
    }

    @Test func doctorChecksThatTheSSHHostOfAMintedTokenAnswersWithTheKey() async throws {
        let world = try await SSHWorld.start()
        defer { Task { await world.stop() } }
        #expect(try await world.mint().status == 0)
        let check = "ssh \(world.sshd.remote) for \(world.account)"

        let healthy = try await world.run(["doctor", world.account, "--json"])
        let finding = try #require(try Self.findings(healthy.stdout).first { $0["check"] as? String == check }, "\(healthy.stdout)")
        #expect(finding["verdict"] as? String == "ok")
        #expect(finding["finding"] as? String == "answers with your key, as cmc")

        try world.sshd.deauthorizeAll()
        let refused = try await world.run(["doctor", world.account, "--json"])
        let warning = try #require(try Self.findings(refused.stdout).first { $0["check"] as? String == check })
        #expect(warning["verdict"] as? String == "warning")
        #expect((warning["finding"] as? String)?.contains("refused your SSH key") == true, "\(warning)")
    }

    @Test func atATerminalAddOffersToMintOverSSHFirst() async throws {
        let world = try await SSHWorld.start()
        defer { Task { await world.stop() } }
        let tmux = try await Tmux.start()
        defer { Task { await tmux.stop() } }
        let pane = try await tmux.run(
            [Ctl.executable, "account", "add", world.standin.url],
            environment: world.ctl.environment.merging(world.home.environment) { $1 }, columns: 200)
        _ = try await pane.waitFor("the offer to mint over SSH", timeout: .seconds(60)) { lines in
            lines.contains { $0.contains("over SSH with your SSH key, as git@127.0.0.1? [Y/n, or USER@HOST[:PORT]]") }
        }
        // The test's sshd lets in its own user only, not git: the answer names the remote.
        try await pane.send(world.sshd.remote, "Enter")
        // A mint is a few seconds; a machine under load may take many more.
        let exit = try await pane.waitForExit(timeout: .seconds(90))
        let screen = try await pane.capture()
        #expect(exit.status == 0, "\(screen)")
        #expect(screen.contains("Added \(world.account)"))
        #expect(try await world.storedToken()?.hasPrefix("gb_") == true)
    }

    private static func findings(_ json: String) throws -> [[String: Any]] {
        let report = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        return report?["findings"] as? [[String: Any]] ?? []
    }

    /// The argv of every process now, arguments joined by NUL as in /proc.
    private static func everyCommandLine() -> Set<String> {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.filter { $0.allSatisfy(\.isNumber) } ?? []
        return Set(pids.compactMap { pid in
            (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))).map { String(decoding: $0, as: UTF8.self) }
        })
    }
}

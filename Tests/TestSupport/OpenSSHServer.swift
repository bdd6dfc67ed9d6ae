import Foundation
import Glibc

/// A real OpenSSH server on a loopback port of its own (`Tests/Standin/sshd_standin.py`: Debian's
/// sshd with a host key made for the run), every session of which is the stand-in's SSH front:
/// gitbay over SSH, answering from a gitbay stand-in's own token table. Keys are made with
/// ssh-keygen and let in per test; the client side is a private home for the real `ssh`
/// (`SSHClientHome`). Stops with its lifeline, like the stand-ins.
public final class OpenSSHServer: Sendable {
    public let port: Int
    /// The user clients log in as: the one running the tests (sshd lets in no other).
    public let user: String
    /// `ssh-ed25519 AAAA...`, the server's host key.
    public let hostKey: String
    let authorizedKeys: String
    /// The server's directory (config, host key, `sshd.log`).
    public let directory: String
    private let process: LifelineProcess

    public static func start() async throws -> OpenSSHServer {
        try await offCooperativePool { try OpenSSHServer() }
    }

    private init() throws {
        struct ReadyLine: Decodable {
            let port: Int
            let dir: String
            let hostKey: String
            let authorizedKeys: String
            let user: String
        }
        let argv = [Standin.python, "-S", "-c", Standin.guardScript, Standin.python, "\(Standin.packageRoot)/Tests/Standin/sshd_standin.py"]
        process = try LifelineProcess(argv, readyLines: 1, readyTimeout: Standin.defaultReadyTimeout)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let ready = try decoder.decode(ReadyLine.self, from: Data(process.readyLines[0].utf8))
        port = ready.port
        user = ready.user
        hostKey = ready.hostKey
        authorizedKeys = ready.authorizedKeys
        directory = ready.dir
    }

    public func stop() async {
        await process.stop()
    }

    /// `USER@127.0.0.1:PORT`, as `account add --ssh` takes it.
    public var remote: String { "\(user)@127.0.0.1:\(port)" }

    /// The line for known_hosts that trusts this server.
    public var knownHostsLine: String { "[127.0.0.1]:\(port) \(hostKey)" }

    /// What sshd logged so far.
    public func log() throws -> String {
        try String(contentsOfFile: "\(directory)/sshd.log", encoding: .utf8)
    }

    /// The key's scope on the gitbay side: a read-scoped key may not run control commands.
    public enum KeyScope: String, Sendable {
        case full, read
    }

    /// Lets `key` in as gitbay user `username` of `standin`, with `scope`.
    public func authorize(_ key: SSHKey, as username: String, scope: KeyScope = .full, on standin: Standin) throws {
        let line = "environment=\"GITBAY_USER=\(username)\",environment=\"GITBAY_KEY_SCOPE=\(scope.rawValue)\","
            + "environment=\"GITBAY_STANDIN=\(standin.url)\",restrict \(key.publicKey)\n"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: authorizedKeys))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(line.utf8))
    }

    /// Lets no key in any more.
    public func deauthorizeAll() throws {
        try Data().write(to: URL(fileURLWithPath: authorizedKeys))
    }
}

/// An ed25519 key pair made with ssh-keygen, without a passphrase.
public struct SSHKey: Sendable {
    public let privateKeyPath: String
    /// `ssh-ed25519 AAAA... comment`.
    public let publicKey: String

    public static func make(in directory: URL, named name: String) async throws -> SSHKey {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent(name).path
        let made = try await Program.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", path],
            environment: ProcessInfo.processInfo.environment)
        guard made.status == 0 else { throw OpenSSHServer.Failure(description: "ssh-keygen failed: \(made.stderr)") }
        let publicKey = try String(contentsOfFile: path + ".pub", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return SSHKey(privateKeyPath: path, publicKey: publicKey)
    }
}

extension OpenSSHServer {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }
}

/// A home of the test's own for the real `ssh`, which reads `~/.ssh/config` and
/// `~/.ssh/known_hosts` from the passwd entry's home, not from `$HOME`: the environment runs
/// programs with nss_wrapper (Debian's libnss-wrapper), whose passwd file gives the current user
/// this home instead. So gbnotifyctl runs ssh exactly as it would for a user, with the user's own
/// config, identity and known hosts, and the user's real ones are never read or touched.
public struct SSHClientHome: Sendable {
    public let home: URL

    public init(in directory: URL) throws {
        home = directory.appendingPathComponent("ssh-home")
        try FileManager.default.createDirectory(at: home.appendingPathComponent(".ssh"), withIntermediateDirectories: true)
        guard let entry = getpwuid(getuid()), let group = getgrgid(getgid()) else {
            throw OpenSSHServer.Failure(description: "the current user has no passwd or group entry")
        }
        let name = String(cString: entry.pointee.pw_name)
        let passwd = "\(name):x:\(getuid()):\(getgid()):\(name):\(home.path):/bin/sh\n"
        let groupLine = "\(String(cString: group.pointee.gr_name)):x:\(getgid()):\n"
        try Data(passwd.utf8).write(to: directory.appendingPathComponent("passwd"))
        try Data(groupLine.utf8).write(to: directory.appendingPathComponent("group"))
    }

    /// What a program needs in its environment to see this home as the user's.
    public var environment: [String: String] {
        [
            "LD_PRELOAD": "libnss_wrapper.so",
            "NSS_WRAPPER_PASSWD": home.deletingLastPathComponent().appendingPathComponent("passwd").path,
            "NSS_WRAPPER_GROUP": home.deletingLastPathComponent().appendingPathComponent("group").path,
            "HOME": home.path,
        ]
    }

    /// Writes `~/.ssh/config`.
    public func writeConfig(_ text: String) throws {
        try Data(text.utf8).write(to: home.appendingPathComponent(".ssh/config"))
    }

    /// Writes `~/.ssh/known_hosts`.
    public func writeKnownHosts(_ lines: [String]) throws {
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: home.appendingPathComponent(".ssh/known_hosts"))
    }

    /// A config that offers `identity` alone to every host, as a user with one gitbay key has it.
    public func useIdentity(_ identity: SSHKey, extra: String = "") throws {
        try writeConfig("""
            \(extra)
            Host *
                IdentityFile \(identity.privateKeyPath)
                IdentitiesOnly yes

            """)
    }
}

/// How one run of `ssh USER@HOST -- --json COMMAND` ended, as the process runner saw it: the
/// exit status, what came on standard output (at most `stdoutLimit` bytes are kept) and the
/// end of standard error.
public struct SSHOutcome: Sendable, Equatable {
    public enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)
        /// No end within the deadline; the runner killed ssh.
        case timedOut(seconds: Int)
    }

    /// More than a gitbay envelope ever holds (a `token create` answer is a few hundred bytes,
    /// a long `token list` some kilobytes): past it the answer is refused unread.
    public static let stdoutLimit = 64 * 1024
    /// ssh's diagnostics are a few lines; only the last one is ever shown.
    public static let stderrLimit = 16 * 1024

    public let termination: Termination
    public let stdout: [UInt8]
    /// Standard output went past `stdoutLimit`; `stdout` holds its first bytes only.
    public let stdoutOverflowed: Bool
    public let stderr: [UInt8]

    public init(termination: Termination, stdout: [UInt8], stdoutOverflowed: Bool, stderr: [UInt8]) {
        self.termination = termination
        self.stdout = stdout
        self.stdoutOverflowed = stdoutOverflowed
        self.stderr = stderr
    }

    /// ssh's exit status when the connection, the host key or the authentication failed.
    static let sshFailed: Int32 = 255

    /// The last line on standard error that says something, as one harmless bounded line.
    var lastErrorLine: String? {
        let lines = String(decoding: stderr, as: UTF8.self).split(whereSeparator: \.isNewline).map { String($0).displaySafe.trimmingWhitespace }
        return lines.last { !$0.isEmpty }.map { String($0).truncated(to: 300) }
    }
}

/// A token `token create` minted, with the name it was minted under.
public struct MintedToken: Sendable, Equatable {
    public let name: String
    public let token: APIToken
}

/// What the server answered to `whoami` over SSH: the account the key belongs to, and the key's
/// own scope (over SSH it is the key's, not always "full").
public struct SSHWhoami: Sendable, Equatable {
    public let username: String
    public let keyScope: String

    public init(username: String, keyScope: String) {
        self.username = username
        self.keyScope = keyScope
    }
}

/// Why a command over SSH did not do what was asked, in the user's words: each says what
/// happened and what to do. Never carries a token.
public enum SSHFailure: Error, Equatable, CustomStringConvertible {
    /// `ssh` is not on PATH.
    case sshMissing
    /// ssh could not be started for another reason (the C library's words).
    case cannotStart(String)
    /// The server refused every key ssh offered; ssh's own last line.
    case keyRefused(SSHRemote, String)
    /// The host's key is not in known_hosts; batch mode refuses to ask.
    case hostKeyUnknown(SSHRemote)
    /// The host's key is not the one known_hosts holds.
    case hostKeyChanged(SSHRemote)
    /// Any other failure of ssh itself (no route, connection refused, a name that does not
    /// resolve); ssh's own last line.
    case connection(SSHRemote, String)
    /// The command answered exit 4: gitbay's own words, such as a read-scoped key's.
    case denied(SSHRemote, String)
    /// The command answered exit 3 (`no token named "NAME"`).
    case notFound(SSHRemote, String)
    /// The command answered another non-zero exit code.
    case failed(SSHRemote, exitCode: Int32, String)
    case timedOut(SSHRemote, seconds: Int)
    /// ssh ended by a signal it did not send itself.
    case killed(SSHRemote, signal: Int32)
    /// The answer is not a gitbay envelope, or not the one the command gives.
    case notAnEnvelope(SSHRemote)
    case tooLarge(SSHRemote)
    /// The envelope holds something that is not a gitbay API token (`gb_` and token
    /// characters), or a token of another name or scope than was asked for.
    case badToken(SSHRemote, String)

    public var description: String {
        switch self {
        case .sshMissing:
            "there is no ssh on PATH to mint the token with; install OpenSSH's client (apt install openssh-client)"
        case .cannotStart(let why):
            "cannot start ssh: \(why)"
        case .keyRefused(let remote, let line):
            "\(remote.hostWords) refused your SSH key (ssh said: \(line)); add your public key to your gitbay account, "
                + "or load the key into your ssh agent (ssh-add) if it has a passphrase"
        case .hostKeyUnknown(let remote):
            "\(remote.hostWords) is not in your known_hosts, and gbnotifyctl never accepts a host key by itself; "
                + "connect once by hand (\(remote.commandLine(running: ["whoami"]))), check the fingerprint it shows "
                + "against the one your gitbay instance publishes, answer yes, then try again"
        case .hostKeyChanged(let remote):
            "the host key of \(remote.hostWords) is not the one in your known_hosts (ssh warns of a possible attack); "
                + "ask the instance's admin whether the key changed, and only then remove the old one with "
                + "\(ShellWords.join(["ssh-keygen", "-R", remote.knownHostsName])) and connect once by hand"
        case .connection(let remote, let line):
            "cannot reach \(remote.hostWords) over SSH (ssh said: \(line))"
        case .denied(let remote, let message):
            "\(remote.hostWords) denied it: \(message)"
        case .notFound(let remote, let message):
            "\(remote.hostWords) answered: \(message)"
        case .failed(let remote, let code, let message):
            "\(remote.hostWords) failed the command (exit \(code)): \(message)"
        case .timedOut(let remote, let seconds):
            "\(remote.hostWords) did not answer over SSH within \(seconds) s"
        case .killed(let remote, let signal):
            "ssh to \(remote.hostWords) was ended by signal \(signal)"
        case .notAnEnvelope(let remote):
            "\(remote.hostWords) answered with something that is not a gitbay reply; refused"
        case .tooLarge(let remote):
            "\(remote.hostWords) answered with more than \(SSHOutcome.stdoutLimit / 1024) KiB, more than any gitbay reply; refused"
        case .badToken(let remote, let what):
            "\(remote.hostWords) answered with \(what); refused"
        }
    }
}

extension SSHRemote {
    /// How failures name the host: `git@gitbay.org` (with the port when there is one).
    var hostWords: String { description }

    /// The host as known_hosts names it: `HOST`, or `[HOST]:PORT` off port 22.
    var knownHostsName: String {
        guard let port, port != 22 else { return host }
        return "[\(host)]:\(port)"
    }
}

/// The answers of the SSH commands gbnotify runs (`gitbay-api.md`, "Over SSH"), decoded and
/// checked. Everything that can be decided about an answer without the process is decided here.
public enum SSHAnswer {
    /// The remote argv of `token create`, with `--json` so the answer is an envelope.
    public static func createCommand(name: String) -> [String] {
        ["--json", "token", "create", "--name", name, "--scope", "full"]
    }

    public static func revokeCommand(name: String) -> [String] {
        ["--json", "token", "revoke", name]
    }

    public static let whoamiCommand = ["--json", "whoami"]

    /// The token `token create --name name --scope full` minted. Anything but a full-scope token
    /// of that name in a well-formed envelope is refused; the caller then revokes `name`, in
    /// case the server minted something all the same.
    public static func mintedToken(_ outcome: SSHOutcome, name: String, from remote: SSHRemote) throws(SSHFailure) -> MintedToken {
        let data = try successData(outcome, from: remote)
        guard case .object(let fields) = data,
              case .string(let token)? = fields["token"],
              case .string(let mintedName)? = fields["name"]
        else { throw .notAnEnvelope(remote) }
        guard isGitbayToken(token), let apiToken = try? APIToken(token) else {
            throw .badToken(remote, "a token that is not gb_ followed by token characters")
        }
        guard mintedName == name else {
            throw .badToken(remote, "a token of another name (\"\(mintedName.displaySafe(truncatedTo: 80))\")")
        }
        if case .string(let scope)? = fields["scope"], scope != "full" {
            throw .badToken(remote, "a token of scope \"\(scope.displaySafe(truncatedTo: 20))\" instead of full")
        }
        return MintedToken(name: name, token: apiToken)
    }

    /// `token revoke name` answered `{"revoked": name}`.
    public static func revoked(_ outcome: SSHOutcome, name: String, from remote: SSHRemote) throws(SSHFailure) {
        guard case .object(let fields) = try successData(outcome, from: remote),
              case .string(let revoked)? = fields["revoked"], revoked == name
        else { throw .notAnEnvelope(remote) }
    }

    public static func whoami(_ outcome: SSHOutcome, from remote: SSHRemote) throws(SSHFailure) -> SSHWhoami {
        guard case .object(let fields) = try successData(outcome, from: remote),
              case .string(let username)? = fields["username"]
        else { throw .notAnEnvelope(remote) }
        guard case .string(let scope)? = fields["key_scope"] else { return SSHWhoami(username: username, keyScope: "full") }
        return SSHWhoami(username: username, keyScope: scope)
    }

    /// `gb_` and 16 to 509 token characters (`[A-Za-z0-9_-]`): nothing a header, a shell or a
    /// log line could read as anything else.
    public static func isGitbayToken(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.starts(with: "gb_".utf8), (19...APIToken.maximumLength).contains(bytes.count) else { return false }
        return bytes.dropFirst(3).allSatisfy { ASCII.isLetter($0) || ASCII.isDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }

    /// The envelope's `data` after exit 0, or the failure the outcome stands for.
    static func successData(_ outcome: SSHOutcome, from remote: SSHRemote) throws(SSHFailure) -> JSONValue {
        // The runner stops ssh at the bound, so the end it then came to says nothing.
        guard !outcome.stdoutOverflowed else { throw .tooLarge(remote) }
        switch outcome.termination {
        case .timedOut(let seconds):
            throw .timedOut(remote, seconds: seconds)
        case .signalled(let signal):
            throw .killed(remote, signal: signal)
        case .exited(SSHOutcome.sshFailed):
            throw sshFailure(outcome, remote)
        case .exited(let code):
            let envelope = Envelope(outcome.stdout)
            guard code == 0 else {
                let message = envelope?.error ?? outcome.lastErrorLine ?? "no reason given"
                switch code {
                case 3: throw .notFound(remote, message)
                case 4: throw .denied(remote, message)
                default: throw .failed(remote, exitCode: code, message)
                }
            }
            guard let envelope, envelope.error == nil, let data = envelope.data else { throw .notAnEnvelope(remote) }
            return data
        }
    }

    /// Exit 255: ssh's own failure, told apart by what it printed.
    private static func sshFailure(_ outcome: SSHOutcome, _ remote: SSHRemote) -> SSHFailure {
        let text = String(decoding: outcome.stderr, as: UTF8.self)
        let line = outcome.lastErrorLine ?? "exit status 255"
        if text.contains("REMOTE HOST IDENTIFICATION HAS CHANGED") || text.contains("Host key for") && text.contains("has changed") {
            return .hostKeyChanged(remote)
        }
        if text.contains("Host key verification failed") { return .hostKeyUnknown(remote) }
        if text.contains("Permission denied") { return .keyRefused(remote, line) }
        return .connection(remote, line)
    }

    /// `{"protocol_version": 1, "data": ...}` or `{"protocol_version": 1, "error": "..."}`.
    struct Envelope {
        let data: JSONValue?
        /// One harmless bounded line.
        let error: String?

        init?(_ bytes: [UInt8]) {
            guard case .object(let fields)? = JSONValue(parsing: bytes), fields["protocol_version"] == .integer(1) else {
                return nil
            }
            data = fields["data"]
            if case .string(let message)? = fields["error"] {
                error = message.displaySafe(truncatedTo: 300)
            } else {
                guard data != nil else { return nil }
                error = nil
            }
        }
    }
}

extension SSHAnswer {
    /// The name a minted token goes by on the server: the device label, `gbnotifyd on HOSTNAME`,
    /// and a short random `suffix`, so that two machines of one name, or two adds, never share
    /// one (`token create` refuses a name the account already has).
    public static func tokenName(hostname: String, suffix: String) -> String {
        GitbayCommand.deviceLabel(hostname: hostname) + " " + suffix
    }

    /// A name given with `--token-name`: 1 to 255 bytes, no control characters.
    public static func checkedTokenName(_ name: String) -> String? {
        guard (1...255).contains(name.utf8.count), !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return nil
        }
        return name
    }
}

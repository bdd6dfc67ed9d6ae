import Glibc
import PushCore
import Spawn
import MainLoop

/// gitbay's SSH-only commands (`gitbay-api.md`, "Over SSH"), run with the system's `ssh` by argv
/// and answered in PushCore types: what ssh printed is decided on there. ssh runs in batch mode
/// with the user's own config, agent and known hosts, and standard input from /dev/null, so
/// it never prompts; a run that takes longer than `deadline` is killed.
///
/// A minted token goes from ssh's standard output (a pipe) into the returned value and nowhere
/// else: never an argv, never a file, never a log line.
public struct GitbaySSH: Sendable {
    /// How long one command may take, connection and authentication included.
    public static let deadline = Duration.seconds(30)

    public let remote: SSHRemote
    private let timeline: Timeline
    private let environment: [String: String]?

    /// `environment` nil: ssh gets gbnotifyctl's own (its agent socket, its HOME).
    public init(remote: SSHRemote, timeline: Timeline = Timeline(), environment: [String: String]? = nil) {
        self.remote = remote
        self.timeline = timeline
        self.environment = environment
    }

    /// `token create --name name --scope full`. An answer that is refused (not an envelope, too
    /// large, no gitbay token) may still have minted a token: the caller revokes `name`.
    public func createToken(name: String) async throws(SSHFailure) -> MintedToken {
        try SSHAnswer.mintedToken(try await run(SSHAnswer.createCommand(name: name)), name: name, from: remote)
    }

    public func revokeToken(name: String) async throws(SSHFailure) {
        try SSHAnswer.revoked(try await run(SSHAnswer.revokeCommand(name: name)), name: name, from: remote)
    }

    /// Which account the key belongs to, and the key's scope: `doctor`'s check that the host
    /// answers with the key.
    public func whoami() async throws(SSHFailure) -> SSHWhoami {
        try SSHAnswer.whoami(try await run(SSHAnswer.whoamiCommand), from: remote)
    }

    /// The command a person runs by hand to revoke `name`.
    public func revokeCommandLine(name: String) -> String {
        remote.commandLine(running: ["token", "revoke", name])
    }

    private func run(_ command: [String]) async throws(SSHFailure) -> SSHOutcome {
        let outcome: ChildProcess.Outcome
        do {
            outcome = try await ChildProcess.run(
                remote.argv(running: command), environment: environment, stdoutLimit: SSHOutcome.stdoutLimit,
                stderrLimit: SSHOutcome.stderrLimit, deadline: Self.deadline, timeline: timeline)
        } catch {
            throw error.code == ENOENT ? .sshMissing : .cannotStart(error.description)
        }
        let termination: SSHOutcome.Termination = switch outcome.termination {
        case .exited(let code): .exited(code)
        case .signalled(let signal): .signalled(signal)
        case .timedOut: .timedOut(seconds: Int(Self.deadline.components.seconds))
        case .cancelled: .signalled(SIGKILL)
        }
        return SSHOutcome(
            termination: termination, stdout: outcome.stdout, stdoutOverflowed: outcome.stdoutOverflowed, stderr: outcome.stderr)
    }
}

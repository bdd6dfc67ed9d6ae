internal import CGlibc
import Glibc

/// Starting a program by argv, with no shell, the way both the daemon (what a click opens) and
/// the tests (stand-ins, sessions, the built executables) need it: only the standard streams
/// reach the child, and it starts with no signal blocked and every signal at its default.
public enum Spawn {
    /// Why a program could not be started, in the C library's words.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        /// The errno it stands for (ENOENT: no such program), 0 when none.
        public let code: Int32

        init(description: String, code: Int32 = 0) {
            self.description = description
            self.code = code
        }
    }

    /// Where one of the child's standard streams comes from.
    public enum Stream: Sendable {
        /// The caller's own.
        case inherit
        case devNull
        /// A descriptor of the caller's, duplicated; the caller keeps and closes its copy.
        case descriptor(Int32)
    }

    /// Starts `argv` (looked up in `PATH`) and returns its pid; `environment` nil passes the
    /// caller's own. With `ownProcessGroup`, the child leads a new process group (its id the
    /// child's pid), which what it starts joins, so that all of it can be signalled at once.
    public static func start(
        _ argv: [String], environment: [String: String]?,
        stdin: Stream, stdout: Stream, stderr: Stream, ownProcessGroup: Bool = false
    ) throws(Failure) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (stream, target) in [(stdin, Int32(0)), (stdout, 1), (stderr, 2)] {
            switch stream {
            case .inherit: break
            case .devNull: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, target)
            }
        }
        // Nothing else: a descriptor some other thread opened without close-on-exec (a file
        // being written, one of libcurl's sockets) must not live on in the child.
        gbn_spawn_closefrom(&actions, 3)

        // The calling thread may be a Dispatch worker, which blocks signals, and a child inherits
        // that mask: a stand-in or a browser that ignores SIGTERM is nobody's friend.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        var allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if ownProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let arguments = argv.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        let error: Int32
        if let environment {
            let variables = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { variables.forEach { free($0) } }
            error = posix_spawnp(&pid, argv[0], &actions, &attributes, arguments, variables)
        } else {
            error = posix_spawnp(&pid, argv[0], &actions, &attributes, arguments, environ)
        }
        guard error == 0 else { throw Failure(description: String(cString: strerror(error)), code: error) }
        return pid
    }
}

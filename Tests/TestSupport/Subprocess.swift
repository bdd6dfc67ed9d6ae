import CSpawn
import Foundation
import Glibc

/// Child processes for tests, started with `posix_spawnp` rather than Foundation's `Process`,
/// so that every descriptor this side opens is close-on-exec and reaching a child is a
/// deliberate `dup2`. That matters for the stand-in's lifeline pipe (see `Standin`): a copy of
/// its write end leaked into another child would keep the stand-in alive.
public enum Subprocess {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `argv` (looked up in `PATH`) with the given descriptors as its stdin, stdout and
    /// stderr; the caller keeps and closes its own copies.
    public static func spawn(
        _ argv: [String], stdin: Int32, stdout: Int32, stderr: Int32, environment: [String: String]? = nil
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        // Only what is passed on above: a descriptor some other thread opened without
        // close-on-exec (a file being written, a socket) must not live on in the child.
        gbn_spawn_closefrom(&actions, 3)

        // The calling thread may be a Dispatch worker, which blocks signals, and a child inherits
        // that mask: the stand-in would never see its SIGTERM. Start children with none blocked
        // and every signal at its default action.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        var allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let arguments = argv.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        let error: Int32
        if let environment {
            var variables = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { variables.forEach { free($0) } }
            error = posix_spawnp(&pid, argv[0], &actions, &attributes, arguments, &variables)
        } else {
            error = posix_spawnp(&pid, argv[0], &actions, &attributes, arguments, environ)
        }
        guard error == 0 else {
            throw Failure(description: "could not start \(argv[0]): \(String(cString: strerror(error)))")
        }
        return pid
    }

    /// Runs `argv` to completion with stdin and stdout on /dev/null; throws with its stderr when
    /// it fails.
    static func run(_ argv: [String]) throws {
        let null = try openFile("/dev/null", flags: O_RDWR)
        defer { close(null) }
        let log = try temporaryFile()
        defer { close(log.descriptor); unlink(log.path) }
        let pid = try spawn(argv, stdin: null, stdout: null, stderr: log.descriptor)
        let status = waitForExit(pid)
        guard status == 0 else {
            let output = (try? String(contentsOfFile: log.path, encoding: .utf8)) ?? ""
            throw Failure(description: "\(argv.joined(separator: " ")) exited with \(status): \(output)")
        }
    }

    /// Blocks until `pid` ends; its exit status, or 128 + the signal that ended it.
    @discardableResult
    public static func waitForExit(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// A connected pair of sockets, both ends close-on-exec from birth, used as a pipe. (glibc's
    /// `pipe2` is not visible to Swift, and `pipe` plus `fcntl` leaves a window in which a
    /// concurrent spawn inherits the ends.)
    public static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { throw Failure(description: "socketpair: \(lastError)") }
        return (ends[0], ends[1])
    }

    public static func openFile(_ path: String, flags: Int32) throws -> Int32 {
        let descriptor = open(path, flags | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure(description: "open \(path): \(lastError)") }
        return descriptor
    }

    /// A new empty file under the temporary directory, open for writing.
    static func temporaryFile() throws -> (path: String, descriptor: Int32) {
        let path = "\(FileManager.default.temporaryDirectory.path)/gbnotify-test-\(UUID().uuidString)"
        return (path, try openFile(path, flags: O_WRONLY | O_CREAT | O_EXCL))
    }

    private static var lastError: String { String(cString: strerror(errno)) }
}

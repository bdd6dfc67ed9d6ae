import Foundation
import Glibc
import Spawn

/// Child processes for tests, started with `posix_spawnp` rather than Foundation's `Process`,
/// so that every descriptor this side opens is close-on-exec and reaching a child is a
/// deliberate `dup2`. That matters for the stand-in's lifeline pipe (see `Standin`): a copy of
/// its write end leaked into another child would keep the stand-in alive.
public enum Subprocess {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `argv` (looked up in `PATH`) with the given descriptors as its stdin, stdout and
    /// stderr; the caller keeps and closes its own copies. With `ownProcessGroup`, it leads a
    /// process group of its own (see `ChildProcess`).
    public static func spawn(
        _ argv: [String], stdin: Int32, stdout: Int32, stderr: Int32, environment: [String: String]? = nil,
        ownProcessGroup: Bool = false
    ) throws -> pid_t {
        do {
            return try Spawn.start(
                argv, environment: environment,
                stdin: .descriptor(stdin), stdout: .descriptor(stdout), stderr: .descriptor(stderr),
                ownProcessGroup: ownProcessGroup)
        } catch {
            throw Failure(description: "could not start \(argv[0]): \(error)")
        }
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

    /// Reads `count` lines (a child's ready lines), failing on end of file, on more than 64 KiB,
    /// or at the deadline. Blocks: call it off the cooperative pool.
    static func readLines(_ count: Int, from descriptor: Int32, timeout: Duration) throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        var collected: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while collected.count(where: { $0 == UInt8(ascii: "\n") }) < count {
            let left = deadline - .now
            guard left > .zero else { throw Failure(description: "no ready line within \(timeout)") }
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(left.components.seconds * 1000 + 1, 60_000))
            guard poll(&request, 1, milliseconds) > 0 else { continue }
            let bytes = read(descriptor, &buffer, buffer.count)
            if bytes < 0 && errno == EINTR { continue }
            guard bytes > 0 else { throw Failure(description: "it exited before printing its ready lines") }
            collected += buffer[..<bytes]
            guard collected.count <= 64 * 1024 else { throw Failure(description: "its ready lines are too long") }
        }
        return collected.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).prefix(count)
            .map { String(decoding: $0, as: UTF8.self) }
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

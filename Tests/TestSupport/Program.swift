import Foundation
import Glibc
import Synchronization

/// A program under test, run as a child process the way a user would run it: argv, an
/// environment, and bytes on stdin. Its output goes to temporary files rather than pipes, so a
/// chatty child can never block on a full pipe while the test waits for something else.
public final class Program: Sendable {
    public struct Outcome: Sendable {
        /// The exit status, or 128 + the signal that ended it.
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    public var pid: pid_t { child.pid }
    private let child: ChildProcess
    private let files: [String]
    private let outcome = Mutex<Outcome?>(nil)

    /// An executable built by `swift build` beside the running test bundle.
    public static func built(_ name: String) -> String {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent(name).path
    }

    public init(_ argv: [String], environment: [String: String], stdin: String = "") throws {
        let input = try Subprocess.temporaryFile()
        let output = try Subprocess.temporaryFile()
        let errors = try Subprocess.temporaryFile()
        files = [input.path, output.path, errors.path]
        defer { [input.descriptor, output.descriptor, errors.descriptor].forEach { _ = close($0) } }
        try Data(stdin.utf8).write(to: URL(fileURLWithPath: input.path))
        let reader = try Subprocess.openFile(input.path, flags: O_RDONLY)
        defer { close(reader) }
        child = ChildProcess(try Subprocess.spawn(
            argv, stdin: reader, stdout: output.descriptor, stderr: errors.descriptor, environment: environment))
    }

    deinit {
        if outcome.withLock({ $0 == nil }) {
            child.signal(SIGKILL)
            Task { [child] in await child.exit() }
        }
        files.forEach { unlink($0) }
    }

    public func signal(_ signal: Int32) {
        child.signal(signal)
    }

    /// What the program has written to standard error so far, while it runs.
    public var stderrSoFar: String {
        (try? String(contentsOfFile: files[2], encoding: .utf8)) ?? ""
    }

    /// Waits for the program to end (off Swift's cooperative pool) and reads what it printed.
    /// Cancelled, the task kills it first: a test at its time limit waits for nobody.
    public func finish() async -> Outcome {
        if let done = outcome.withLock({ $0 }) { return done }
        let status = await withTaskCancellationHandler { await child.exit() } onCancel: { child.signal(SIGKILL) }
        let read = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        let done = Outcome(status: status, stdout: read(files[1]), stderr: read(files[2]))
        outcome.withLock { $0 = done }
        return done
    }

    /// Starts, waits and returns in one call.
    public static func run(_ argv: [String], environment: [String: String], stdin: String = "") async throws -> Outcome {
        try await Program(argv, environment: environment, stdin: stdin).finish()
    }
}

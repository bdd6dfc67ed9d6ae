import Foundation
import Glibc
import PushCore
import Synchronization
import TestSupport
import Testing

/// A `gbnotifyd` process, its standard error read line by line as it comes: the log, and what it
/// did as typed events (`--events-fd 2`: JSON lines among the log's, each after the log line
/// that says the same, so a test that waited for an event has that line too). Tests wait on the
/// events, and on the log only where the log's words are what is tested.
///
/// Watched by two threads of its own, one reading its standard error to the end and one in
/// waitpid: plain blocking calls, so its exit and its last words are never missed, however
/// quickly it exits.
final class RunningDaemon: Sendable {
    static let executable = Program.built("gbnotifyd")

    let pid: pid_t
    private let output: ProcessOutput

    /// The log (for a program other than gbnotifyd, everything it wrote).
    var lines: Observed<[String]> { output.lines }
    /// What the daemon told, in order; always empty for a program started by `argv` alone.
    var events: Observed<[DaemonEvent]> { output.events }
    /// The exit status, or 128 + the signal that ended it; set once the process has ended and
    /// all it wrote has been read.
    var exit: Observed<Int32?> { output.exit }

    /// - Parameter wrapper: a command that execs its arguments (the daemon's argv), to start
    ///   it with limits or signal dispositions of the test's choosing; the pid stays the daemon's.
    convenience init(arguments: [String] = ["--verbose"], environment: [String: String], wrapper: [String] = []) throws {
        try self.init(
            argv: wrapper + [Self.executable] + arguments + ["--events-fd", "2"], environment: environment, withEvents: true)
    }

    /// Any program, its standard error read as lines (a bus monitor's, say, or `scripts/demo`,
    /// which runs a gbnotifyd of its own).
    /// - Parameters:
    ///   - withStandardOutput: its standard output is read into `lines` too.
    ///   - withEvents: lines of JSON are gbnotifyd's events, read into `events`.
    init(argv: [String], environment: [String: String], withStandardOutput: Bool = false, withEvents: Bool = false) throws {
        let stderr = try Subprocess.pipe()
        let null = try Subprocess.openFile("/dev/null", flags: O_RDWR)
        defer {
            close(stderr.write)
            close(null)
        }
        do {
            pid = try Subprocess.spawn(
                argv, stdin: null, stdout: withStandardOutput ? stderr.write : null, stderr: stderr.write,
                environment: environment)
        } catch {
            close(stderr.read)
            throw error
        }
        let (output, reading, child) = (ProcessOutput(withEvents: withEvents), stderr.read, pid)
        self.output = output
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(reading, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                output.received(buffer[..<count])
            }
            close(reading)
            output.ended(status: nil)
        }
        Thread.detachNewThread {
            output.ended(status: Subprocess.waitForExit(child))
        }
    }

    /// A test that failed half-way leaves no daemon behind.
    deinit {
        if exit.value == nil { kill(pid, SIGKILL) }
    }

    func send(_ signal: Int32) {
        kill(pid, signal)
    }

    @discardableResult
    func waitForLine(containing text: String, occurrence: Int = 1, timeout: Duration = .seconds(15)) async throws -> [String] {
        do {
            return try await lines.wait(for: "gbnotifyd's log line \(occurrence) containing \"\(text)\"", timeout: timeout) { lines in
                lines.count { $0.contains(text) } >= occurrence
            }
        } catch {
            Issue.record("gbnotifyd's log so far:\n\(lines.value.joined(separator: "\n"))")
            throw error
        }
    }

    /// Waits until `count` of the events it told match; those. A wait that fails records the
    /// log, which says why in words.
    @discardableResult
    func waitForEvent(
        _ what: String, count: Int = 1, timeout: Duration = .seconds(15), _ matches: @escaping @Sendable (DaemonEvent) -> Bool
    ) async throws -> [DaemonEvent] {
        do {
            return try await events.waitFor(what, count: count, timeout: timeout, matches)
        } catch {
            Issue.record("gbnotifyd's log so far:\n\(lines.value.joined(separator: "\n"))")
            throw error
        }
    }

    /// Waits until `count` polls of `account` ended in words starting with `words`.
    func waitForPoll(of account: Account, saying words: String = "200 ok", count: Int = 1, timeout: Duration = .seconds(15)) async throws {
        try await waitForEvent(
            "a poll of \(account.displayName) saying \"\(words)\"", count: count, timeout: timeout,
            DaemonEvent.isPoll(of: account, saying: words))
    }

    func lines(containing text: String) -> [String] {
        lines.value.filter { $0.contains(text) }
    }

    /// The exit status (or 128 + the ending signal) once the process has ended.
    func waitForExit(timeout: Duration = .seconds(10)) async throws -> Int32 {
        do {
            return try await exit.wait(for: "gbnotifyd \(pid) to exit", timeout: timeout) { $0 != nil } ?? -1
        } catch {
            let state = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8))?
                .split(separator: "\n").first { $0.hasPrefix("State:") } ?? "gone"
            Issue.record("gbnotifyd \(pid) (\(state)) logged:\n\(lines.value.joined(separator: "\n"))")
            throw error
        }
    }
}

/// A process's standard error as lines (and gbnotifyd's events among them), and its end: the
/// exit status is published only once the output has reached its end too, so nothing it wrote
/// is missing when a test sees it exit.
private final class ProcessOutput: Sendable {
    let lines = Observed<[String]>([])
    let events = Observed<[DaemonEvent]>([])
    let exit = Observed<Int32?>(nil)
    private let withEvents: Bool
    private let partialLine = Mutex<[UInt8]>([])
    private let ending = Mutex<(status: Int32?, outputEnded: Bool)>((nil, false))

    init(withEvents: Bool) {
        self.withEvents = withEvents
    }

    /// The log's lines start with their priority ("<7>"), an event's with "{". An event line
    /// that does not decode fails the test that reads it: the daemon and the tests disagree.
    /// Lines and events are published together, so a waiter on either sees both as they were.
    func received(_ data: ArraySlice<UInt8>) {
        let complete = partialLine.withLock { pending -> [[UInt8]] in
            pending += data
            var found: [[UInt8]] = []
            while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                found.append(Array(pending[..<end]))
                pending.removeSubrange(...end)
            }
            return found
        }
        var logged: [String] = []
        var told: [DaemonEvent] = []
        for line in complete {
            guard withEvents, line.first == UInt8(ascii: "{") else {
                logged.append(String(decoding: line, as: UTF8.self))
                continue
            }
            do {
                told.append(try JSONDecoder().decode(DaemonEvent.self, from: Data(line)))
            } catch {
                Issue.record("gbnotifyd's event line \(String(decoding: line, as: UTF8.self)): \(error)")
            }
        }
        if !logged.isEmpty { lines.update { $0 += logged } }
        if !told.isEmpty { events.update { $0 += told } }
    }

    /// Called once with nil at the end of the output and once with the status at the exit.
    func ended(status: Int32?) {
        let finished = ending.withLock { ending -> Int32? in
            if let status { ending.status = status } else { ending.outputEnded = true }
            return ending.outputEnded ? ending.status : nil
        }
        if let finished { exit.update { $0 = finished } }
    }
}

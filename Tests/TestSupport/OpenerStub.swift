import Foundation
import Glibc

/// A program in place of a browser or terminal that records each start, its argv and
/// activation token, into a FIFO that `nextLaunch()` reads.
public final class OpenerStub: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// What the stub was started with.
    public struct Launch: Sendable, Equatable {
        public let arguments: [String]
        public let activationToken: String

        public init(arguments: [String], activationToken: String) {
            self.arguments = arguments
            self.activationToken = activationToken
        }
    }

    /// The stub's path.
    public let path: String
    private let launches: Int32

    /// Writes the stub at `path` and its FIFO beside it; `close()` closes the FIFO.
    public init(at path: String) throws {
        self.path = path
        let fifo = path + ".launches"
        // One write(2) per launch, well under PIPE_BUF, so two launches never interleave.
        let script = """
            #!/bin/sh
            record="token=${XDG_ACTIVATION_TOKEN-}"
            for argument in "$@"; do record="$record
            arg=$argument"; done
            printf '%s\\n\\n' "$record" > "\(fifo)"

            """
        try Data(script.utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o755)
        guard mkfifo(fifo, 0o600) == 0 else { throw Failure(description: "mkfifo \(fifo) failed") }
        // Opened read-write, so the open does not block and a stub that never runs means a
        // timeout, not a hang.
        launches = open(fifo, O_RDWR | O_CLOEXEC)
    }

    public func close() {
        _ = Glibc.close(launches)
    }

    /// Waits for the stub's next launch.
    public func nextLaunch(timeout: Int32 = 15) async throws -> Launch {
        let lines = try await Self.readRecord(from: launches, lines: nil, timeout: timeout)
        guard let first = lines.first, first.hasPrefix("token=") else {
            throw Failure(description: "the opener stub was not started within \(timeout) s")
        }
        return Launch(
            arguments: lines.dropFirst().map { String($0.dropFirst("arg=".count)) },
            activationToken: String(first.dropFirst("token=".count)))
    }

    /// Whether a launch arrives within `timeout` seconds, for "opens nothing" checks.
    public func launchArrives(within timeout: Int32) async throws -> Bool {
        (try? await nextLaunch(timeout: timeout)) != nil
    }

    /// Reads one record from a FIFO: `lines` lines, or (nil) lines up to an empty one. Empty
    /// when nothing came within `timeout` seconds.
    public static func readRecord(from descriptor: Int32, lines count: Int?, timeout: Int32) async throws -> [String] {
        await withCheckedContinuation { continuation in
            DispatchQueue(label: "org.gitbay.tests.fifo").async {  // not global(): see offCooperativePool
                var text = ""
                let deadline = time(nil) + Int(timeout)
                func done() -> Bool {
                    if let count { return text.split(separator: "\n").count >= count && text.hasSuffix("\n") }
                    return text.hasSuffix("\n\n")
                }
                while !done() {
                    var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    let left = deadline - time(nil)
                    guard left > 0, poll(&poller, 1, Int32(left * 1000)) == 1 else { return continuation.resume(returning: []) }
                    var byte: UInt8 = 0
                    guard read(descriptor, &byte, 1) == 1 else { return continuation.resume(returning: []) }
                    text.unicodeScalars.append(Unicode.Scalar(byte))
                }
                continuation.resume(returning: text.split(separator: "\n").map(String.init))
            }
        }
    }
}

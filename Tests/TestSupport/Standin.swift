import Dispatch
import Foundation

/// The gitbay stand-in (`Tests/Standin/gitbay_standin.py`) running as a child of the test
/// process, on a free port of its own, with typed helpers for its control API.
///
/// No stand-in outlives its test process. It runs under a small Python guard whose stdin is a
/// pipe from this process, the lifeline: when the lifeline closes, the guard terminates the
/// stand-in and exits. `stop()` and `deinit` close it, and so does the kernel when this process
/// ends in any way, a crash or SIGKILL included, when no Swift code runs at all.
public final class Standin: Sendable {
    /// Serve HTTPS with this certificate and key; clients trust `caFile`.
    public struct TLS: Sendable {
        public var certificateFile: String
        public var keyFile: String
        public var caFile: String

        public init(certificateFile: String, keyFile: String, caFile: String) {
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.caFile = caFile
        }
    }

    public struct StartFailure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The stand-in's base URL, e.g. `http://127.0.0.1:41234`.
    public let url: String
    public let port: Int
    /// The CA file that verifies this stand-in, when it serves HTTPS.
    public let caFile: String?

    private let process: LifelineProcess

    /// The package root, found from this file's place in it.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// Waits for the guard's stdin to end, then terminates the stand-in (its argv follows).
    /// The guard hands its stdout to the stand-in and keeps none itself, so the ready line's pipe
    /// reaches end of file as soon as the stand-in dies.
    static let guardScript = """
        import os, signal, subprocess, sys
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        try:
            sys.stdin.buffer.read()
        finally:
            child.terminate()
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        """

    /// Starts a stand-in and waits for its ready line.
    /// - Parameters:
    ///   - tls: serve HTTPS instead of HTTP.
    ///   - siteURL: the server's configured `site_url` (default: its own URL).
    public static func start(
        tls: TLS? = nil, siteURL: String? = nil, readyTimeout: Duration = defaultReadyTimeout
    ) async throws -> Standin {
        var arguments = ["--port", "0"]
        if let tls { arguments += ["--tls-cert", tls.certificateFile, "--tls-key", tls.keyFile] }
        if let siteURL { arguments += ["--site-url", siteURL] }
        return try await launch("gitbay_standin.py", arguments, caFile: tls?.caFile, readyTimeout: readyTimeout)
    }

    public static let defaultReadyTimeout = Duration.seconds(60)

    /// Starts `script`, a server script of Tests/Standin (this one, the relay's, the system
    /// bus's), run by `interpreter`, under the lifeline; it must print the ready line.
    static func launch(
        _ script: String, _ arguments: [String], interpreter: String = python, caFile: String?,
        readyTimeout: Duration = defaultReadyTimeout
    ) async throws -> Standin {
        // -S: the guard needs nothing from site-packages, and skipping them halves its start-up.
        let argv = [python, "-S", "-c", guardScript, interpreter, "\(packageRoot)/Tests/Standin/\(script)"] + arguments
        return try await offCooperativePool {
            try Standin(argv: argv, caFile: caFile, readyTimeout: readyTimeout)
        }
    }

    /// The interpreter `python3` on `PATH` runs, asked once: where that is a wrapper (pyenv's
    /// shim: bash, then pyenv, about 60 ms of CPU here), running it twice per stand-in cost more
    /// than the stand-in's own start, and the tests start a hundred and more. `python3` itself
    /// when it cannot say.
    static let python: String = {
        guard let output = try? Subprocess.pipe(), let null = try? Subprocess.openFile("/dev/null", flags: O_RDWR) else {
            return "python3"
        }
        defer { [output.read, null].forEach { _ = close($0) } }
        let asked = try? Subprocess.spawn(
            ["python3", "-S", "-c", "import sys; print(sys.executable)"], stdin: null, stdout: output.write, stderr: null)
        close(output.write)
        guard let asked else { return "python3" }
        let answer = try? Subprocess.readLines(1, from: output.read, timeout: .seconds(30))
        Subprocess.waitForExit(asked)
        return answer?.first.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "python3"
    }()

    private init(argv: [String], caFile: String?, readyTimeout: Duration) throws {
        struct ReadyLine: Decodable {
            let url: String
            let port: Int
        }
        do {
            process = try LifelineProcess(argv, readyLines: 1, readyTimeout: readyTimeout)
            let decoded = try JSONDecoder().decode(ReadyLine.self, from: Data(process.readyLines[0].utf8))
            url = decoded.url
            port = decoded.port
        } catch {
            throw StartFailure(description: "the stand-in did not start: \(error)")
        }
        self.caFile = caFile
    }

    /// Closes the lifeline and waits until the stand-in has exited.
    public func stop() async {
        await process.stop()
    }
}

/// Runs blocking work (process waits, pipe reads) on a Dispatch thread, so that it does not
/// hold one of the few threads of Swift's cooperative pool.
///
/// A serial queue of its own, not `DispatchQueue.global()`: on Linux the global queue shares its
/// thread limit (one per core) with Swift's global executor and adds a thread only once a second
/// when they are all blocked, so two blocking calls there stall every task of the process for a
/// second (seen as timing tests failing when many stand-ins start at once). A new serial queue
/// runs on the overcommitting root queue, which starts a thread whenever one is needed.
func offCooperativePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        blockingQueue().async { continuation.resume(with: Result { try work() }) }
    }
}

func offCooperativePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        blockingQueue().async { continuation.resume(returning: work()) }
    }
}

/// A queue for one piece of blocking work (see `offCooperativePool`).
func blockingQueue() -> DispatchQueue {
    DispatchQueue(label: "org.gitbay.tests.blocking")
}

extension Standin.TLS {
    /// The stand-in's checked-in certificates (Tests/Standin/tls): a leaf for 127.0.0.1, ::1 and
    /// localhost, and the test CA that signed it.
    public static let fixtures = Standin.TLS(
        certificateFile: "\(Standin.packageRoot)/Tests/Standin/tls/server.pem",
        keyFile: "\(Standin.packageRoot)/Tests/Standin/tls/server-key.pem",
        caFile: "\(Standin.packageRoot)/Tests/Standin/tls/ca.pem")

    /// A CA that signed nothing the stand-in serves, for "the wrong CA is refused".
    public static let unrelatedCAFile = "\(Standin.packageRoot)/Tests/Standin/tls/other-ca.pem"
}

import Foundation
import Glibc
import TestSupport
import Testing

/// A helper process that prints one line on stdout once it is ready, and is killed (SIGKILL,
/// the way a crashing bus goes) when the test says so or the object goes away.
final class ReadyProcess: Sendable {
    let pid: pid_t
    /// Its ready line.
    let readyLine: String
    /// Set once it has been reaped, by a thread of its own waiting in waitpid from the start, so
    /// a pid is never signalled after it could belong to another process.
    private let exited = Observed(false)

    init(_ argv: [String], timeout: Duration = .seconds(15)) async throws {
        let stdout = try Subprocess.pipe()
        let null = try Subprocess.openFile("/dev/null", flags: O_RDWR)
        defer {
            close(stdout.write)
            close(null)
        }
        let pid = try Subprocess.spawn(argv, stdin: null, stdout: stdout.write, stderr: null, environment: nil)
        self.pid = pid
        let exited = exited
        Thread.detachNewThread {
            Subprocess.waitForExit(pid)
            exited.update { $0 = true }
        }
        let (reading, milliseconds) = (stdout.read, Int32(timeout.components.seconds * 1000))
        let line: String? = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                defer { close(reading) }
                var bytes: [UInt8] = []
                var ready = pollfd(fd: reading, events: Int16(POLLIN), revents: 0)
                var byte: UInt8 = 0
                while poll(&ready, 1, milliseconds) == 1, read(reading, &byte, 1) == 1 {
                    if byte == UInt8(ascii: "\n") { return continuation.resume(returning: String(decoding: bytes, as: UTF8.self)) }
                    bytes.append(byte)
                }
                continuation.resume(returning: nil)
            }
        }
        guard let line else {
            Glibc.kill(pid, SIGKILL)
            throw SetupFailure(description: "\(argv[0]) printed no ready line within \(timeout)")
        }
        readyLine = line
    }

    deinit {
        if !exited.value { Glibc.kill(pid, SIGKILL) }
    }

    /// Kills it and waits until it is gone, so its sockets are closed.
    func kill() async {
        if !exited.value { Glibc.kill(pid, SIGKILL) }
        _ = try? await exited.wait(for: "\(pid) to exit") { $0 }
    }
}

struct SetupFailure: Error, CustomStringConvertible {
    let description: String
}

/// The session bus as a daemon sees it, for "the bus went away" (a bare bus for "no Secret
/// Service" is `PrivateBus`).
enum SessionBuses {
    /// A relay at `socket` to the test's own session bus: to whoever connects there it is the
    /// session bus, keyring and all, and killing it is, to them, the bus going away.
    static func relay(at socket: String) async throws -> ReadyProcess {
        // Not `python3` from PATH: a wrapper that forks (pyenv's shim) would take the SIGKILL.
        try await ReadyProcess(["/usr/bin/python3", "-c", relayScript, socket, try sessionBusSocket()])
    }

    /// The session bus's socket, as the relay's target: a path, or `@name` for an abstract one.
    private static func sessionBusSocket() throws -> String {
        let address = try #require(ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"])
        let fields = address.split(separator: ";").first.map { $0.dropFirst("unix:".count).split(separator: ",") } ?? []
        for field in fields {
            if field.hasPrefix("path=") { return String(field.dropFirst("path=".count)) }
            if field.hasPrefix("abstract=") { return "@" + field.dropFirst("abstract=".count) }
        }
        throw SetupFailure(description: "no unix socket in DBUS_SESSION_BUS_ADDRESS=\(address)")
    }

    /// Copies bytes both ways, one pair of threads per connection; ends with its parent.
    private static let relayScript = """
        import os, socket, sys, threading, time
        listen_path, target = sys.argv[1], sys.argv[2]
        target = "\\0" + target[1:] if target.startswith("@") else target
        def pump(source, sink):
            try:
                while data := source.recv(65536):
                    sink.sendall(data)
            except OSError:
                pass
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        def watch_parent(parent=os.getppid()):
            while os.getppid() == parent:
                time.sleep(1)
            os._exit(0)
        threading.Thread(target=watch_parent, daemon=True).start()
        try:
            os.unlink(listen_path)
        except FileNotFoundError:
            pass
        server = socket.socket(socket.AF_UNIX)
        server.bind(listen_path)
        server.listen(16)
        print("ready", flush=True)
        while True:
            client, _ = server.accept()
            upstream = socket.socket(socket.AF_UNIX)
            upstream.connect(target)
            for ends in ((client, upstream), (upstream, client)):
                threading.Thread(target=pump, args=ends, daemon=True).start()
        """
}

import Foundation

/// A relay at a socket to this process's session bus: to whoever connects there it is the
/// session bus, keyring and all, and killing the relay is, to them, the bus going away (SIGKILL,
/// the way a crashing bus goes). On a lifeline: it ends with this process, however that ends.
public final class SessionBusRelay: Sendable {
    private let process: LifelineProcess

    public init(at socket: String) async throws {
        // Not `python3` from PATH: a wrapper that forks (pyenv's shim) would take the SIGKILL.
        let argv = ["/usr/bin/python3", "-c", Self.relayScript, socket, try Self.sessionBusSocket()]
        process = try await LifelineProcess.started(argv, readyLines: 1, readyTimeout: .seconds(15))
    }

    /// Kills it and waits until it is gone, so its sockets are closed.
    public func kill() async {
        await process.kill()
    }

    /// The session bus's socket, as the relay's target: a path, or `@name` for an abstract one.
    private static func sessionBusSocket() throws -> String {
        guard let address = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] else {
            throw LifelineProcess.StartFailure(description: "no session bus: DBUS_SESSION_BUS_ADDRESS is not set")
        }
        let fields = address.split(separator: ";").first.map { $0.dropFirst("unix:".count).split(separator: ",") } ?? []
        for field in fields {
            if field.hasPrefix("path=") { return String(field.dropFirst("path=".count)) }
            if field.hasPrefix("abstract=") { return "@" + field.dropFirst("abstract=".count) }
        }
        throw LifelineProcess.StartFailure(description: "no unix socket in DBUS_SESSION_BUS_ADDRESS=\(address)")
    }

    /// Copies bytes both ways, one pair of threads per connection.
    private static let relayScript = """
        import os, socket, sys, threading
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
        def watch_lifeline():
            sys.stdin.read()
            os._exit(0)
        threading.Thread(target=watch_lifeline, daemon=True).start()
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

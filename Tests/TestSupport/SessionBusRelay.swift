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

    /// Cuts the first connection it relayed, as a bus that drops one client does, while the bus
    /// itself stays; the ones made from now on wait, unanswered, until `resume()`. (gbnotifyd's
    /// first is its own libdbus connection; libsecret's, made later, stays.)
    public func cutFirstAndHold() {
        process.signal(SIGUSR1)
    }

    /// Relays the connections that waited, and new ones, again.
    public func resume() {
        process.signal(SIGUSR2)
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

    /// Copies bytes both ways, one pair of threads per connection. SIGUSR1 cuts the first
    /// connection and holds new ones; SIGUSR2 lets them through.
    private static let relayScript = """
        import os, signal, socket, sys, threading
        listen_path, target = sys.argv[1], sys.argv[2]
        target = "\\0" + target[1:] if target.startswith("@") else target
        live, open_ = [], threading.Event()
        open_.set()
        def cut_and_hold(*_):
            open_.clear()
            for end in live[:2]:
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        signal.signal(signal.SIGUSR1, cut_and_hold)
        signal.signal(signal.SIGUSR2, lambda *_: open_.set())
        def relay(client):
            open_.wait()
            upstream = socket.socket(socket.AF_UNIX)
            upstream.connect(target)
            live.extend((client, upstream))
            for ends in ((client, upstream), (upstream, client)):
                threading.Thread(target=pump, args=ends, daemon=True).start()
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
            threading.Thread(target=relay, args=(client,), daemon=True).start()
        """
}

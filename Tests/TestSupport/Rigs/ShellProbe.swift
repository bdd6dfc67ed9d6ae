import DBus
import Foundation

/// A JavaScript probe inside a shell that evaluates what it is sent (GNOME Shell's and
/// Cinnamon's `Eval`): the probe is an object the test setup defined there
/// (`globalThis.gbnotifyTest`), whose functions answer in JSON, and which sends a `Changed`
/// signal whenever the shell's notifications change, on which waits wake.
struct ShellProbe: Sendable {
    let session: DesktopSession
    /// Who evaluates: `org.gnome.Shell` at `/org/gnome/Shell`, `org.Cinnamon` at `/org/Cinnamon`.
    let destination: String
    let path: String
    /// The interface of the probe's own signals (`Changed`).
    let signals: String

    struct EvalFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `call` on the probe and decodes the JSON it returns.
    func call<Value: Decodable>(_ call: String) async throws -> Value {
        let json = try await eval("gbnotifyTest.\(call)")
        // Eval returns the value JSON-encoded, and the probe's value is itself a JSON string.
        let inner = try JSONDecoder().decode(String.self, from: Data(json.utf8))
        return try JSONDecoder().decode(Value.self, from: Data(inner.utf8))
    }

    /// `Eval`: the result JSON-encoded, or `EvalFailure` with the shell's error.
    func eval(_ javaScript: String) async throws -> String {
        let reply = try await session.withConnection { connection in
            try await connection.call(
                destination: destination, path: path, interface: destination, member: "Eval",
                arguments: [.string(javaScript)])
        }
        guard reply.count == 2, let success = reply[0].boolValue, let result = reply[1].stringValue else {
            throw EvalFailure(description: "Eval answered \(reply)")
        }
        guard success else { throw EvalFailure(description: "\(destination): \(result) (from \(javaScript))") }
        return result
    }

    /// `check`'s first non-nil answer: asked now, then after each of the probe's Changed signals.
    @discardableResult
    func waitForChange<Value: Sendable>(
        timeout: Duration, _ what: String, _ check: @escaping @Sendable () async throws -> Value?
    ) async throws -> Value {
        try await session.withConnection { connection in
            let changes = try await connection.signals(matching: DBusMatchRule(interface: signals, member: "Changed"))
            return try await withDeadline(timeout, what) {
                if let found = try await check() { return found }
                for await _ in changes {
                    if let found = try await check() { return found }
                }
                throw DesktopSession.Failure(description: "the connection closed while waiting for \(what)")
            }
        }
    }

    static func javaScript(_ string: String) throws -> String {
        String(decoding: try JSONEncoder().encode(string), as: UTF8.self)
    }
}

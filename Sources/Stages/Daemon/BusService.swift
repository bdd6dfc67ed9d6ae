import DBus
import FoundationEssentials
import Glibc
import Logging
import PushCore

/// The daemon's object on the session bus, with the methods `DaemonInterface` declares, which
/// `gbnotifyctl` calls.
///
/// None of these shows anything, launches anything, reveals a token or makes the daemon talk to
/// anyone but the accounts' own instances; `Deliver` can at most make an account poll (no sooner
/// than 2 s after its last poll). `Reload` and `Deliver` steer the daemon, so they answer only
/// programs of its own user outside a sandbox (`BusCaller`); `Status` answers anyone.
public enum BusService {
    /// Exports the object. Call it before taking the bus name, so that nobody who sees the
    /// name can find the object missing.
    public static func export(_ supervisor: Supervisor, on connection: DBusConnection, logger: Logger) async throws {
        let callers = CallerCheck(connection: connection, logger: logger)
        try await connection.export(
            path: DaemonInterface.objectPath, interface: DaemonInterface.interface, introspection: DaemonInterface.introspection,
            methods: [
                DBusMethod(.reload) { call in
                    try await callers.admit(call)
                    do {
                        try await supervisor.reload()
                    } catch {
                        throw DBusError(name: DaemonInterface.reloadFailedError, message: "\(error)")
                    }
                    return []
                },
                DBusMethod(.status) { _ in
                    [.string(try statusJSON(await supervisor.status()))]
                },
                // A local relay's way in.
                DBusMethod(.deliver) { call in
                    try await callers.admit(call)
                    do {
                        let account = try await supervisor.deliver(call.arguments.first?.stringValue ?? "")
                        return [.string(account.displayName)]
                    } catch {
                        throw DBusError(name: DaemonInterface.payloadDroppedError, message: "\(error)")
                    }
                },
            ])
    }

    /// Pretty and with sorted keys, so `gbnotifyctl status --json` can print it as it comes.
    static func statusJSON(_ status: DaemonStatus) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(status), as: UTF8.self)
    }
}

extension DBusMethod {
    /// One of the daemon's own methods, its name and signatures as `DaemonInterface` declares them.
    init(_ method: DaemonInterface.Method, handler: @escaping @Sendable (DBusMethodCall) async throws -> [DBusValue]) {
        self.init(method.rawValue, input: method.inputSignature, output: method.outputSignature, handler: handler)
    }
}

import DBus
import FoundationEssentials
import Glibc
import Logging
import PushCore

/// The daemon's object on the session bus, `/org/gitbay/Notify1`: `Reload()`, `Status() -> s`
/// and `Deliver(s payload) -> s`, which `gbnotifyctl` calls.
///
/// None of these shows anything, launches anything, reveals a token or makes the daemon talk to
/// anyone but the accounts' own instances; `Deliver` can at most make an account poll (no sooner
/// than 2 s after its last poll). `Reload` and `Deliver` steer the daemon, so they answer only
/// programs of its own user outside a sandbox (`BusCaller`); `Status` answers anyone.
public enum BusService {
    public static let introspection = """
          <interface name="\(DaemonInterface.interface)">
            <method name="Reload"/>
            <method name="Status">
              <arg name="status_json" type="s" direction="out"/>
            </method>
            <method name="Deliver">
              <arg name="payload" type="s" direction="in"/>
              <arg name="account" type="s" direction="out"/>
            </method>
          </interface>
        """

    /// The error `Reload()` answers with when part of the reload could not be applied; its
    /// message says what and why.
    public static let reloadFailedError = "\(DaemonInterface.interface).Error.ReloadFailed"

    /// Exports the object. Call it before taking the bus name, so that nobody who sees the
    /// name can find the object missing.
    public static func export(_ supervisor: Supervisor, on connection: DBusConnection, logger: Logger) async throws {
        let callers = CallerCheck(connection: connection, logger: logger)
        try await connection.export(
            path: DaemonInterface.objectPath, interface: DaemonInterface.interface, introspection: introspection,
            methods: [
                DBusMethod("Reload") { call in
                    try await callers.admit(call)
                    do {
                        try await supervisor.reload()
                    } catch {
                        throw DBusError(name: reloadFailedError, message: "\(error)")
                    }
                    return []
                },
                DBusMethod("Status", output: "s") { _ in
                    [.string(try statusJSON(await supervisor.status()))]
                },
                // A local relay's way in (`DeliverMethod`).
                DBusMethod(DeliverMethod.member, input: "s", output: "s") { call in
                    try await callers.admit(call)
                    do {
                        let account = try await supervisor.deliver(call.arguments.first?.stringValue ?? "")
                        return [.string(account.displayName)]
                    } catch {
                        throw DBusError(name: DeliverMethod.droppedError, message: "\(error)")
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

import DBus
import FoundationEssentials
import PushCore

/// The daemon's object on the session bus, `/org/gitbay/Notify1`: `Reload()`, `Status() -> s`
/// and `Deliver(s payload) -> s`, which `gbnotifyctl` calls.
///
/// Any client of the session bus can call these: none of them shows anything, reveals a token
/// or makes the daemon talk to anyone but the accounts' own instances; `Deliver` can at most
/// make an account poll (no sooner than 2 s after its last poll).
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
    public static func export(_ supervisor: Supervisor, on connection: DBusConnection) async throws {
        try await connection.export(
            path: DaemonInterface.objectPath, interface: DaemonInterface.interface, introspection: introspection,
            methods: [
                DBusMethod("Reload") { _ in
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

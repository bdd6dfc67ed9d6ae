import DBus
import Desktop
import PushCore

/// The daemon's desktop methods on its bus object (`DesktopInterface`), for `gbnotifyctl test`
/// and `gbnotifyctl open`.
public enum DesktopService {
    public static let introspection = """
          <interface name="\(DesktopInterface.interface)">
            <method name="Test"/>
            <method name="Open">
              <arg name="account" type="s" direction="in"/>
              <arg name="path" type="s" direction="in"/>
              <arg name="activation_token" type="s" direction="in"/>
              <arg name="launched" type="s" direction="out"/>
            </method>
          </interface>
        """

    /// - Parameter accounts: the accounts in the keyring, which `Open` resolves its account among.
    public static func export(
        _ desktop: Desktop, accounts: @escaping @Sendable () async throws -> [Account],
        on connection: DBusConnection
    ) async throws {
        try await connection.export(
            path: DaemonInterface.objectPath, interface: DesktopInterface.interface, introspection: introspection,
            methods: [
                DBusMethod("Test") { _ in
                    try await desktop.showSample()
                    return []
                },
                DBusMethod("Open", input: "sss", output: "s") { call in
                    let text = call.arguments.map { $0.stringValue ?? "" }
                    let target = try resolve(account: text[0], path: text[1], among: try await accounts())
                    return [.string(await desktop.open(target, activationToken: text[2].isEmpty ? nil : text[2]))]
                },
            ])
    }

    /// The target a click would have: the named account (the first, by id, when none is
    /// named) and the path when it is routable, else that account's inbox.
    static func resolve(account text: String, path: String, among accounts: [Account]) throws -> PushTarget {
        let account: Account
        if text.isEmpty {
            guard let first = accounts.min(by: { $0.id < $1.id }) else {
                throw DBusError(name: DesktopInterface.noSuchAccountError, message: "there are no accounts in the keyring")
            }
            account = first
        } else {
            do {
                account = try AccountReference(parsing: text).resolve(among: accounts)
            } catch {
                throw DBusError(name: DesktopInterface.noSuchAccountError, message: "\(error)")
            }
        }
        return PushTarget(account: account, destination: NotificationDestination(path: path))
    }
}

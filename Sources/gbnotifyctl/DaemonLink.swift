import DBus
import PushCore

/// Talks to a running gbnotifyd over the session bus.
enum DaemonLink {
    /// Tells the daemon to re-read accounts and config. Account commands work on their own, so no
    /// bus or no daemon is not worth a word.
    static func reloadIfRunning() async {
        guard let connection = try? await DBusConnection.connect() else { return }
        if (try? await connection.nameHasOwner(DaemonInterface.busName)) == true {
            do {
                _ = try await connection.call(
                    destination: DaemonInterface.busName, path: DaemonInterface.objectPath,
                    interface: DaemonInterface.interface, member: "Reload")
            } catch {
                Console.error("gbnotifyctl: warning: the running gbnotifyd did not reload: \(error)")
            }
        }
        await connection.close()
    }
}

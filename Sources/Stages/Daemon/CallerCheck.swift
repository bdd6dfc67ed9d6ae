import DBus
import Glibc
import Logging
import MainLoop
import PushCore

/// The check on the callers of what steers the daemon (`BusCaller`): `Reload` and `Deliver`, and
/// the tray item's clicks and menu events. A refused caller gets `AccessDenied`, and the refusal
/// is logged once per caller connection.
///
/// The bus's method handlers and the tray's admit call it; it runs on the loop, so the callers
/// it logged need no lock.
@LoopActor
final class CallerCheck {
    let connection: DBusConnection
    let logger: Logger
    private let daemonUID = getuid()
    /// The callers already logged as refused; forgotten whole when full, so a caller that
    /// reconnects over and over costs a log line per 256 connections, not memory.
    private var refused: Set<String> = []

    nonisolated init(connection: DBusConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    func admit(_ call: DBusMethodCall) async throws {
        let peer: DBusPeer
        do {
            peer = try await connection.peer(call.sender)
        } catch {
            throw DBusError(name: DBusError.Name.accessDenied, message: "gbnotifyd cannot tell who is calling (\(error))")
        }
        guard let reason = BusCaller.refusal(
            uid: peer.uid, daemonUID: daemonUID, inFlatpak: peer.isInFlatpak, securityLabel: peer.securityLabel)
        else { return }
        if refused.count >= 256 { refused.removeAll() }
        let first = refused.insert(call.sender).inserted
        if first {
            logger.warning("refused \(call.member) from \(call.sender) (pid \(peer.pid.map(String.init) ?? "unknown")): \(reason)")
        }
        throw DBusError(
            name: DBusError.Name.accessDenied,
            message: "gbnotifyd takes \(call.member) only from its own user's programs outside a sandbox: \(reason)")
    }
}

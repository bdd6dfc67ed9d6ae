internal import CSecret
import MainLoop

/// The process's one way to the Secret Service: libsecret's asynchronous calls, on the main
/// loop, one keyring operation at a time. One at a time means at most one prompt up at a time,
/// and a store seen by the operations queued after it; a prompt's wait holds no thread, only
/// the operations queued behind it.
///
/// The session keeps one `SecretService` proxy, with its session, from call to call: libsecret
/// never closes a session, so a proxy per call would leave one behind in the service each time.
/// It is opened again when the service changed owner (restarted) or a call failed in a way that
/// may mean it is stale.
@LoopActor
final class KeyringSession {
    static let shared = KeyringSession()
    /// How often a session is asked for before its failure is reported.
    static let sessionAttempts = 3
    /// How often an operation that failed for no reason the keyring knows is tried, each time
    /// with a new session.
    static let operationAttempts = 2

    private var cached: (service: UnsafeMutablePointer<SecretService>, owner: String?)?
    /// GIO's session-bus connection, which libsecret shares, held for the life of the process:
    /// were it let go, the next one would be made with GIO's default again, and end the process
    /// when the bus goes (see `service`).
    private var bus: OpaquePointer?
    /// Whether an operation has the session now.
    private var busy = false
    /// The operations waiting for their turn, first come first served.
    private var queued: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` with the Secret Service once the operations queued before it have ended, and
    /// returns what it returns. The loop's isolation alone would let two operations interleave
    /// at their suspension points (two prompts up at once, a search before the store queued
    /// ahead of it has ended), so each one waits its turn.
    func run<Value: Sendable>(
        cancellation: Cancellation, waits: WaitTracker,
        _ body: @Sendable @LoopActor (SecretServiceCalls) async throws(KeyringError) -> Value
    ) async throws(KeyringError) -> Value {
        await takeTurn()
        defer { passTurn() }
        return try await attempts(cancellation: cancellation, waits: waits, body)
    }

    private func takeTurn() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { queued.append($0) }
    }

    private func passTurn() {
        if queued.isEmpty {
            busy = false
        } else {
            queued.removeFirst().resume()
        }
    }

    private func attempts<Value>(
        cancellation: Cancellation, waits: WaitTracker,
        _ body: @LoopActor (SecretServiceCalls) async throws(KeyringError) -> Value
    ) async throws(KeyringError) -> Value {
        var attempt = 1
        while true {
            let service = try await service(cancellation)
            do throws(KeyringError) {
                return try await body(SecretServiceCalls(service: service, cancellation: cancellation, waits: waits))
            } catch {
                switch error {
                case .locked, .accessRefused, .timedOut:
                    throw error
                case .serviceUnavailable, .noSessionBus:
                    dropService()
                    throw error
                case .failed:
                    // Perhaps the session is gone: KWallet (kwalletd5 5.103) drops a new client's
                    // session when other clients connect at the same moment ("Can't find
                    // session"). Once more with a new one; every operation here may be repeated
                    // (a store replaces, a deletion of a gone item is no error).
                    dropService()
                    guard attempt < Self.operationAttempts, g_cancellable_is_cancelled(cancellation.cancellable) == 0
                    else { throw error }
                    attempt += 1
                }
            }
        }
    }

    /// The cached proxy while its service is the one it was opened on, else a new one.
    private func service(_ cancellation: Cancellation) async throws(KeyringError) -> UnsafeMutablePointer<SecretService> {
        if let cached {
            let owner = GLibBridge.takeString(g_dbus_proxy_get_name_owner(csecret_service_proxy(cached.service)))
            if owner != nil && owner == cached.owner { return cached.service }
            dropService()
        }
        // Asked first, so that no bus is told apart from the many errors libsecret could give.
        let bus: OpaquePointer?
        do throws(GLibError) {
            bus = try await GLibBridge.await { callback, data in
                g_bus_get(G_BUS_TYPE_SESSION, cancellation.cancellable, callback, data)
            } finish: { result, error in
                g_bus_get_finish(result, error)
            }
        } catch {
            guard g_cancellable_is_cancelled(cancellation.cancellable) == 0 else { throw cancellation.cancelledError }
            throw .noSessionBus
        }
        // The bus closing is the bus owner's business (the daemon's libdbus connection sees it
        // too), not a reason for GLib to end the process.
        if let bus, bus != self.bus {
            g_dbus_connection_set_exit_on_close(bus, 0)
            self.bus.map { g_object_unref(UnsafeMutableRawPointer($0)) }
            self.bus = bus
        } else if let bus {
            g_object_unref(UnsafeMutableRawPointer(bus))
        }
        var attempt = 1
        var opened: UnsafeMutablePointer<SecretService>?
        while opened == nil {
            do throws(GLibError) {
                opened = try await GLibBridge.await { callback, data in
                    secret_service_open(
                        secret_service_get_type(), nil, SECRET_SERVICE_OPEN_SESSION, cancellation.cancellable, callback, data)
                } finish: { result, error in
                    secret_service_open_finish(result, error)
                }
            } catch {
                let failure = KeyringError(error, cancelled: cancellation.cancelledError)
                // A session refused is tried again with a new key: KWallet (kwalletd5 5.103)
                // refuses libsecret's public key when it is a byte short (a leading zero, one key
                // in 256) with "Client public key size is invalid".
                guard case .failed = failure, attempt < Self.sessionAttempts else { throw failure }
                attempt += 1
            }
        }
        guard let opened else { throw .failed("libsecret opened no Secret Service") }
        let proxy = csecret_service_proxy(opened)
        // KeePassXC holds its answer to SearchItems while its unlock dialog is up, longer than
        // D-Bus's default 25 s: the callers decide how long to wait, by cancelling.
        g_dbus_proxy_set_default_timeout(proxy, CSECRET_TIMEOUT_NONE)
        cached = (opened, GLibBridge.takeString(g_dbus_proxy_get_name_owner(proxy)))
        return opened
    }

    private func dropService() {
        guard let cached else { return }
        g_object_unref(cached.service)
        self.cached = nil
    }
}

import CSecret
import Threads

/// The one thread every libsecret call of the process runs on. libsecret's `_sync` calls block
/// on D-Bus and on a prompt for as long as the user takes, so they stay off the threads that
/// run Swift tasks; and one thread for all means at most one prompt up at a time and a store
/// seen by the calls queued after it.
///
/// The thread keeps one `SecretService` proxy, with its session, from call to call: libsecret
/// never closes a session, so a proxy per call would leave one behind in the service each
/// time. It is opened again when the service changed owner (restarted) or a call failed in a
/// way that may mean it is stale.
///
/// GDBus delivers a proxy's signals (a name owner change, a property change) to the main
/// context that was the thread's default when the proxy was made: here a context of the
/// keyring's own, pushed around each call and drained after it, so nothing piles up in GLib's
/// global default context, which nobody may iterate.
final class KeyringThread: Sendable {
    static let shared = KeyringThread()
    /// How often a session is asked for before its failure is reported.
    static let sessionAttempts = 3
    /// How often an operation that failed for no reason the keyring knows is tried, each time
    /// with a new session.
    static let operationAttempts = 2

    private let worker = SerialWorker()
    // Touched only from jobs on `worker`, one at a time.
    nonisolated(unsafe) private var context: OpaquePointer?
    nonisolated(unsafe) private var cached: (service: UnsafeMutablePointer<SecretService>, owner: String?)?

    /// Runs `body` on the keyring thread with the Secret Service, and returns what it returns.
    func run<Value: Sendable>(
        cancellation: Cancellation, waits: WaitTracker,
        _ body: @escaping @Sendable (SecretServiceCalls) throws(KeyringError) -> Value
    ) async throws(KeyringError) -> Value {
        try await worker.run { () throws(KeyringError) -> Value in
            let context = self.context ?? g_main_context_new()
            self.context = context
            g_main_context_push_thread_default(context)
            defer {
                while g_main_context_iteration(context, 0) != 0 {}
                g_main_context_pop_thread_default(context)
            }
            // Signals that came since the last call (the owner's, above all) first.
            while g_main_context_iteration(context, 0) != 0 {}
            var attempt = 1
            while true {
                let service = try self.service(cancellation)
                do throws(KeyringError) {
                    return try body(SecretServiceCalls(service: service, cancellation: cancellation, waits: waits))
                } catch {
                    switch error {
                    case .locked, .accessRefused, .timedOut:
                        throw error
                    case .serviceUnavailable, .noSessionBus:
                        self.dropService()
                        throw error
                    case .failed:
                        // Perhaps the session is gone: KWallet (kwalletd5 5.103) drops a new
                        // client's session when other clients connect at the same moment ("Can't
                        // find session"). Once more with a new one; every operation here may be
                        // repeated (a store replaces, a deletion of a gone item is no error).
                        self.dropService()
                        guard attempt < Self.operationAttempts, g_cancellable_is_cancelled(cancellation.cancellable) == 0
                        else { throw error }
                        attempt += 1
                    }
                }
            }
        }
    }

    /// The cached proxy while its service is the one it was opened on, else a new one.
    private func service(_ cancellation: Cancellation) throws(KeyringError) -> UnsafeMutablePointer<SecretService> {
        if let cached {
            let owner = GLibBridge.takeString(g_dbus_proxy_get_name_owner(csecret_service_proxy(cached.service)))
            if owner != nil && owner == cached.owner { return cached.service }
            dropService()
        }
        // Asked first, so that no bus is told apart from the many errors libsecret could give.
        let bus: OpaquePointer?
        do {
            bus = try GLibBridge.call { error in g_bus_get_sync(G_BUS_TYPE_SESSION, cancellation.cancellable, error) }
        } catch {
            throw .noSessionBus
        }
        // The bus closing is the bus owner's business (the daemon's libdbus connection sees it
        // too), not a reason for GLib to end the process.
        if let bus {
            g_dbus_connection_set_exit_on_close(bus, 0)
            g_object_unref(UnsafeMutableRawPointer(bus))
        }
        var attempt = 1
        var opened: UnsafeMutablePointer<SecretService>?
        while opened == nil {
            do throws(GLibError) {
                opened = try GLibBridge.call { error in
                    secret_service_open_sync(
                        secret_service_get_type(), nil, SECRET_SERVICE_OPEN_SESSION, cancellation.cancellable, error)
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

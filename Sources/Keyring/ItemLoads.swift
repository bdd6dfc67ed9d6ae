import CSecret

/// Item proxies for many paths at once: `secret_item_new_for_dbus_path` for each, all in
/// flight together (one `GetAll` each), their answers taken on the keyring thread's own main
/// context. Made one after another, a listing of a keyring with hundreds of items would wait
/// out hundreds of round trips.
///
/// Only the keyring thread touches this, inside a job, with its context pushed.
final class ItemLoads {
    private var pending = 0
    /// Loaded items, each a reference of ours, dropped with this.
    private(set) var items: [String: UnsafeMutablePointer<SecretItem>] = [:]
    /// The first failure other than an item gone.
    private var failure: GLibError?

    /// One load's context for its callback.
    private final class Load {
        let path: String
        let loads: ItemLoads

        init(_ path: String, _ loads: ItemLoads) {
            self.path = path
            self.loads = loads
        }
    }

    /// Loads every path's item; a path whose object is gone has none. Throws the first other
    /// failure (a cancellation among them) once every load has answered.
    init(
        _ paths: [String], of service: UnsafeMutablePointer<SecretService>,
        cancellable: UnsafeMutablePointer<GCancellable>
    ) throws(GLibError) {
        let context = g_main_context_get_thread_default()
        for path in paths {
            pending += 1
            secret_item_new_for_dbus_path(
                service, path, SECRET_ITEM_NONE, cancellable,
                { _, result, data in
                    let load = Unmanaged<Load>.fromOpaque(data!).takeRetainedValue()
                    load.loads.finished(load.path, result)
                },
                Unmanaged.passRetained(Load(path, self)).toOpaque())
        }
        while pending > 0 { g_main_context_iteration(context, 1) }
        if let failure { throw failure }
    }

    deinit {
        items.values.forEach { g_object_unref($0) }
    }

    private func finished(_ path: String, _ result: OpaquePointer?) {
        pending -= 1
        do throws(GLibError) {
            if let item = try GLibBridge.call({ error in secret_item_new_for_dbus_path_finish(result, error) }) {
                items[path] = item
            }
        } catch {
            if !error.isVanishedItem && failure == nil { failure = error }
        }
    }
}

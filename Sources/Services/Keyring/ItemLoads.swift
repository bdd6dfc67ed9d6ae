internal import CSecret
import MainLoop

/// Item proxies for many paths at once: `secret_item_new_for_dbus_path` for each, all in
/// flight together (one `GetAll` each). Made one after another, a listing of a keyring with
/// hundreds of items would wait out hundreds of round trips.
@LoopActor
final class ItemLoads {
    /// Loaded items, each a reference of ours, dropped with this.
    private(set) var items: [String: UnsafeMutablePointer<SecretItem>] = [:]
    private var pending = 0
    /// The first failure other than an item gone.
    private var failure: GLibError?
    private var allAnswered: CheckedContinuation<Void, Never>?

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
    ) async throws(GLibError) {
        guard !paths.isEmpty else { return }
        await withCheckedContinuation { continuation in
            allAnswered = continuation
            for path in paths {
                pending += 1
                secret_item_new_for_dbus_path(
                    service, path, SECRET_ITEM_NONE, cancellable,
                    { _, result, data in
                        let load = Unmanaged<Load>.fromOpaque(data!).takeRetainedValue()
                        LoopActor.assumeIsolated { load.loads.finished(load.path, result) }
                    },
                    Unmanaged.passRetained(Load(path, self)).toOpaque())
            }
        }
        if let failure { throw failure }
    }

    isolated deinit {
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
        if pending == 0 { allAnswered.take()?.resume() }
    }
}

internal import CNotify
import Threads

/// A GLib main loop on a thread of its own, with a main context of its own pushed as that
/// thread's default: libnotify's calls are made there, and its callbacks (actions, `closed`)
/// come there, since libnotify delivers them in the thread-default context of the thread that
/// first reached the notification server.
///
/// The loop has no timers: between two jobs it sleeps in `poll` with no deadline, so an idle
/// daemon is not woken for it.
///
/// One per process: libnotify's connection to the notification server is global, and
/// delivers its signals in the context it was made in, so every client must use the same one.
final class GLibLoop: Sendable {
    /// Nil when the system would not start a thread.
    static let shared = GLibLoop()

    /// A `GMainContext *`; used only through GLib's thread-safe calls from other threads.
    private nonisolated(unsafe) let context: OpaquePointer

    /// Starts the thread; nil if the system would not make one.
    private init?() {
        guard let context = g_main_context_new() else { return nil }
        self.context = context
        nonisolated(unsafe) let owned = context
        let started = startDetachedThread {
            g_main_context_push_thread_default(owned)
            let loop = g_main_loop_new(owned, 0)
            // Runs for the life of the process, like the daemon's other threads.
            g_main_loop_run(loop)
        }
        guard started else {
            g_main_context_unref(context)
            return nil
        }
    }

    /// Runs `job` on the loop's thread, after the jobs handed over before it.
    func submit(_ job: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Job(job)).toOpaque()
        g_main_context_invoke_full(context, G_PRIORITY_DEFAULT, { box in
            Unmanaged<Job>.fromOpaque(box!).takeUnretainedValue().run()
            return 0  // G_SOURCE_REMOVE: once
        }, box, { box in
            Unmanaged<Job>.fromOpaque(box!).release()
        })
    }

    /// Runs `work` on the loop's thread and returns its result.
    func run<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            submit { continuation.resume(returning: work()) }
        }
    }

    private final class Job {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}

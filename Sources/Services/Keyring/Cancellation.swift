internal import CSecret
import Synchronization

/// A `GCancellable` for one keyring call, which another thread may cancel while libsecret
/// blocks the keyring thread on it (GLib makes cancelling thread-safe), and why it was.
final class Cancellation: @unchecked Sendable {
    enum Reason: Sendable {
        /// The caller's time for an answer ran out.
        case deadline
        /// The calling task was cancelled.
        case task
    }

    /// Set once, before the `GCancellable` is cancelled: by the loop's thread (the deadline's
    /// alarm) or a cancelling task's thread, and read on the loop's when libsecret answers.
    private let reason = Mutex<Reason?>(nil)
    // @unchecked: a GCancellable is made to be cancelled from any thread.
    let cancellable: UnsafeMutablePointer<GCancellable>

    init() {
        cancellable = g_cancellable_new()
    }

    deinit {
        g_object_unref(cancellable)
    }

    func cancel(because why: Reason) {
        let first = reason.withLock { reason in
            defer { reason = reason ?? why }
            return reason == nil
        }
        if first { g_cancellable_cancel(cancellable) }
    }

    /// What a cancelled libsecret call reports: no answer in time, or a plain failure.
    var cancelledError: KeyringError {
        switch reason.withLock({ $0 }) {
        case .deadline: .timedOut
        case .task, nil: .failed("the keyring call was cancelled")
        }
    }
}

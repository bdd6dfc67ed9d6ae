internal import CSecret
import MainLoop

/// A GLib object reference handed across a continuation: used on the loop's thread alone.
struct LoopObject<Pointer>: @unchecked Sendable {
    let pointer: Pointer
}

extension GLibBridge {
    /// One asynchronous call of libsecret's (or GIO's): `start` begins it with a callback and
    /// its data, and `finish` takes the result it hands back. Started on the loop's thread, so
    /// GLib calls back there too (the thread-default context of the thread that starts it, which
    /// on the loop's thread is the loop's own); the task waits meanwhile, and a prompt with it,
    /// without holding any thread.
    @LoopActor
    static func await<Value>(
        _ start: (GAsyncReadyCallback, gpointer) -> Void,
        finish: (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> Value
    ) async throws(GLibError) -> Value {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<LoopObject<OpaquePointer?>, Never>) in
            start(asyncCallFinished, Unmanaged.passRetained(AsyncCall(continuation)).toOpaque())
        }
        defer { if let result = result.pointer { g_object_unref(UnsafeMutableRawPointer(result)) } }
        return try call { error in finish(result.pointer, error) }
    }

    fileprivate final class AsyncCall {
        let continuation: CheckedContinuation<LoopObject<OpaquePointer?>, Never>
        init(_ continuation: CheckedContinuation<LoopObject<OpaquePointer?>, Never>) { self.continuation = continuation }
    }
}

/// `GAsyncReadyCallback`: keeps the result for `finish`, which runs when the task goes on.
private let asyncCallFinished: GAsyncReadyCallback = { _, result, data in
    if let result { g_object_ref(UnsafeMutableRawPointer(result)) }
    Unmanaged<GLibBridge.AsyncCall>.fromOpaque(data!).takeRetainedValue().continuation.resume(returning: LoopObject(pointer: result))
}

import Glibc

/// Starts a detached OS thread running `body`; false if the system would not create one.
///
/// Blocking work belongs on a thread of its own: the threads that run Swift tasks are few, and
/// a blocked one is that many tasks that cannot run.
public func startDetachedThread(_ body: @escaping @Sendable () -> Void) -> Bool {
    final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    var thread = pthread_t()
    let created = pthread_create(&thread, nil, { context in
        Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
        return nil
    }, context)
    guard created == 0 else {
        Unmanaged<Body>.fromOpaque(context).release()
        return false
    }
    pthread_detach(thread)
    return true
}

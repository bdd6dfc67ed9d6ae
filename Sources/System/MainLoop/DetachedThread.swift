internal import CGlibc
import Glibc

/// Starts a detached OS thread named `name` running `body`; false if the system would not
/// create one.
func startDetachedThread(named name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
    final class Body {
        let name: String
        let run: @Sendable () -> Void
        init(_ name: String, _ run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }
    let context = Unmanaged.passRetained(Body(name, body)).toOpaque()
    var thread = pthread_t()
    let created = pthread_create(&thread, nil, { context in
        let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
        gbn_name_thread(body.name)
        body.run()
        return nil
    }, context)
    guard created == 0 else {
        Unmanaged<Body>.fromOpaque(context).release()
        return false
    }
    pthread_detach(thread)
    return true
}

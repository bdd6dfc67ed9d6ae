import Glibc

/// A pthread mutex, for the conditions that wait with it held.
final class Lock: @unchecked Sendable {
    fileprivate let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() {
        pthread_mutex_lock(mutex)
    }

    func unlock() {
        pthread_mutex_unlock(mutex)
    }

    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A pthread condition variable, waited on with its `Lock` held: a wait costs nothing until
/// the condition is signalled. (Waits with a deadline are `Alarm`'s.)
final class Condition: @unchecked Sendable {
    private let lock: Lock
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init(_ lock: Lock) {
        self.lock = lock
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    /// Waits until signalled. May return early, as pthread waits do: callers loop on their own
    /// state.
    func wait() {
        pthread_cond_wait(condition, lock.mutex)
    }

    func signal() {
        pthread_cond_signal(condition)
    }
}

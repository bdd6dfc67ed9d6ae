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

/// A pthread condition variable, waited on with its `Lock` held. Timed waits count on
/// CLOCK_MONOTONIC, so that setting the wall clock neither shortens nor stretches them; a wait
/// without a deadline costs nothing until the condition is signalled.
final class Condition: @unchecked Sendable {
    private let lock: Lock
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init(_ lock: Lock) {
        self.lock = lock
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    /// Waits until signalled or until `deadline` (CLOCK_MONOTONIC nanoseconds, see
    /// `monotonicNanoseconds()`); nil waits for a signal alone. May return early, as pthread
    /// waits do: callers loop on their own state.
    func wait(untilMonotonicNanoseconds deadline: UInt64? = nil) {
        guard let deadline else {
            pthread_cond_wait(condition, lock.mutex)
            return
        }
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        pthread_cond_timedwait(condition, lock.mutex, &time)
    }

    func signal() {
        pthread_cond_signal(condition)
    }
}

/// CLOCK_MONOTONIC now, in nanoseconds: the clock of `Condition`'s timed waits.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

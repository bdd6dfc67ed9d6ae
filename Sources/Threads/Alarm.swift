internal import CGlibc
import Glibc

/// What the executor's timekeeper sleeps on between timers: a timer on CLOCK_BOOTTIME and a
/// wake-up descriptor, both in one poll(2). CLOCK_BOOTTIME counts the time the system spent
/// suspended, so a timer that fell due during a suspend fires at the resume, not up to its
/// whole wait later as a CLOCK_MONOTONIC wait (what pthread conditions offer) would.
final class Alarm: @unchecked Sendable {
    let timer: Int32
    private let wakeUp: Int32

    /// Nil when the kernel gives no descriptors.
    init?() {
        let timer = gbn_boottime_timer()
        let wakeUp = gbn_wakeup_fd()
        guard timer >= 0, wakeUp >= 0 else {
            if timer >= 0 { close(timer) }
            if wakeUp >= 0 { close(wakeUp) }
            return nil
        }
        self.timer = timer
        self.wakeUp = wakeUp
    }

    deinit {
        close(timer)
        close(wakeUp)
    }

    /// CLOCK_BOOTTIME now, in nanoseconds.
    static var now: UInt64 { UInt64(gbn_boottime_now()) }

    /// Sleeps until `deadline` (CLOCK_BOOTTIME nanoseconds) or a `wake()`, whichever is first;
    /// may return early, so callers look at their own state again.
    func sleep(until deadline: UInt64) {
        _ = gbn_boottime_timer_arm(timer, max(deadline, 1))
        var descriptors = [
            pollfd(fd: timer, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeUp, events: Int16(POLLIN), revents: 0),
        ]
        _ = poll(&descriptors, 2, -1)
        var count: UInt64 = 0
        // Drained so that the next sleep is not cut short by this one's wake-ups.
        _ = read(timer, &count, MemoryLayout<UInt64>.size)
        _ = read(wakeUp, &count, MemoryLayout<UInt64>.size)
    }

    /// Ends the current sleep, or the next one at once.
    func wake() {
        var one: UInt64 = 1
        _ = write(wakeUp, &one, MemoryLayout<UInt64>.size)
    }
}

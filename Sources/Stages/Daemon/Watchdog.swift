import Glibc
import MainLoop
import Synchronization

/// systemd's watchdog: with `WatchdogSec=` in the unit, systemd hands the daemon its interval in
/// `WATCHDOG_USEC` and kills and restarts it (`Restart=on-failure`) when no `WATCHDOG=1` came
/// within one. The pings go out from the main loop, so a loop stuck in a C call, in CPU work or
/// in a job that never ends stops them: the watchdog sees the loop, not the process.
///
/// The pings ride on the loop's own wake-ups (a poll, a bus message, a click): a wake-up a
/// quarter interval or more after the last ping sends the next. A timer of the watchdog's own
/// sends one only when nothing woke the loop for half an interval, and each ping puts it off
/// again, so a loop woken often enough never wakes for the watchdog, and an idle one wakes for
/// it once per half interval, no more. Half an interval: a ping made late by a busy moment of
/// the loop or of a loaded machine, by up to half the interval, still comes in time.
public final class Watchdog: Sendable {
    /// The longest time between two pings: the timer's delay after the last.
    public let period: Duration
    /// A wake-up of the loop this long after the last ping sends the next: pings at most this
    /// often however busy the loop is.
    public let spacing: Duration
    private let notifier: SystemdNotifier
    private let timeline: Timeline
    private let loop: MainLoop?
    /// Shared by `start` and `stop` (the loop's thread, in `Lifecycle`) and the pings, run by
    /// the loop's wake-ups and the timer: on the loop's thread on the real clock, on a pool thread
    /// on a test's manual clock (`WatchdogTests`).
    private let schedule = Mutex(Schedule())
    #if DEBUG
    /// A file whose appearance stalls the loop for good, for the tests that systemd restarts a
    /// daemon whose loop stalled (`GBNOTIFYD_TEST_STALL_FILE`); debug builds only.
    private let stallFile: String?
    #endif

    private struct Schedule {
        /// When the last ping went out, on the timeline.
        var last: Duration?
        var timer: Timeline.Alarm?
        var hook: UInt64?
        var stopped = false
    }

    /// Nil unless the service manager asks this process for pings: `WATCHDOG_USEC` set to a
    /// positive number and, when `WATCHDOG_PID` is set, naming this process (a child that
    /// inherited the variables is not the one watched). The pings ride on `loop`'s wake-ups;
    /// without one (the tests in virtual time), on `loopWoke` calls.
    public init?(
        environment: [String: String], processID: pid_t = getpid(), timeline: Timeline = Timeline(),
        ridingOn loop: MainLoop? = .shared
    ) {
        guard let notifier = SystemdNotifier(environment: environment),
            let text = environment["WATCHDOG_USEC"], let microseconds = Int64(text), microseconds > 0
        else { return nil }
        if let watched = environment["WATCHDOG_PID"], pid_t(watched) != processID { return nil }
        self.notifier = notifier
        self.timeline = timeline
        self.loop = loop
        period = .microseconds(microseconds) / 2
        spacing = .microseconds(microseconds) / 4
        #if DEBUG
        stallFile = environment["GBNOTIFYD_TEST_STALL_FILE"]
        #endif
    }

    /// Pings now, then on the loop's wake-ups or from the timer, until `stop`.
    public func start() {
        if let loop {
            let hook = loop.afterEachWakeUp { [self] in loopWoke() }
            schedule.withLock { $0.hook = hook }
        }
        ping(atLeastAfter: .zero)
    }

    /// No more pings: the daemon is stopping, and systemd's stop timeout takes over.
    public func stop() {
        let hook = schedule.withLock { schedule in
            schedule.stopped = true
            schedule.timer?.cancel()
            schedule.timer = nil
            return schedule.hook
        }
        if let hook { loop?.removeWakeUpHook(hook) }
    }

    /// The loop woke for work of its own: the next ping rides on it once `spacing` has passed.
    public func loopWoke() {
        ping(atLeastAfter: spacing)
    }

    /// Pings unless the last ping was less than `gap` ago, and puts the timer off to a period
    /// from now.
    private func ping(atLeastAfter gap: Duration) {
        let now = timeline.now
        let due = schedule.withLock { schedule in
            guard !schedule.stopped, schedule.last.map({ now - $0 >= gap }) ?? true else { return false }
            schedule.last = now
            schedule.timer?.cancel()
            schedule.timer = timeline.alarm(after: period) { [self] in ping(atLeastAfter: .zero) }
            return true
        }
        guard due else { return }
        #if DEBUG
        if let stallFile, unlink(stallFile) == 0 {
            // Blocks the loop's thread, as a C call that never returns would.
            while true { pause() }
        }
        #endif
        notifier.notify("WATCHDOG=1")
    }
}

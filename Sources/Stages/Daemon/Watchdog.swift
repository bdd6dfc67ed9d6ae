import Glibc
import MainLoop
import Synchronization

/// systemd's watchdog: with `WatchdogSec=` in the unit, systemd hands the daemon its interval in
/// `WATCHDOG_USEC` and kills and restarts it (`Restart=on-failure`) when no `WATCHDOG=1` came
/// within one. The pings go out from an alarm on the main loop, so a loop stuck in a C call, in
/// CPU work or in a job that never ends stops them: the watchdog sees the loop, not the process.
///
/// A ping every half interval: one made late by a busy moment of the loop or of a loaded
/// machine, by up to half the interval, still comes in time. The alarm is the loop's own timer,
/// the one every wait of the daemon uses, so it costs one wake-up a period and nothing between.
public final class Watchdog: Sendable {
    /// The time between two pings.
    public let period: Duration
    private let notifier: SystemdNotifier
    private let timeline: Timeline
    /// Shared by `start` and `stop` (the loop's thread, in `Lifecycle`) and the pings, run by
    /// the alarm: on the loop's thread on the real clock, on a pool thread on a test's manual
    /// clock (`WatchdogTests`).
    private let schedule = Mutex(Schedule())
    #if DEBUG
    /// A file whose appearance stalls the loop for good, for the tests that systemd restarts a
    /// daemon whose loop stalled (`GBNOTIFYD_TEST_STALL_FILE`); debug builds only.
    private let stallFile: String?
    #endif

    private struct Schedule {
        var next: Timeline.Alarm?
        var stopped = false
    }

    /// Nil unless the service manager asks this process for pings: `WATCHDOG_USEC` set to a
    /// positive number and, when `WATCHDOG_PID` is set, naming this process (a child that
    /// inherited the variables is not the one watched).
    public init?(environment: [String: String], processID: pid_t = getpid(), timeline: Timeline = Timeline()) {
        guard let notifier = SystemdNotifier(environment: environment),
            let text = environment["WATCHDOG_USEC"], let microseconds = Int64(text), microseconds > 0
        else { return nil }
        if let watched = environment["WATCHDOG_PID"], pid_t(watched) != processID { return nil }
        self.notifier = notifier
        self.timeline = timeline
        period = .microseconds(microseconds) / 2
        #if DEBUG
        stallFile = environment["GBNOTIFYD_TEST_STALL_FILE"]
        #endif
    }

    /// Pings now and then every period, until `stop`.
    public func start() {
        ping()
    }

    /// No more pings: the daemon is stopping, and systemd's stop timeout takes over.
    public func stop() {
        schedule.withLock { schedule in
            schedule.stopped = true
            schedule.next?.cancel()
            schedule.next = nil
        }
    }

    private func ping() {
        #if DEBUG
        if let stallFile, unlink(stallFile) == 0 {
            // Blocks the loop's thread, as a C call that never returns would.
            while true { pause() }
        }
        #endif
        notifier.notify("WATCHDOG=1")
        schedule.withLock { schedule in
            guard !schedule.stopped else { return }
            schedule.next = timeline.alarm(after: period) { [self] in ping() }
        }
    }
}

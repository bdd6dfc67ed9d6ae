import Foundation
import Synchronization
import Testing

@testable import Threads

/// The executor is used here through task-executor preference, the way a task's sleeps find it
/// in gbnotifyd, where it is the default executor of the whole process.
@Suite(.timeLimit(.minutes(1))) struct PoolExecutorTests {
    actor Counter {
        var value = 0
        func increment() { value += 1 }
    }

    final class Recorder: Sendable {
        let values = Mutex<[Int]>([])
        var recorded: [Int] { values.withLock { $0 } }
    }

    @Test func runsManyTasksAndAnActorToTheEnd() async {
        let executor = PoolExecutor(threads: 2)
        let counter = Counter()
        await withTaskExecutorPreference(executor) {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<1_000 {
                    group.addTask { await counter.increment() }
                }
            }
        }
        #expect(await counter.value == 1_000)
    }

    @Test func sleepsEndInTheOrderOfTheirDeadlines() async throws {
        // One thread: jobs due together run one after another, in deadline order.
        let executor = PoolExecutor(threads: 1)
        let woke = Recorder()
        try await withTaskExecutorPreference(executor) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for milliseconds in [300, 100, 200, 0] {
                    group.addTask {
                        try await Task.sleep(for: .milliseconds(milliseconds))
                        woke.values.withLock { $0.append(milliseconds) }
                    }
                }
                try await group.waitForAll()
            }
        }
        #expect(woke.recorded == [0, 100, 200, 300])
    }

    @Test func anEarlierTimerCutsTheTimekeepersWaitShort() async throws {
        // One thread keeps the hour-long timer while the other runs the task that schedules the
        // short sleep: unless the timekeeper is woken to take the earlier deadline, the short
        // sleep ends only after an hour.
        let executor = PoolExecutor(threads: 2)
        let long = Task(executorPreference: executor) { try await Task.sleep(for: .seconds(3_600)) }
        try await Task.sleep(for: .milliseconds(50))
        try await withTaskExecutorPreference(executor) {
            try await Task.sleep(for: .milliseconds(20))
            try await Task.sleep(until: .now + .milliseconds(20), clock: SuspendingClock())
        }
        long.cancel()
        await #expect(throws: CancellationError.self) { try await long.value }
    }

    /// The machine cannot be suspended in a test; what can be checked is the clock the
    /// timekeeper's timer counts on: CLOCK_BOOTTIME (7 in the kernel's numbering), which goes on
    /// counting during a suspend, so a poll that fell due then comes at the resume.
    @Test func theTimekeepersTimerCountsTheTimeSpentSuspended() async throws {
        let executor = PoolExecutor(threads: 2)
        let sleeper = Task(executorPreference: executor) { try await Task.sleep(for: .seconds(3_600)) }
        defer { sleeper.cancel() }
        // The timer is armed once a thread takes up the sleep: read until it is (or two seconds).
        var info = ""
        for _ in 0..<200 {
            info = try String(contentsOfFile: "/proc/self/fdinfo/\(executor.timersChanged.timer)", encoding: .utf8)
            if !info.contains("it_value: (0, 0)") { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(info.contains("clockid: 7\n"), "\(info)")
        #expect(!info.contains("it_value: (0, 0)"), "the hour-long sleep's deadline is not on the timer: \(info)")
    }

    @Test func aCancelledSleepEndsAtOnce() async {
        let executor = PoolExecutor(threads: 2)
        let sleeper = Task(executorPreference: executor) { try await Task.sleep(for: .seconds(3_600)) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
}

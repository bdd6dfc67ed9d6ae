import Foundation
import Glibc
import Synchronization
import Testing

@testable import MainLoop

/// The executor is used here through task-executor preference and `LoopActor`, the way every
/// task finds it in gbnotifyd, where it is the main and default executor of the whole process.
@Suite(.timeLimit(.minutes(1))) struct LoopExecutorTests {
    actor Counter {
        var value = 0
        func increment() { value += 1 }
    }

    final class Recorder: Sendable {
        let values = Mutex<[Int]>([])
        var recorded: [Int] { values.withLock { $0 } }
    }

    @Test func runsManyTasksAndAnActorToTheEndOnTheLoopsThread() async {
        let counter = Counter()
        let onLoop = Recorder()
        await withTaskExecutorPreference(LoopExecutor.shared) {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<1_000 {
                    group.addTask {
                        if MainLoop.shared.isCurrentThread { onLoop.values.withLock { $0.append(1) } }
                        await counter.increment()
                    }
                }
            }
        }
        #expect(await counter.value == 1_000)
        #expect(onLoop.recorded.count == 1_000)
    }

    @Test func loopActorCodeRunsOnTheLoopsThread() async {
        let onLoop = await Self.isOnLoop()
        #expect(onLoop)
    }

    @LoopActor static func isOnLoop() -> Bool {
        MainLoop.shared.isCurrentThread
    }

    @Test func sleepsEndInTheOrderOfTheirDeadlines() async throws {
        // One thread: jobs due together run one after another, in deadline order.
        let woke = Recorder()
        try await withTaskExecutorPreference(LoopExecutor.shared) {
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

    @Test func anEarlierTimerCutsALaterOnesWaitShort() async throws {
        // The hour-long sleep arms the timer first: unless the timer is armed again for the
        // earlier deadline, the short sleep ends only after an hour.
        let long = Task(executorPreference: LoopExecutor.shared) { try await Task.sleep(for: .seconds(3_600)) }
        try await Task.sleep(for: .milliseconds(50))
        try await withTaskExecutorPreference(LoopExecutor.shared) {
            try await Task.sleep(for: .milliseconds(20))
            try await Task.sleep(until: .now + .milliseconds(20), clock: SuspendingClock())
        }
        long.cancel()
        await #expect(throws: CancellationError.self) { try await long.value }
    }

    /// The machine cannot be suspended in a test; what can be checked is the clock the loop's
    /// timer counts on: CLOCK_BOOTTIME (7 in the kernel's numbering), which goes on counting
    /// during a suspend, so a poll that fell due then comes at the resume.
    @Test func theTimerCountsTheTimeSpentSuspended() async throws {
        let sleeper = Task(executorPreference: LoopExecutor.shared) { try await Task.sleep(for: .seconds(3_600)) }
        defer { sleeper.cancel() }
        // The timer is armed once the loop takes up the sleep: read until it is (or two seconds).
        var info = ""
        for _ in 0..<200 {
            info = try String(contentsOfFile: "/proc/self/fdinfo/\(MainLoop.shared.timerDescriptor)", encoding: .utf8)
            if !info.contains("it_value: (0, 0)") { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(info.contains("clockid: 7\n"), "\(info)")
        #expect(!info.contains("it_value: (0, 0)"), "the hour-long sleep's deadline is not on the timer: \(info)")
    }

    @Test func aCancelledSleepEndsAtOnce() async {
        let sleeper = Task(executorPreference: LoopExecutor.shared) { try await Task.sleep(for: .seconds(3_600)) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    /// Going offline or stopping cancels the waits of every poller; a timer each left behind
    /// would wake the idle loop when it fell due. The sleep's length is odd enough that no other
    /// test's timer falls in its window.
    @Test func aCancelledTimelineSleepLeavesNoTimerToWakeTheLoop() async throws {
        let length = Duration.seconds(7_777)
        let before = ContinuousClock.now
        let sleeper = Task(executorPreference: LoopExecutor.shared) { try await Timeline().sleep(for: length) }
        var waiting = false
        for _ in 0..<200 where !waiting {
            try await Task.sleep(for: .milliseconds(10))
            waiting = MainLoop.shared.hasTimer(dueIn: (before + length)...(ContinuousClock.now + length))
        }
        #expect(waiting, "the sleep's timer never appeared")
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(!MainLoop.shared.hasTimer(dueIn: (before + length)...(ContinuousClock.now + length)))
    }

    @Test func aCancelledAlarmNeverRunsAndOneLeftAloneDoes() async {
        let ran = Recorder()
        let cancelled = Timeline().alarm(after: .milliseconds(30)) { ran.values.withLock { $0.append(1) } }
        cancelled.cancel()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = Timeline().alarm(after: .milliseconds(80)) {
                ran.values.withLock { $0.append(2) }
                done.resume()
            }
        }
        #expect(ran.recorded == [2])
    }

    /// A wake-up hook runs on the loop's thread at its wake-ups, and not once taken out. Each
    /// job below is handed over after the one before ran, so the loop polled (and woke) in
    /// between: a hook there when the first was handed over has run by the time the second has.
    @Test func aWakeUpHookRunsOnTheLoopsThreadAtItsWakeUpsUntilTakenOut() async {
        let calls = Atomic<Int>(0)
        let elsewhere = Atomic<Int>(0)
        let hook = MainLoop.shared.afterEachWakeUp {
            calls.add(1, ordering: .relaxed)
            if !MainLoop.shared.isCurrentThread { elsewhere.add(1, ordering: .relaxed) }
        }
        await MainLoop.shared.run {}
        await MainLoop.shared.run {}
        #expect(calls.load(ordering: .relaxed) >= 1)
        MainLoop.shared.removeWakeUpHook(hook)
        // A wake-up that took the hooks before it was taken out has run it by the end of this job.
        await MainLoop.shared.run {}
        let removed = calls.load(ordering: .relaxed)
        await MainLoop.shared.run {}
        await MainLoop.shared.run {}
        #expect(calls.load(ordering: .relaxed) == removed)
        #expect(elsewhere.load(ordering: .relaxed) == 0)
    }

    @Test func submittedJobsRunInOrderOnTheLoopsThread() async {
        let order = Recorder()
        for index in 0..<100 {
            MainLoop.shared.submit {
                precondition(MainLoop.shared.isCurrentThread)
                order.values.withLock { $0.append(index) }
            }
        }
        await MainLoop.shared.run {}
        #expect(order.recorded == Array(0..<100))
    }
}

@Suite(.timeLimit(.minutes(1))) struct LoopSourceTests {
    @Test func aWatchedPipeIsReadWhenWrittenAndATimeoutFires() async throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { ends.forEach { _ = close($0) } }
        let (read, write) = (ends[0], ends[1])
        let received = await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8], Never>) in
            let holder = Holder()
            MainLoop.shared.submit {
                holder.source = LoopSource.watch(read, for: .readable) { ready in
                    precondition(ready.contains(.readable))
                    var buffer = [UInt8](repeating: 0, count: 16)
                    let count = Glibc.read(read, &buffer, buffer.count)
                    holder.source?.cancel()
                    continuation.resume(returning: Array(buffer[..<max(0, count)]))
                }
                holder.timeout = LoopSource.timeout(milliseconds: 20) {
                    var byte: UInt8 = 42
                    _ = Glibc.write(write, &byte, 1)
                    return false
                }
            }
        }
        #expect(received == [42])
    }

    final class Holder: @unchecked Sendable {
        var source: LoopSource?
        var timeout: LoopSource?
    }

    @Test func childrenAreReapedWithHowTheyEnded() async throws {
        func start(_ script: String) throws -> pid_t {
            var pid: pid_t = 0
            let words: [String] = ["/bin/sh", "-c", script]
            let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            #expect(posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0)
            return pid
        }
        #expect(await ChildWatch.exit(of: try start("exit 0")) == .exited(0))
        #expect(await ChildWatch.exit(of: try start("exit 3")) == .exited(3))
        #expect(await ChildWatch.exit(of: try start("kill -KILL $$")) == .killed(signal: SIGKILL))
    }
}

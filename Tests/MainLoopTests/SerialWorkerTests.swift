import Foundation
import Synchronization
import Testing

@testable import MainLoop

@Suite struct SerialWorkerTests {
    struct Refused: Error, Equatable {}

    final class Recorder: Sendable {
        let values = Mutex<[Int]>([])
        var recorded: [Int] { values.withLock { $0 } }
    }

    @Test func runsJobsOneAfterAnotherInTheOrderTheyCame() async {
        let worker = SerialWorker(name: "test-worker")
        let order = Recorder()
        for index in 0..<200 {
            worker.submit { order.values.withLock { $0.append(index) } }
        }
        // Runs after every job handed over before it.
        await worker.run {}
        #expect(order.recorded == Array(0..<200))
    }

    /// An idle process has no worker thread: it starts with a job and ends with the last one.
    @Test func theThreadIsThereOnlyWhileThereIsWork() async throws {
        let worker = SerialWorker(name: "gbn-idle-test")
        let during = await worker.run { Self.threadNames() }
        #expect(during.filter { $0 == "gbn-idle-test" }.count == 1)
        // The thread ends right after handing back the last answer: wait for that, a moment at most.
        for _ in 0..<200 where Self.threadNames().contains("gbn-idle-test") {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(!Self.threadNames().contains("gbn-idle-test"))
    }

    static func threadNames() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).compactMap { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
        }
    }

    @Test func runReturnsWhatTheWorkReturnedAndThrowsWhatItThrew() async throws {
        let worker = SerialWorker(name: "test-worker")
        #expect(await worker.run { 6 * 7 } == 42)
        await #expect(throws: Refused()) {
            try await worker.run { () throws(Refused) -> Int in throw Refused() }
        }
    }
}

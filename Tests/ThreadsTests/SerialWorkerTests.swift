import Synchronization
import Testing

@testable import Threads

@Suite struct SerialWorkerTests {
    struct Refused: Error, Equatable {}

    final class Recorder: Sendable {
        let values = Mutex<[Int]>([])
        var recorded: [Int] { values.withLock { $0 } }
    }

    @Test func runsJobsOneAfterAnotherInTheOrderTheyCame() async {
        let worker = SerialWorker()
        let order = Recorder()
        for index in 0..<200 {
            worker.submit { order.values.withLock { $0.append(index) } }
        }
        // Runs after every job handed over before it.
        await worker.run {}
        #expect(order.recorded == Array(0..<200))
    }

    @Test func runReturnsWhatTheWorkReturnedAndThrowsWhatItThrew() async throws {
        let worker = SerialWorker()
        #expect(await worker.run { 6 * 7 } == 42)
        await #expect(throws: Refused()) {
            try await worker.run { () throws(Refused) -> Int in throw Refused() }
        }
    }
}

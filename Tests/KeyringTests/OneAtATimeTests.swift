import Synchronization
import Testing

@testable import Keyring

@Suite struct OneAtATimeTests {
    final class Events: Sendable {
        let list = Mutex<[String]>([])
        func add(_ event: String) { list.withLock { $0.append(event) } }
        var recorded: [String] { list.withLock { $0 } }
    }

    @Test func operationsNeverOverlap() async {
        let operations = OneAtATime()
        let events = Events()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    await operations.run {
                        events.add("start \(index)")
                        // A suspension inside, where another operation would slip in if it could.
                        try? await Task.sleep(for: .milliseconds(2))
                        events.add("end \(index)")
                    }
                }
            }
        }
        let recorded = events.recorded
        #expect(recorded.count == 40)
        for pair in stride(from: 0, to: recorded.count, by: 2) {
            let started = recorded[pair].split(separator: " ")
            #expect(started.first == "start")
            #expect(recorded[pair + 1] == "end \(started.last ?? "")")
        }
    }

    @Test func aThrowingOperationLetsTheNextOneRun() async {
        struct Refused: Error {}
        let operations = OneAtATime()
        await #expect(throws: Refused.self) {
            try await operations.run { () async throws(Refused) in throw Refused() }
        }
        #expect(await operations.run { 42 } == 42)
    }
}

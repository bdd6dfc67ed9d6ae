@testable import Daemon
import Testing

/// The wake-ups that cut an account's wait for its next poll short.
@Suite struct PollTriggerTests {
    @Test func aWakeUpEndsTheWaitAtOnce() async throws {
        let trigger = PollTrigger()
        let waiting = Task { try await trigger.wait(upTo: 3600) }
        // Whether the waiter is already waiting or not yet, the wake-up reaches it.
        trigger.fire()
        #expect(try await waiting.value)
    }

    @Test func wakeUpsWhileNobodyWaitsMakeOneWakeUp() async throws {
        let trigger = PollTrigger()
        trigger.fire()
        trigger.fire()
        trigger.fire()
        #expect(try await trigger.wait(upTo: 3600))
        #expect(try await trigger.wait(upTo: 0) == false)
    }

    @Test func wakeUpsBeforeAPollAreClearedByIt() async throws {
        let trigger = PollTrigger()
        trigger.fire()
        trigger.clear()
        #expect(try await trigger.wait(upTo: 0) == false)
    }

    @Test func aCancelledWaitThrowsAndLeavesNoWaiterBehind() async throws {
        let trigger = PollTrigger()
        let waiting = Task { try await trigger.wait(upTo: 3600) }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        // The next wake-up is kept for the next wait, not spent on the cancelled one.
        trigger.fire()
        #expect(try await trigger.wait(upTo: 3600))
    }
}

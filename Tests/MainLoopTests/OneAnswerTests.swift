import MainLoop
import Testing

@Suite struct OneAnswerTests {
    struct Refused: Error, Equatable {}

    /// A reply faster than its caller (given on the loop's thread before the wait is in place)
    /// is kept for the wait.
    @Test func anAnswerGivenBeforeTheWaitIsKeptForIt() async throws {
        let answer = OneAnswer<Int>()
        #expect(answer.answer(.success(7)))
        #expect(try await answer.value() == 7)
    }

    @Test func theFirstAnswerWinsAndLaterOnesAreDropped() async throws {
        let answer = OneAnswer<Int>()
        let waiting = Task { try await answer.value() }
        await Task.yield()
        #expect(answer.answer(.failure(Refused())))
        #expect(!answer.answer(.success(1)))
        await #expect(throws: Refused.self) { try await waiting.value }
        #expect(!answer.answer(.success(2)), "an answer after the wait ended")
    }

    /// The pattern of every wait built on it: the caller's cancellation is one of the answers.
    @Test func aCancelledWaiterIsAnsweredByItsCancellation() async throws {
        let answer = OneAnswer<Void>()
        let waiting = Task {
            try await withTaskCancellationHandler {
                try await answer.value()
            } onCancel: {
                answer.answer(.failure(CancellationError()))
            }
        }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(!answer.answer(), "the reply that comes after the cancellation")
    }
}

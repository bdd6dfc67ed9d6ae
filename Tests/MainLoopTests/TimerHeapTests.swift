import Testing

@testable import MainLoop

@Suite struct TimerHeapTests {
    @Test func takesDueJobsEarliestFirstAndLeavesTheRest() {
        var heap = TimerHeap<Int, String>()
        let earliest = [
            heap.insert("at 30", at: 30), heap.insert("at 10", at: 10),
            heap.insert("at 20", at: 20), heap.insert("at 40", at: 40),
        ]
        #expect(earliest == [true, true, false, false])
        var due: [String] = []
        heap.removeDue(at: 30, into: &due)
        #expect(due == ["at 10", "at 20", "at 30"])
        #expect(heap.earliest == 40)
        #expect(heap.count == 1)
    }

    @Test func jobsWithOneDeadlineComeOutInTheOrderTheyWentIn() {
        var heap = TimerHeap<Int, Int>()
        for job in 0..<50 {
            _ = heap.insert(job, at: job % 3 == 0 ? 5 : 7)
        }
        var due: [Int] = []
        heap.removeDue(at: 100, into: &due)
        #expect(due == (0..<50).filter { $0 % 3 == 0 } + (0..<50).filter { $0 % 3 != 0 })
        #expect(heap.earliest == nil)
    }

    @Test func nothingIsDueBeforeTheEarliestDeadline() {
        var heap = TimerHeap<Int, String>()
        _ = heap.insert("later", at: 10)
        var due: [String] = []
        heap.removeDue(at: 9, into: &due)
        #expect(due.isEmpty)
        #expect(heap.earliest == 10)
    }

    @Test func aJobTakenOutBeforeItsDeadlineNeverComesOut() {
        var heap = TimerHeap<Int, String>()
        for (job, deadline) in [("a", 50), ("b", 10), ("c", 40), ("d", 20), ("e", 30), ("f", 60)] {
            _ = heap.insert(job, at: deadline)
        }
        #expect(heap.remove { $0 == "b" })
        #expect(heap.remove { $0 == "c" })
        #expect(!heap.remove { $0 == "b" })
        #expect(heap.earliest == 20)
        var due: [String] = []
        heap.removeDue(at: 100, into: &due)
        #expect(due == ["d", "e", "a", "f"])
    }
}

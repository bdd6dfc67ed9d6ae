/// Jobs waiting for a deadline on one clock, earliest first; two with the same deadline come
/// out in the order they went in.
struct TimerHeap<Instant: Comparable, Job> {
    private struct Entry {
        let deadline: Instant
        let order: UInt64
        let job: Job
    }

    private var entries: [Entry] = []
    private var scheduled: UInt64 = 0

    var earliest: Instant? { entries.first?.deadline }
    var count: Int { entries.count }
    /// Every deadline waiting, in no order.
    var deadlines: [Instant] { entries.map(\.deadline) }

    /// Adds `job`; true when its deadline is now the earliest.
    mutating func insert(_ job: Job, at deadline: Instant) -> Bool {
        scheduled += 1
        entries.append(Entry(deadline: deadline, order: scheduled, job: job))
        return siftUp(entries.count - 1) == 0
    }

    /// Takes every job whose deadline is at or before `now`, earliest first.
    mutating func removeDue(at now: Instant, into jobs: inout [Job]) {
        while let first = entries.first, first.deadline <= now {
            jobs.append(first.job)
            removeEntry(at: 0)
        }
    }

    /// Takes out the first job `matches` picks, before its deadline; true when there was one.
    mutating func remove(where matches: (Job) -> Bool) -> Bool {
        guard let index = entries.firstIndex(where: { matches($0.job) }) else { return false }
        removeEntry(at: index)
        return true
    }

    private mutating func removeEntry(at index: Int) {
        entries.swapAt(index, entries.count - 1)
        entries.removeLast()
        guard index < entries.count else { return }
        siftDown(siftUp(index))
    }

    /// Moves the entry at `child` up past every later parent; returns where it ends.
    @discardableResult
    private mutating func siftUp(_ start: Int) -> Int {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(child, parent) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
        return child
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < entries.count && precedes(left, smallest) { smallest = left }
            if right < entries.count && precedes(right, smallest) { smallest = right }
            guard smallest != parent else { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }

    private func precedes(_ first: Int, _ second: Int) -> Bool {
        (entries[first].deadline, entries[first].order) < (entries[second].deadline, entries[second].order)
    }
}

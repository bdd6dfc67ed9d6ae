/// Cuts a relay stream's bytes, as they arrive in chunks of any size, into lines.
///
/// Memory is bounded: a line is held only up to `RelayEvent.maximumLineBytes`; past that its
/// bytes are counted and thrown away until its line break, and it comes out as `.oversized`,
/// so a relay that never sends a newline costs 64 KiB, not everything it sends. The connection
/// goes on: the next line is read normally.
public struct RelayLineSplitter: Sendable {
    public enum Line: Sendable, Equatable {
        /// One line without its `\n` (or `\r\n`); empty lines are skipped.
        case line([UInt8])
        /// A line over the limit, dropped; its length, line break excluded.
        case oversized(byteCount: Int)
    }

    private let limit: Int
    private var pending: [UInt8] = []
    /// The length so far of an oversized line being skipped; nil while reading normally.
    private var skipped: Int?

    public init(limit: Int = RelayEvent.maximumLineBytes) {
        self.limit = limit
    }

    /// The lines that `chunk` completes, in order.
    public mutating func lines(in chunk: some Collection<UInt8>) -> [Line] {
        // Over the bytes in place: the same loop over any collection, unspecialised from
        // another module, took 125 ms for 1 MiB without a line break (`gbnotify-bench worst`).
        if let lines = chunk.withContiguousStorageIfAvailable({ split($0) }) { return lines }
        return Array(chunk).withUnsafeBufferPointer { split($0) }
    }

    private mutating func split(_ chunk: UnsafeBufferPointer<UInt8>) -> [Line] {
        var lines: [Line] = []
        var rest = chunk[...]
        while !rest.isEmpty {
            let newline = rest.firstIndex(of: UInt8(ascii: "\n"))
            let piece = rest[..<(newline ?? rest.endIndex)]
            if let count = skipped {
                skipped = count + piece.count
            } else if pending.count + piece.count > limit {
                skipped = pending.count + piece.count
                pending.removeAll()
            } else {
                pending.append(contentsOf: piece)
            }
            guard let newline else { break }
            lines += finishLine()
            rest = rest[rest.index(after: newline)...]
        }
        return lines
    }

    /// Bytes of a line that has not ended yet (a connection cut mid-line drops them).
    public var hasPartialLine: Bool { !pending.isEmpty || skipped != nil }

    private mutating func finishLine() -> [Line] {
        defer {
            pending.removeAll(keepingCapacity: pending.count <= 4096)
            skipped = nil
        }
        if let skipped { return [.oversized(byteCount: skipped)] }
        if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
        return pending.isEmpty ? [] : [.line(pending)]
    }
}

import PushCore

/// A relay stream, as `RelayLineSplitter` cuts it into lines and `RelayEvent(line:)` reads
/// each: the lines do not depend on how the bytes were chunked, none is held past the limit,
/// and every line is an event or an error that never quotes it; a message's topic is all the
/// daemon reads of it.
func fuzz(_ input: UnsafeBufferPointer<UInt8>) {
    // A small limit, so that oversized lines are reached without megabytes of input.
    var wholeSplitter = RelayLineSplitter(limit: smallLimit)
    let whole = wholeSplitter.lines(in: input)
    invariant(whole == chunkedLines(of: input, limit: smallLimit), "chunking changed the lines")
    for line in whole {
        switch line {
        case .line(let bytes):
            invariant(!bytes.isEmpty && bytes.count <= smallLimit, "a line of \(bytes.count) bytes")
            invariant(!bytes.contains(UInt8(ascii: "\n")), "a line holds a line break")
        case .oversized(let byteCount):
            invariant(byteCount > smallLimit, "oversized at \(byteCount) bytes")
        }
    }

    for case .line(let bytes) in chunkedLines(of: input, limit: RelayEvent.maximumLineBytes) {
        let event: RelayEvent
        do {
            event = try RelayEvent(line: bytes)
        } catch {
            invariant(isOneLine(error.description), "the error is not one line: \(error)")
            continue
        }
        switch event {
        case .open, .keepalive:
            break
        case .other(let name):
            invariant(isOneLine(name) && name.count <= 40, "event name \(name.debugDescription)")
        case .message(let message):
            invariant(RelayMessage.isValidID(message.id), "message id \(message.id.debugDescription)")
        }
    }
}

private let smallLimit = 64
/// Chunk sizes cycled through, from single bytes to more than the small limit.
private let chunkSizes = [1, 7, 2, 100, 3, 31]

private func chunkedLines(of input: UnsafeBufferPointer<UInt8>, limit: Int) -> [RelayLineSplitter.Line] {
    var splitter = RelayLineSplitter(limit: limit)
    var lines: [RelayLineSplitter.Line] = []
    var start = 0
    var chunk = 0
    while start < input.count {
        let end = min(start + chunkSizes[chunk % chunkSizes.count], input.count)
        lines += splitter.lines(in: UnsafeBufferPointer(rebasing: input[start..<end]))
        start = end
        chunk += 1
    }
    return lines
}

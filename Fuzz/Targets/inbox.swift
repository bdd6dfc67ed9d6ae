import PushCore

/// The body of a `notifications list` answer, through `APIResult` and `decode(InboxPage.self)`
/// as the poller reads it: a page or a clear error, and whatever the server wrote, every message
/// made of it is one bounded line. The same body is also classified under the other statuses
/// the contract maps, whose messages quote the server's own words.
func fuzz(_ input: UnsafeBufferPointer<UInt8>) {
    let body = Array(input)
    let result = APIResult(status: 200, headers: ["etag": etag], body: body)
    switch result {
    case .success(let data, let tag):
        invariant(data == body && tag == etag, "a success does not keep the body and the ETag")
    case .serverError(status: 200, _):
        break
    default:
        fatalError("invariant broken: a 200 answer became \(result)")
    }
    do {
        let page = try result.decode(InboxPage.self)
        if case .serverError = result { fatalError("invariant broken: a failed answer decoded") }
        checkDiff(of: page)
    } catch {
        invariant(isOneLine(error.description), "the error is not one line: \(error)")
    }

    for status in [400, 401, 403, 404, 500] {
        let failure = APIResult(status: status, headers: ["retry-after": "7"], body: body)
        let text = failure.description
        invariant(isOneLine(text), "HTTP \(status) message is not one line: \(text.debugDescription)")
        invariant(text.count <= APIResult.maximumMessageLength + 200, "HTTP \(status) message is \(text.count) characters")
    }
}

/// What the poller makes of the page: never a notice at or below the mark, never one twice,
/// never a mark that moves back, and nothing replayed one by one on first sight.
private func checkDiff(of page: InboxPage) {
    let mark: Int64 = 40
    let cycle = InboxDiff.evaluate(page: page, highWater: mark)
    invariant(cycle.highWater >= mark, "the mark moved back to \(cycle.highWater)")
    let shownIDs = cycle.notices.compactMap { notice -> Int64? in
        guard case .item(let item) = notice else { return nil }
        invariant(item.readAt == nil, "read row \(item.id) shown")
        return item.id
    }
    invariant(shownIDs.allSatisfy { $0 > mark }, "a row at or below the mark shown: \(shownIDs)")
    invariant(shownIDs == shownIDs.sorted() && Set(shownIDs).count == shownIDs.count, "rows out of order or twice: \(shownIDs)")
    invariant(shownIDs.count <= 3, "\(shownIDs.count) rows shown one by one")

    let firstSight = InboxDiff.evaluate(page: page, highWater: nil)
    invariant(firstSight.notices.count <= 1, "first sight shows \(firstSight.notices.count) notices")
}

private let etag = "\"0123456789abcdef0123456789abcdef\""

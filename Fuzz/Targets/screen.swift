import PushCore

/// `ScreenBook` and `UnreadTally`, driven by a script of the events a hostile server and a
/// notification server can cause, with counts and ids at their extremes: never a crash (no
/// overflow, however large), never more notifications open than the limit, nothing on screen
/// twice, every count within `OutsideCount`'s range, and the badge's total exactly the sum of
/// the accounts' clamped counts (so never negative, and never past three accounts' maximum).
func fuzz(_ input: UnsafeBufferPointer<UInt8>) {
    var bytes = input.makeIterator()
    var book = ScreenBook(limit: Int(bytes.next() ?? 3) % 6 + 1)
    var tally = UnreadTally()
    /// What the tally should hold: each account's latest count, clamped.
    var expected: [Account: Int] = [:]
    var nextServerID: UInt32 = 1
    while let operation = bytes.next() {
        let account = accounts[Int(operation >> 6) % accounts.count]
        switch operation & 0x07 {
        case 0, 1:
            let rows = (0..<Int(bytes.next() ?? 0) % 8).map { _ in row(bytes.next() ?? 0, bytes.next() ?? 0) }
            let unread = count(bytes.next() ?? 0)
            book.take(AccountUpdate(account: account, notices: rows.map(InboxCycle.Notice.item), unread: .exact(unread)))
            tally.set(unread, for: account)
            expected[account] = min(max(unread, 0), OutsideCount.maximum)
        case 2:
            let ids = (0..<Int(bytes.next() ?? 0) % 8).map { _ in id(bytes.next() ?? 0) }
            book.take(AccountUpdate(
                account: account, notices: [.summary(count: count(bytes.next() ?? 0), isAtLeast: true, rowIDs: ids, isFirstSight: false)],
                unread: .atLeast(count(bytes.next() ?? 0)), read: .marked(ids.filter { $0 % 3 == 0 })))
        case 3:
            book.take(AccountUpdate(account: account, unread: .exact(0), read: .unreadPage([], isComplete: true)))
            let negated = 0 &- count(bytes.next() ?? 0)
            tally.set(negated, for: account)
            expected[account] = min(max(negated, 0), OutsideCount.maximum)
        case 4:
            for entry in book.toShow {
                book.shown(entry, serverID: entry.serverID ?? nextServerID)
                nextServerID &+= 1
            }
            _ = book.takeClosings()
        case 5:
            book.closedByServer(UInt32(bytes.next() ?? 0) % max(nextServerID, 1))
        case 6:
            if operation & 0x08 == 0 { book.serverChanged() } else { book.tokenRejected(for: account) }
        default:
            book.forget(account)
            tally.remove(account)
            expected[account] = nil
        }
        invariant(book.entries.count <= book.limit, "\(book.entries.count) open past the limit of \(book.limit)")
        let onScreen = book.entries.compactMap(\.serverID)
        invariant(Set(onScreen).count == onScreen.count, "one server id twice: \(onScreen)")
        for entry in book.entries {
            if let summary = entry.subject.summary {
                invariant((0...OutsideCount.maximum).contains(summary.count), "a summary of \(summary.count)")
            }
        }
        let sum = expected.values.reduce(0, +)
        invariant(tally.total == sum, "a badge of \(tally.total), not \(sum)")
        invariant((0...accounts.count * OutsideCount.maximum).contains(tally.total), "a badge of \(tally.total)")
    }
}

private let accounts = [
    try! Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc"),
    try! Account(instance: GitbayInstance(parsing: "https://example.com"), username: "bob"),
    try! Account(instance: GitbayInstance(parsing: "https://example.com"), username: "ann"),
]

/// Counts as a hostile server sends them: mostly small, sometimes at the edges of Int.
private func count(_ byte: UInt8) -> Int {
    switch byte {
    case 250: .max
    case 251: .min
    case 252: OutsideCount.maximum
    case 253: OutsideCount.maximum + 1
    case 254: -1
    default: Int(byte)
    }
}

private func id(_ byte: UInt8) -> Int64 {
    byte == 255 ? .max : Int64(byte) + 1
}

private func row(_ idByte: UInt8, _ repoByte: UInt8) -> InboxItem {
    let repo = "o/r\(repoByte % 5)"
    return InboxItem(
        id: id(idByte), repo: repo, kind: .issue, actor: "a", summary: "s", path: "\(repo)/issues/\(idByte)",
        createdAt: "", readAt: nil)
}

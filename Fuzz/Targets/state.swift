import FoundationEssentials
import PushCore

/// The bytes as each state file the daemon reads back: `notifications.json`
/// (`ScreenBook.Saved`), `accounts.json` (`PersistedAccounts`) and `relay-cursor.json`
/// (`RelayCursor`). Decoding either fails (the file is then set aside and rebuilt) or gives values
/// within their bounds: entry ids in `1...maximumEntryID`, server and row ids positive and each
/// once, groups of 1 to `maximumItems` rows of their own repository, counts in `OutsideCount`'s
/// range, marks at least 0, ETags a server could send. What decodes encodes and decodes to
/// itself, and a screen taken over, fed counts at Int's edge and shown, never traps or breaks
/// the book's own invariants.
func fuzz(_ input: UnsafeBufferPointer<UInt8>) {
    let data = Data(input)
    if let saved = try? JSONDecoder().decode(ScreenBook.Saved.self, from: data) {
        check(saved)
    }
    if let state = try? JSONDecoder().decode(PersistedAccounts.self, from: data) {
        for (id, record) in state.accounts {
            invariant(record.deviceID.map { $0 > 0 } ?? true, "\(id): device id \(record.deviceID!)")
            invariant(record.legacyDeviceID.map { $0 > 0 } ?? true, "\(id): legacy device id \(record.legacyDeviceID!)")
            invariant(record.highWater.map { $0 >= 0 } ?? true, "\(id): mark \(record.highWater!)")
            invariant(record.listETag.map(APIResult.isUsableETag) ?? true, "\(id): ETag \(record.listETag!)")
            invariant(record.unread.map { (0...OutsideCount.maximum).contains($0) } ?? true, "\(id): unread \(record.unread!)")
            invariant(
                (record.registrationError?.count ?? 0) <= AccountRecord.maximumRegistrationErrorLength,
                "\(id): a registration error of \(record.registrationError!.count) characters")
        }
        invariant(roundTrips(state), "accounts do not read back as written")
    }
    if let cursor = try? JSONDecoder().decode(RelayCursor.self, from: data) {
        invariant(roundTrips(cursor), "the relay cursor does not read back as written")
    }
}

private func check(_ saved: ScreenBook.Saved) {
    invariant(roundTrips(saved), "the screen does not read back as written")
    invariant(Set(saved.entries.map(\.id)).count == saved.entries.count, "an entry id twice")
    let serverIDs = saved.entries.compactMap(\.serverID)
    invariant(Set(serverIDs).count == serverIDs.count, "a server id twice")
    for entry in saved.entries {
        invariant((1...ScreenBook.maximumEntryID).contains(entry.id), "entry id \(entry.id)")
        invariant(entry.serverID.map { $0 > 0 } ?? true, "server id 0")
        switch entry.subject {
        case .group(let group):
            let ids = group.inboxIDs
            invariant((1...NoticeGroup.maximumItems).contains(ids.count), "a group of \(ids.count) rows")
            invariant(ids.allSatisfy { $0 > 0 } && Set(ids).count == ids.count, "group rows \(ids)")
            invariant(Set(group.fresh).isSubset(of: ids), "fresh \(group.fresh) of \(ids)")
            invariant(group.items.allSatisfy { NoticeGroup.repository(of: $0) == group.key.repository }, "a row of another repository")
        case .summary(let summary):
            invariant((0...OutsideCount.maximum).contains(summary.count), "a summary of \(summary.count)")
            invariant(summary.rowIDs.count <= NoticeSummary.maximumRowIDs && summary.rowIDs.allSatisfy { $0 > 0 }, "summary rows \(summary.rowIDs)")
        case .tokenRejected:
            break
        case .muted(let repository, _):
            invariant(NotificationDestination.repository(parsing: repository) != nil, "muted \(repository)")
        case .said(let said, _):
            let item = NotificationDestination(path: said.path)
            invariant(item != nil && item?.kind != .build, "an answer on \(said.path)")
        }
    }

    // Taken over, as the daemon does at start, and then worked on.
    var book = ScreenBook(limit: 3, adopting: saved, serverOwner: saved.serverOwner)
    let capabilities = NotificationCapabilities(bodyMarkup: true, actions: true, inlineReply: true)
    for entry in book.entries {
        let content = NotificationContent.entry(entry, capabilities: capabilities, namesAccount: true)
        let buttons = stride(from: 0, to: content.actions.count, by: 2).filter { content.actions[$0] != NotificationContent.openAction }
        invariant(buttons.count <= ServerQuirks.defaultButtonsShown, "\(buttons.count) buttons")
    }
    let huge = InboxCycle.Notice.summary(count: .max, isAtLeast: true, rowIDs: [.max], isFirstSight: false)
    for account in Set(saved.entries.map(\.account)) {
        book.take(AccountUpdate(account: account, notices: [huge], unread: .atLeast(.max)))
        book.tokenRejected(for: account)
    }
    var nextServerID = (serverIDs.max() ?? 0) &+ 1
    for entry in book.toShow {
        book.shown(entry, serverID: entry.serverID ?? nextServerID)
        nextServerID &+= 1
    }
    invariant(book.entries.count <= book.limit, "\(book.entries.count) open past the limit of \(book.limit)")
    invariant(Set(book.entries.map(\.id)).count == book.entries.count, "an entry id twice after taking over")
    for entry in book.entries {
        if let summary = entry.subject.summary {
            invariant((0...OutsideCount.maximum).contains(summary.count), "a summary of \(summary.count) after taking over")
        }
    }
}

private func roundTrips<Value: Codable & Equatable>(_ value: Value) -> Bool {
    guard let bytes = try? JSONEncoder().encode(value) else { return false }
    return (try? JSONDecoder().decode(Value.self, from: bytes)) == value
}

/// The notices that would have popped up while an account's popups were held (`Hold`), kept as
/// one summary per account, so the end of a snooze or of quiet hours shows one notification per
/// account ("5 new on gitbay.org as cmc while snoozed"), never a burst one by one. Only notices
/// a rule would pop up belong here: silent ones and hidden ones were never going to pop up.
public struct HeldNotices: Sendable, Equatable, Codable {
    private var held: [Held] = []

    private struct Held: Sendable, Equatable, Codable {
        let account: Account
        var summary: NoticeSummary
    }

    public init() {}

    public var isEmpty: Bool { held.isEmpty }

    /// Adds what came for `account` while held for `reason` (a row already held counts once);
    /// the summary keeps the wording of the hold's start.
    public mutating func hold(_ rows: [InboxItem], of account: Account, reason: Hold.Reason) {
        let index = held.firstIndex { $0.account == account }
        let known = index.map { Set(held[$0].summary.rowIDs) } ?? []
        let ids = rows.map(\.id).filter { !known.contains($0) }
        guard !ids.isEmpty else { return }
        if let index {
            let summary = held[index].summary
            held[index].summary = summary.merging(
                NoticeSummary(count: ids.count, isAtLeast: false, wording: summary.wording, rowIDs: ids))
        } else {
            let wording: NoticeSummary.Wording = reason == .snoozed ? .whileSnoozed : .duringQuietHours
            held.append(Held(account: account, summary: NoticeSummary(count: ids.count, isAtLeast: false, wording: wording, rowIDs: ids)))
        }
    }

    /// Adds a summary that came for `account` while held ("27 unread" at a start, "7 new" from
    /// one poll): it keeps its own wording, and merges with what is held already.
    public mutating func hold(_ summary: NoticeSummary, of account: Account) {
        if let index = held.firstIndex(where: { $0.account == account }) {
            held[index].summary = held[index].summary.merging(summary)
        } else {
            held.append(Held(account: account, summary: summary))
        }
    }

    /// Drops what was read meanwhile (elsewhere, or with `gbnotifyctl read`), so the summary
    /// counts only what is still unread.
    public mutating func removing(_ read: ReadRows, of account: Account) {
        guard let index = held.firstIndex(where: { $0.account == account }) else { return }
        if let left = held[index].summary.removing(read) {
            held[index].summary = left
        } else {
            held.remove(at: index)
        }
    }

    /// The summary to show now that `account`'s hold ended, nil when nothing came; it is no
    /// longer held afterwards.
    public mutating func release(_ account: Account) -> NoticeSummary? {
        guard let index = held.firstIndex(where: { $0.account == account }) else { return nil }
        return held.remove(at: index).summary
    }

    /// The accounts with something held.
    public var accounts: [Account] { held.map(\.account) }

    /// How many notices are held for `account`.
    public func count(of account: Account) -> Int {
        held.first { $0.account == account }?.summary.count ?? 0
    }
}

import FoundationEssentials
import PushCore
import Testing

/// What the daemon reads back from `notifications.json` is bounded where it is decoded, as a
/// server's numbers are (issue 24): an id out of range makes the file undecodable (so it is set
/// aside and rebuilt, `StateFileSafetyTests`, which also has `accounts.json`), a count is
/// clamped, and nothing read back can make later arithmetic overflow.
@Suite struct StoredValueTests {
    static let account = #"{"instance":"https://gitbay.org","user":"cmc"}"#

    static func row(_ id: String, repo: String = "krz/gitbay") -> String {
        #"{"id":\#(id),"repo":"\#(repo)","kind":"issue","actor":"bob","summary":"opened issue","path":"\#(repo)/issues/1","created_at":"2026-09-20T10:00:00Z"}"#
    }

    static func entry(id: String = "1", serverID: String = "7", subject: String = #"{"tokenRejected":{}}"#) -> String {
        #"{"id":\#(id),"account":\#(account),"subject":\#(subject),"serverID":\#(serverID),"needsShowing":false,"isAdopted":false}"#
    }

    static func screen(_ entries: [String]) -> String {
        #"{"version":1,"serverOwner":":1.4","entries":[\#(entries.joined(separator: ","))]}"#
    }

    static func group(items: [String], fresh: String = "[]", repository: String = #""krz/gitbay""#) -> String {
        #"{"group":{"_0":{"key":{"account":\#(account),"repository":\#(repository)},"items":[\#(items.joined(separator: ","))],"fresh":\#(fresh)}}}"#
    }

    static func summary(count: String, rowIDs: String = "[]") -> String {
        #"{"summary":{"_0":{"count":\#(count),"isAtLeast":false,"wording":"unread","rowIDs":\#(rowIDs)}}}"#
    }

    static func decodeScreen(_ text: String) throws -> ScreenBook.Saved {
        try JSONDecoder().decode(ScreenBook.Saved.self, from: Data(text.utf8))
    }

    /// What the daemon writes reads back as it was.
    @Test func aSavedScreenRoundTrips() throws {
        var book = ScreenBook(limit: 3)
        let cmc = try Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc")
        book.take(AccountUpdate(account: cmc, unread: .exact(0)))
        book.take(AccountUpdate(account: cmc, notices: [.item(InboxItem(
            id: 41, repo: "krz/gitbay", kind: .issue, actor: "bob", summary: "opened issue", path: "krz/gitbay/issues/1",
            createdAt: "2026-09-20T10:00:00Z", readAt: nil))], unread: .exact(1)))
        book.take(AccountUpdate(
            account: cmc, notices: [.summary(count: 5, isAtLeast: true, rowIDs: [50, 51], isFirstSight: false)], unread: .atLeast(6)))
        book.tokenRejected(for: cmc)
        for (index, entry) in book.toShow.enumerated() { book.shown(entry, serverID: UInt32(index + 1)) }
        let saved = book.saved(serverOwner: ":1.4")
        #expect(saved.entries.count == 3)
        #expect(try decodeSaved(JSONEncoder().encode(saved)) == saved)
    }

    private func decodeSaved(_ data: Data) throws -> ScreenBook.Saved {
        try JSONDecoder().decode(ScreenBook.Saved.self, from: data)
    }

    /// On cdd6bf3 the first of these decoded, and taking it over trapped on `id + 1`: the daemon
    /// died at every start. The others broke the book's invariants (a group of no rows traps
    /// on `newest`; a server id twice, two entries of one id; ids that are no inbox's).
    @Test(arguments: [
        ("an id at UInt64's edge", screen([entry(id: "18446744073709551615")])),
        ("an id past 2^53", screen([entry(id: "9007199254740993")])),
        ("an id of 0", screen([entry(id: "0")])),
        ("a server id of 0", screen([entry(serverID: "0")])),
        ("a server id past UInt32", screen([entry(serverID: "4294967296")])),
        ("one id twice", screen([entry(id: "3", serverID: "1"), entry(id: "3", serverID: "2")])),
        ("one server id twice", screen([entry(id: "3", serverID: "1"), entry(id: "4", serverID: "1")])),
        ("a group of no rows", screen([entry(subject: group(items: []))])),
        ("a group of 51 rows", screen([entry(subject: group(items: (1...51).map { row(String($0)) }))])),
        ("a row id of 0", screen([entry(subject: group(items: [row("0")]))])),
        ("a negative row id", screen([entry(subject: group(items: [row("-9223372036854775808")]))])),
        ("a row twice", screen([entry(subject: group(items: [row("5"), row("5")]))])),
        ("a row of another repository", screen([entry(subject: group(items: [row("5", repo: "evil/elsewhere")]))])),
        ("a fresh id it does not hold", screen([entry(subject: group(items: [row("5")], fresh: "[6]"))])),
        ("a summary's negative row id", screen([entry(subject: summary(count: "1", rowIDs: "[-1]"))])),
        ("a summary's count that is no number", screen([entry(subject: summary(count: #""many""#))])),
    ])
    func anIDOutOfRangeMakesTheScreenFileUnusable(_ what: String, _ text: String) throws {
        #expect(throws: DecodingError.self, "\(what)") { try Self.decodeScreen(text) }
    }

    /// Counts are clamped as a server's are, so adding to them never overflows.
    @Test(arguments: [("9223372036854775807", OutsideCount.maximum), ("1e300", OutsideCount.maximum), ("-5", 0), ("12", 12)])
    func aSummarysCountIsClamped(_ count: String, _ clamped: Int) throws {
        let saved = try Self.decodeScreen(Self.screen([Self.entry(subject: Self.summary(count: count, rowIDs: "[1,2]"))]))
        try #require(saved.entries.first?.subject.summary?.count == clamped)
        // Taken over and added to: no trap, still within range.
        var book = ScreenBook(limit: 3, adopting: saved, serverOwner: ":1.4")
        let account = book.entries[0].account
        book.take(AccountUpdate(
            account: account, notices: [.summary(count: .max, isAtLeast: false, rowIDs: [3], isFirstSight: false)],
            unread: .atLeast(.max)))
        #expect(book.entries.compactMap(\.subject.summary?.count) == [OutsideCount.maximum])
    }

    /// The largest id still allowed is taken over, and the next entry's id follows it.
    @Test func theLargestStoredIDStillLeavesRoomForTheNext() throws {
        let saved = try Self.decodeScreen(Self.screen([Self.entry(id: String(ScreenBook.maximumEntryID))]))
        var book = ScreenBook(limit: 3, adopting: saved, serverOwner: ":1.4")
        book.tokenRejected(for: try Account(instance: GitbayInstance(parsing: "https://example.com"), username: "bob"))
        #expect(book.entries.map(\.id) == [ScreenBook.maximumEntryID, ScreenBook.maximumEntryID + 1])
    }

    @Test func sumsOfCountsSaturate() {
        #expect(OutsideCount.sum(.max, .max) == OutsideCount.maximum)
        #expect(OutsideCount.sum(.min, .min) == 0)
        #expect(OutsideCount.sum(.max, .min) == 0)
        #expect(OutsideCount.sum(2, 3) == 5)
    }

    /// A server's device id is the stored one: not positive, it is no registration.
    @Test func aDeviceRegistrationWithAnIDThatIsNotPositiveIsNoRegistration() throws {
        for id in ["0", "-1"] {
            let result = APIResult(status: 200, headers: [:], body: Array(#"{"protocol_version":1,"exit_code":0,"data":{"id":\#(id),"status":"registered"}}"#.utf8))
            #expect(throws: APIDecodingError.self) { try result.decode(DeviceRegistration.self) }
        }
    }
}

import PushCore
import Testing

/// Routing a payload to one of the daemon's accounts, or dropping it.
@Suite struct PayloadRouteTests {
    static let cmc = try! Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc")
    static let cmcElsewhere = try! Account(instance: GitbayInstance(parsing: "http://127.0.0.1:8080"), username: "cmc")
    static let accounts = [cmc, cmcElsewhere]

    static func notice(
        instance: String = "https://gitbay.org", user: String = "cmc", path: String = "krz/gitbay/issues/12",
        body: String = "noor opened issue #12", badge: String = "3"
    ) -> String {
        """
        {"aps": {"alert": {"title": "krz/gitbay", "body": "\(body)"}, "badge": \(badge)},
         "path": "\(path)", "instance": "\(instance)", "user": "\(user)"}
        """
    }

    @Test(arguments: ["https://gitbay.org", "https://GITBAY.org/", "https://gitbay.org:443"])
    func aNoticeGoesToTheAccountOfItsNormalisedInstance(_ instance: String) throws {
        let route = try PayloadRoute.route(Self.notice(instance: instance).utf8, among: Self.accounts)
        let destination = try #require(NotificationDestination(path: "krz/gitbay/issues/12"))
        #expect(route == .notice(PushedNotice(account: Self.cmc, destination: destination, text: "noor opened issue #12"), badge: 3))
    }

    @Test func theSameUserOnAnotherInstanceIsAnotherAccount() throws {
        let route = try PayloadRoute.route(Self.notice(instance: "http://127.0.0.1:8080/").utf8, among: Self.accounts)
        guard case .notice(let notice, _) = route else {
            Issue.record("not a notice: \(route)")
            return
        }
        #expect(notice.account == Self.cmcElsewhere)
        #expect(notice.target == PushTarget(account: Self.cmcElsewhere, destination: notice.destination))
    }

    @Test func aMissingBadgeIsNone() throws {
        let route = try PayloadRoute.route(Self.notice(badge: "null").utf8, among: Self.accounts)
        guard case .notice(_, let badge) = route else {
            Issue.record("not a notice: \(route)")
            return
        }
        #expect(badge == nil)
    }

    @Test func aWakeUpGoesToItsAccount() throws {
        let route = try PayloadRoute.route(#"{"instance": "http://127.0.0.1:8080", "user": "cmc"}"#.utf8, among: Self.accounts)
        #expect(route == .wakeUp(Self.cmcElsewhere))
    }

    @Test(arguments: [
        // Usernames are case-sensitive: CMC is somebody else.
        notice(user: "CMC"),
        notice(instance: "https://evil.example"),
        notice(instance: "https://gitbay.org:8443"),
        #"{"instance": "https://evil.example", "user": "cmc"}"#,
    ])
    func aPayloadForNoAccountHereIsDropped(_ json: String) {
        #expect {
            try PayloadRoute.route(json.utf8, among: Self.accounts)
        } throws: { error in
            if case .noSuchAccount = error as? PayloadDrop { true } else { false }
        }
    }

    @Test(arguments: [
        "../../etc/passwd", "krz/gitbay/issues/../../x", "javascript:alert(1)", "https://evil.example/krz/gitbay/issues/1",
        "/krz/gitbay/issues/12", "krz/gitbay", "krz/gitbay/wiki/1", "krz/gitbay/issues/012", "krz/gitbay/issues/12/",
    ])
    func aNoticeThatNamesNoItemIsDropped(_ path: String) {
        #expect(throws: PayloadDrop.unroutablePath) {
            try PayloadRoute.route(Self.notice(path: path).utf8, among: Self.accounts)
        }
    }

    @Test func whatIsNotAPayloadIsDroppedAsUnreadable() {
        #expect(throws: PayloadDrop.unreadable(.notJSON)) { try PayloadRoute.route("<html>".utf8, among: Self.accounts) }
        let huge = String(repeating: " ", count: 1 << 20) + Self.notice()
        #expect(throws: PayloadDrop.unreadable(.tooLarge(byteCount: huge.utf8.count))) {
            try PayloadRoute.route(huge.utf8, among: Self.accounts)
        }
    }

    @Test func dropReasonsAreOneShortPrintableLine() throws {
        let hostile = String(repeating: "a", count: 500) + "\u{1b}[31m\nx"
        let drop = PayloadDrop.noSuchAccount(user: hostile, instance: try GitbayInstance(parsing: "https://evil.example"))
        #expect(!drop.description.contains("\n"))
        #expect(!drop.description.contains("\u{1b}"))
        #expect(drop.description.count < 300)
        #expect(drop.description.hasSuffix(" on https://evil.example"))
        #expect(PayloadDrop.unroutablePath.description == "the push payload's path is not of the form OWNER/REPO/(issues|mrs|builds)/N")
    }

    @Test func aPushedNoticeLooksLikeItsInboxRow() throws {
        let destination = try #require(NotificationDestination(path: "krz/gitbay/mrs/3"))
        let notice = PushedNotice(account: Self.cmc, destination: destination, text: "eve said <b>hi</b>")
        let markup = NotificationCapabilities(bodyMarkup: true, actions: true)
        let row = InboxItem(
            id: 9, repo: "krz/gitbay", kind: .mr, actor: "eve", summary: "said <b>hi</b>", path: "krz/gitbay/mrs/3",
            createdAt: "2026-09-20T10:00:00Z", readAt: nil)
        #expect(NotificationContent.pushed(notice, capabilities: markup) == NotificationContent.item(row, capabilities: markup))
        #expect(NotificationContent.pushed(notice, capabilities: .plain) == NotificationContent.item(row, capabilities: .plain))
        #expect(notice.key == NoticeLedger.Key(row))
    }
}

import Foundation
import PushCore
import Testing

/// Which buttons a notification carries: the config's `buttons`, in its order, within what the
/// server shows.
@Suite struct NoticeButtonsTests {
    static let account = DesktopContentTests.account
    static let full = NotificationCapabilities(bodyMarkup: true, actions: true)
    static let withField = NotificationCapabilities(bodyMarkup: true, actions: true, inlineReply: true)

    /// The servers seen, as they name themselves, and one not known (and none known yet).
    static let servers: [(name: String?, version: String?)] = [
        ("gnome-shell", "43.9"), ("gnome-shell", "48.7"), ("Plasma", "5.27.5"), ("Plasma", "6.3.6"),
        ("dunst", "1.12.2 (2025-03-05)"), ("mako", "0.0.0"), ("lxqt-notificationd", "1.2.1"),
        ("SwayNotificationCenter", "0.7.3"), ("SwayNotificationCenter", "0.11.0"),
        ("Xfce Notify Daemon", "0.9.7"), ("Notification Daemon", "3.20.0"), ("something new", "1"), (nil, nil),
    ]

    @Test func theKeyReadsNamesInTheirOrderOrNone() throws {
        #expect(Config.defaults.buttons == [.markRead, .reply, .react, .mute])
        #expect(try Config.parse("buttons = reply, mark-read, mute\n").buttons == [.reply, .markRead, .mute])
        #expect(try Config.parse("buttons = react,mute\n").buttons == [.react, .mute])
        #expect(try Config.parse("buttons = \"mute\"\n").buttons == [.mute])
        #expect(try Config.parse("buttons = none\n").buttons.isEmpty)
    }

    @Test(arguments: ["reply, like", "reply,, mute", "mute, mute", "Reply", "none, mute", ""])
    func aBadListIsAnErrorThatNamesTheButtons(_ value: String) {
        #expect(throws: ConfigError.self) { try Config.parse("buttons = \(value)\n") }
    }

    @Test func anUnknownNameIsSaidWithTheNamesThatAre() throws {
        let error = try #require(throws: ConfigError.self) { try Config.parse("buttons = reply, like\n") }
        #expect("\(error)".contains("\"like\" is not a button; name some of mark-read, reply, react, mute"))
    }

    @Test func theOrderChoosesWithinTheRoom() {
        let offered: Set<NoticeButton> = [.markRead, .reply, .react, .mute]
        #expect(ButtonBudget(order: [.mute, .react, .reply, .markRead], room: 2).choose(from: offered) == [.mute, .react])
        #expect(ButtonBudget(order: NoticeButton.defaultOrder, room: 3).choose(from: [.markRead, .mute]) == [.markRead, .mute])
        #expect(ButtonBudget(order: [.reply], room: 3).choose(from: offered) == [.reply])
        #expect(ButtonBudget(order: NoticeButton.defaultOrder, room: nil).choose(from: offered) == NoticeButton.defaultOrder)
        #expect(ButtonBudget(order: [], room: nil).choose(from: offered).isEmpty)
    }

    @Test func whatEachServerShows() {
        for (name, version) in Self.servers {
            let shown = ServerQuirks(serverName: name, version: version).buttonsShown
            switch name {
            case "dunst", "mako": #expect(shown == nil, "\(name ?? "none"): a menu holds every action")
            case "SwayNotificationCenter": #expect(shown == nil, "a row of a button per action")
            case "lxqt-notificationd": #expect(shown == 2, "Open is a button there too")
            default: #expect(shown == 3, "\(name ?? "none") \(version ?? "")")
            }
        }
    }

    /// Every order the key can say: each subset of the buttons, in each order.
    static var orders: [[NoticeButton]] {
        func arrangements(_ left: [NoticeButton]) -> [[NoticeButton]] {
            [[]] + left.indices.flatMap { index in
                var rest = left
                let first = rest.remove(at: index)
                return arrangements(rest).map { [first] + $0 }
            }
        }
        return arrangements(NoticeButton.allCases)
    }

    /// What the daemon may show: one notice of an issue, a merge request, a build, one with no
    /// item, several of a repository, summaries with and without their rows, a muted repository.
    static var subjects: [ScreenBook.Subject] {
        func row(id: Int64 = 7, kind: ItemKind = .issue, path: String = "krz/gitbay/issues/12") -> InboxItem {
            DesktopContentTests.row(id: id, kind: kind, path: path)
        }
        return [
            .group(DesktopContentTests.group([row()])),
            .group(DesktopContentTests.group([row(kind: .mr, path: "krz/gitbay/mrs/31")])),
            .group(DesktopContentTests.group([row(kind: .build, path: "krz/gitbay/builds/9")])),
            .group(DesktopContentTests.group([row(path: "krz/gitbay")])),
            .group(DesktopContentTests.group([row(id: 7), row(id: 8, path: "krz/gitbay/issues/13")])),
            .summary(NoticeSummary(count: 4, isAtLeast: false, wording: .new, rowIDs: [1, 2, 3, 4])),
            .summary(NoticeSummary(count: 40, isAtLeast: true, wording: .unread, rowIDs: [])),
            .muted(repository: "krz/gitbay", until: 100),
        ]
    }

    /// A book entry of `subject`, as `notifications.json` holds one.
    static func entry(of subject: ScreenBook.Subject) throws -> ScreenBook.Entry {
        struct Written: Encodable {
            let id: UInt64 = 1
            let account: Account
            let subject: ScreenBook.Subject
            let needsShowing = true
            let isAdopted = false
        }
        return try JSONDecoder().decode(ScreenBook.Entry.self, from: JSONEncoder().encode(Written(account: account, subject: subject)))
    }

    @Test func noServerIsHandedMoreButtonsThanItShows() throws {
        let entries = try Self.subjects.map(Self.entry(of:))
        for (name, version) in Self.servers {
            let quirks = ServerQuirks(serverName: name, version: version)
            for order in Self.orders {
                for capabilities in [Self.full, Self.withField] {
                    for entry in entries {
                        let content = NotificationContent.entry(
                            entry, capabilities: capabilities, namesAccount: false, buttons: quirks.buttons(order: order))
                        let keys = stride(from: 0, to: content.actions.count, by: 2).map { content.actions[$0] }
                        let buttons = keys.filter { $0 != NotificationContent.openAction }
                        #expect(buttons.count <= quirks.buttonsShown ?? Int.max, "\(name ?? "none"): \(keys) for \(order)")
                        #expect(Set(buttons).count == buttons.count)
                    }
                }
            }
        }
    }

    /// swaync advertises the field but draws it only when its config asks: Reply… comes beside
    /// it there, and alone where the field is not advertised (0.7).
    @Test func swayncGetsReplyBesideItsFieldWhichItMayNotDraw() {
        let notice = DesktopContentTests.group([DesktopContentTests.row()])
        let swaync = ServerQuirks(serverName: "SwayNotificationCenter", version: "0.11.0")
        let both = NotificationContent.group(notice, capabilities: Self.withField, buttons: swaync.buttons(order: NoticeButton.defaultOrder))
        #expect(both.actions == [
            "default", "Open", "mark-read", "Mark read", "inline-reply", "Reply", "reply", "Reply…", "react", "👍", "mute", "Mute",
        ])
        #expect(both.inlineReply?.placeholder == "Reply to krz/gitbay#12")
        let old = ServerQuirks(serverName: "SwayNotificationCenter", version: "0.7.3")
        let button = NotificationContent.group(notice, capabilities: Self.full, buttons: old.buttons(order: [.reply]))
        #expect(button.actions == ["default", "Open", "reply", "Reply…"])
        #expect(button.inlineReply == nil)
        let plasma = ServerQuirks(serverName: "Plasma", version: "6.3.6")
        let field = NotificationContent.group(notice, capabilities: Self.withField, buttons: plasma.buttons(order: [.reply]))
        #expect(field.actions == ["default", "Open", "inline-reply", "Reply"])
    }

    @Test func gnomeShellGetsTheFirstThreeThatFitInTheConfigsOrder() {
        let gnome = ServerQuirks(serverName: "gnome-shell", version: "43.9")
        let content = NotificationContent.group(
            DesktopContentTests.group([DesktopContentTests.row()]), capabilities: Self.full,
            buttons: gnome.buttons(order: [.mute, .markRead]))
        #expect(content.actions == ["default", "Open", "mute", "Mute", "mark-read", "Mark read"])
        let none = NotificationContent.group(
            DesktopContentTests.group([DesktopContentTests.row()]), capabilities: Self.full, buttons: gnome.buttons(order: []))
        #expect(none.actions == ["default", "Open"])
    }

    @Test func aSummaryCarriesMarkAllReadOnlyWhenTheKeyNamesIt() {
        let summary = NoticeSummary(count: 4, isAtLeast: false, wording: .new, rowIDs: [1, 2, 3, 4])
        let with = NotificationContent.summary(summary, account: Self.account, capabilities: Self.full)
        #expect(with.actions == ["default", "Open the inbox", "mark-read", "Mark all read"])
        let without = NotificationContent.summary(
            summary, account: Self.account, capabilities: Self.full, buttons: ButtonBudget(order: [.mute, .reply], room: 3))
        #expect(without.actions == ["default", "Open the inbox"])
    }

    @Test func aServerWithATextFieldGetsTheInlineReplyActionNamingTheItem() {
        #expect(NotificationCapabilities(advertised: ["actions", "body-markup", "inline-reply"]) == Self.withField)
        let issue = NotificationContent.group(
            DesktopContentTests.group([DesktopContentTests.row()]), capabilities: Self.withField)
        #expect(issue.actions == ["default", "Open", "mark-read", "Mark read", "inline-reply", "Reply", "react", "👍"])
        #expect(issue.inlineReply?.placeholder == "Reply to krz/gitbay#12")
        #expect(issue.inlineReply?.submitLabel == "Send")
        let mr = NotificationContent.group(
            DesktopContentTests.group([DesktopContentTests.row(kind: .mr, path: "krz/gitbay/mrs/31")]), capabilities: Self.withField)
        #expect(mr.inlineReply?.placeholder == "Reply to krz/gitbay!31")
        // Without the field's action (not chosen, or no actions at all) no hints either.
        let chosenAway = NotificationContent.group(
            DesktopContentTests.group([DesktopContentTests.row()]), capabilities: Self.withField,
            buttons: ButtonBudget(order: [.markRead, .react], room: 3))
        #expect(chosenAway.inlineReply == nil)
        #expect(!chosenAway.actions.contains("inline-reply"))
    }

    @Test func aBuildSeveralNoticesAndAPathWithNoItemGetNoReplyNorReaction() {
        let rows = [
            [DesktopContentTests.row(kind: .build, path: "krz/gitbay/builds/9")],
            [DesktopContentTests.row(id: 7), DesktopContentTests.row(id: 8, path: "krz/gitbay/issues/13")],
            [DesktopContentTests.row(path: "krz/gitbay/wiki/Home")],
        ]
        for group in rows.map(DesktopContentTests.group) {
            let content = NotificationContent.group(group, capabilities: Self.withField, buttons: ButtonBudget(order: NoticeButton.defaultOrder, room: nil))
            #expect(!content.actions.contains("react") && !content.actions.contains("inline-reply") && !content.actions.contains("reply"))
            #expect(content.inlineReply == nil)
        }
    }

    @Test func whatBecameOfAnAnswerIsSaidInPlainWords() {
        let caps = NotificationCapabilities(bodyMarkup: false, actions: true)
        let reacted = NotificationContent.said(.reacted(path: "krz/gitbay/issues/12", reaction: "+1"), account: Self.account, capabilities: caps)
        #expect(reacted.summary == "Reacted 👍 to krz/gitbay#12")
        #expect(reacted.actions == ["undo", "Undo"])
        #expect(!reacted.staysUntilDismissed)
        let replied = NotificationContent.said(.replied(path: "krz/gitbay/mrs/31"), account: Self.account, capabilities: caps)
        #expect(replied.summary == "Replied to krz/gitbay!31")
        #expect(replied.actions.isEmpty)
        let kept = NotificationContent.said(
            .replyKept(path: "krz/gitbay/issues/12", reason: .notPosted(.offline("timeout"))), account: Self.account,
            capabilities: caps)
        #expect(kept.summary == "Your reply to krz/gitbay#12 was not posted")
        #expect(kept.body == "the instance could not be reached (timeout). Nothing is lost: the text is kept, and gbnotifyctl reply cmc@gitbay.org krz/gitbay/issues/12 offers it again.")
        #expect(kept.staysUntilDismissed)
        let failed = NotificationContent.said(
            .reactionFailed(path: "krz/gitbay/issues/12", reaction: "+1", reason: .answered("no such item")), account: Self.account, capabilities: caps)
        #expect(failed.summary == "Could not react 👍 to krz/gitbay#12")
        #expect(failed.staysUntilDismissed)
        let refused = NotificationContent.said(
            .replyNotSent(path: "krz/gitbay/issues/12", reason: .refused(.empty)), account: Self.account, capabilities: caps)
        #expect(refused.body == "The reply is empty; nothing was sent.")
    }

    @Test func anAnswerSaidForAWhileGoesWhenItsTimeIsOverAndAFailureStays() {
        var book = ScreenBook(limit: 3)
        let reacted = book.say(.reacted(path: "krz/gitbay/issues/12", reaction: "+1"), for: Self.account, until: 110)
        let failed = book.say(.replyKept(path: "krz/gitbay/issues/12", reason: .notPosted(.offline("offline"))), for: Self.account, until: nil)
        #expect(reacted.map { ScreenBook.offersUndo($0, at: 109) } == true)
        #expect(reacted.map { ScreenBook.offersUndo($0, at: 110) } == false)
        #expect(failed.map { ScreenBook.offersUndo($0, at: 0) } == false)
        #expect(book.endUndoWindows(at: 100).map(\.until) == [110])
        #expect(book.endUndoWindows(at: 110).isEmpty)
        #expect(book.entries.map(\.id) == [failed?.id])
    }

    @Test func aSavedAnswerOnNoItemIsNotReadBack() throws {
        let good = #"{"version":1,"serverOwner":":1.5","entries":[{"id":1,"account":ACCOUNT,"subject":{"said":{"_0":{"reacted":{"path":"krz/gitbay/issues/12","reaction":"+1"}},"until":5}},"serverID":3,"needsShowing":false,"isAdopted":false}]}"#
        let account = String(decoding: try JSONEncoder().encode(Self.account), as: UTF8.self)
        let saved = try JSONDecoder().decode(ScreenBook.Saved.self, from: Data(good.replacing("ACCOUNT", with: account).utf8))
        #expect(saved.entries.count == 1)
        for path in ["krz/gitbay/builds/3", "../../x", "krz/gitbay"] {
            let bad = good.replacing("ACCOUNT", with: account).replacing("krz/gitbay/issues/12", with: path)
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(ScreenBook.Saved.self, from: Data(bad.utf8)) }
        }
    }
}

import PushCore
@testable import TerminalView
import Testing

/// The view's answers, decided without a terminal: the reply key's editor and what becomes of
/// its text, a kept draft offered again, `show --reply`, and the reaction picker.
@Suite struct ViewAnswersTests {
    static let issue12 = ViewStateTests.issue12
    static let size = TerminalSize(rows: 16, columns: 70)

    static func issue(reactions: [Reaction]) -> ItemDetails {
        guard case .issue(let issue) = Items.issue else { preconditionFailure("not an issue") }
        return .issue(IssueDetails(discussion: Discussion(
            number: 12, title: issue.discussion.title, state: "open", author: "alice", createdAt: issue.discussion.createdAt,
            reactions: reactions)))
    }

    static let draft = DraftRecord.Draft(
        account: Items.account, path: "krz/gitbay/issues/12", text: "Kept words.", savedAt: 1_800_000_000,
        failure: .notPosted(.offline("timeout")))

    static func status(_ state: ViewState) -> String { state.frame().last?.text ?? "" }

    @Test func theReplyKeyOpensTheEditorOnTheTemplateAndPostsWhatWasWritten() {
        var state = ViewStateTests.itemView(size: TerminalSize(rows: 16, columns: 120))
        #expect(Self.status(state).hasPrefix("↑↓ PgUp PgDn g G scroll · r mark read · c reply · e react · o open in browser"))
        let template = CommentText.editorTemplate(for: Self.issue12, account: Items.account.displayName)
        #expect(state.handle(.key(.character("c"))) == [.compose(screen: 1, template: template)])

        let effects = state.handle(.composed(screen: 1, .text("Looks good.", file: "/tmp/r.md")))
        #expect(effects == [.reply(
            screen: 1, account: Items.account, destination: Self.issue12, comment: try! CommentText("Looks good."), file: "/tmp/r.md",
            offered: false)])
        #expect(Self.status(state).hasPrefix("Posting the reply to krz/gitbay#12…"))

        let posted = ReplyOutcome(isPosted: true, lines: ["Replied to krz/gitbay#12 as cmc@gitbay.org."])
        #expect(state.handle(.replied(screen: 1, posted)) == [
            .loadItem(screen: 1, account: "cmc@gitbay.org", destination: Self.issue12),
            .loadDraft(screen: 1, account: Items.account, destination: Self.issue12),
            .markRead(account: Items.account, path: Self.issue12.path),
        ])
        #expect(Self.status(state).hasPrefix("Replied to krz/gitbay#12 as cmc@gitbay.org."))
        // Answered, so marked read; the status line still says the reply was posted.
        _ = state.handle(.markedRead(account: Items.account, path: Self.issue12.path, .success(1)))
        #expect(Self.status(state).hasPrefix("Replied to krz/gitbay#12 as cmc@gitbay.org."))
        // A later r says what it marked, as ever.
        _ = state.handle(.markedRead(account: Items.account, path: Self.issue12.path, .success(0)))
        #expect(Self.status(state).hasPrefix("Nothing unread for krz/gitbay#12"))
    }

    /// A reply not posted leaves the item unread.
    @Test func aReplyNotPostedMarksNothingRead() {
        var state = ViewStateTests.itemView(size: TerminalSize(rows: 16, columns: 120))
        _ = state.handle(.key(.character("c")))
        _ = state.handle(.composed(screen: 1, .text("Looks good.", file: "/tmp/r.md")))
        let kept = ReplyOutcome(isPosted: false, lines: ["not posted to krz/gitbay#12: offline", "the reply is kept as a draft"])
        #expect(!state.handle(.replied(screen: 1, kept)).contains { if case .markRead = $0 { true } else { false } })
    }

    @Test func anEmptyTextCancelsAndATooLongOneIsRefusedWithItsFileNamed() {
        var state = ViewStateTests.itemView(size: TerminalSize(rows: 16, columns: 200))
        _ = state.handle(.key(.character("c")))
        #expect(state.handle(.composed(screen: 1, .cancelled)) == [])
        #expect(Self.status(state).hasPrefix("The reply is empty; nothing was sent"))
        _ = state.handle(.key(.character("c")))
        let long = String(repeating: "a", count: CommentText.maximumBytes + 1)
        #expect(state.handle(.composed(screen: 1, .text(long, file: "/tmp/r.md"))) == [])
        #expect(Self.status(state).contains("longer than gitbay's limit of 65536 bytes"))
        #expect(Self.status(state).contains("(the text is kept in /tmp/r.md)"))
        _ = state.handle(.key(.character("c")))
        #expect(state.handle(.composed(screen: 1, .failed("the editor vi exited with 1; nothing was sent"))) == [])
        #expect(Self.status(state).hasPrefix("The editor vi exited with 1; nothing was sent"))
    }

    /// A reply kept when it could not be posted is said when its item is shown, the editor
    /// starts from it, and what was posted then takes its place.
    @Test func aKeptDraftIsOfferedAndTheEditorStartsFromIt() {
        var state = ViewStateTests.itemView(size: TerminalSize(rows: 16, columns: 120))
        _ = state.handle(.draftLoaded(screen: 1, .success(Self.draft)))
        #expect(Self.status(state).hasPrefix("Your reply could not be posted (the instance could not be reached (timeout)) and is kept: c edits and sends it"))
        let template = CommentText.editorTemplate(for: Self.issue12, account: Items.account.displayName, draft: "Kept words.")
        #expect(state.handle(.key(.character("c"))) == [.compose(screen: 1, template: template)])
        guard case .reply(_, _, _, _, _, let offered) = state.handle(.composed(screen: 1, .text("Kept words.", file: "/f"))).first else {
            Issue.record("no reply effect")
            return
        }
        #expect(offered)
        let kept = ReplyOutcome(isPosted: false, lines: ["not posted to krz/gitbay#12: offline", "the reply is kept as a draft"])
        _ = state.handle(.replied(screen: 1, kept))
        #expect(Self.status(state).hasPrefix("Not posted to krz/gitbay#12: offline; the reply is kept as a draft"))
    }

    @Test func showReplyOpensTheEditorOnceTheItemAndItsDraftAreRead() {
        var (state, _) = ViewState.item(account: "cmc@gitbay.org", destination: Self.issue12, size: Self.size, now: Items.now, reply: true)
        #expect(state.handle(.itemLoaded(screen: 1, account: Items.account, .success(Items.issue))) == [
            .loadDraft(screen: 1, account: Items.account, destination: Self.issue12),
        ])
        let template = CommentText.editorTemplate(for: Self.issue12, account: Items.account.displayName, draft: "Kept words.")
        #expect(state.handle(.draftLoaded(screen: 1, .success(Self.draft))) == [.compose(screen: 1, template: template)])
        // Once: the draft read again after the reply opens nothing.
        #expect(state.handle(.draftLoaded(screen: 1, .success(nil))) == [])
    }

    @Test func aBuildTakesNoReplyAndNoReaction() {
        var state = ViewStateTests.itemView(Items.build, size: Self.size)
        #expect(state.handle(.key(.character("c"))) == [])
        #expect(Self.status(state).hasPrefix("A build takes no reply"))
        #expect(state.handle(.key(.character("e"))) == [])
        #expect(Self.status(state).hasPrefix("A build takes no reaction"))
        #expect(!Self.status(state).contains("c reply"))
    }

    /// `e` shows every reaction the instance knows with its digit; a digit sets it, or takes
    /// it back when it is the account's; anything else closes the picker.
    @Test func thePickerSetsAnyReactionAndTakesBackTheAccountsOwn() {
        var state = ViewStateTests.itemView(Self.issue(reactions: [Reaction(reaction: "rocket", count: 2, me: true)]), size: Self.size)
        #expect(state.handle(.key(.character("e"))) == [])
        let frame = state.frame().map(\.text)
        #expect(frame.contains { $0.hasPrefix(" React to krz/gitbay#12:") })
        for (offset, name) in Reaction.names.enumerated() {
            #expect(frame.contains { $0.hasPrefix("   \(offset + 1)  \(name)") }, "\(name)")
        }
        #expect(frame.contains { $0.hasPrefix("   7  rocket    ×2 (you: 7 takes it back)") })
        #expect(Self.status(state).hasPrefix("1-8 react (again: take back) · Esc cancel"))

        #expect(state.handle(.key(.character("3"))) == [
            .react(screen: 1, account: Items.account, destination: Self.issue12, reaction: "laugh", remove: false),
        ])
        #expect(!state.frame().map(\.text).contains { $0.hasPrefix(" React to") })
        _ = state.handle(.key(.character("e")))
        #expect(state.handle(.key(.character("7"))) == [
            .react(screen: 1, account: Items.account, destination: Self.issue12, reaction: "rocket", remove: true),
        ])
        _ = state.handle(.key(.character("e")))
        #expect(state.handle(.key(.escape)) == [])
        #expect(state.handle(.key(.character("9"))) == [])
        // q closes the picker, not the view.
        _ = state.handle(.key(.character("e")))
        _ = state.handle(.key(.character("q")))
        #expect(state.exitStatus == nil)
    }
}

import PushCore

/// The view's answers on an issue or a merge request: a reply written in the user's editor and
/// posted once (a kept draft offered again), and reactions, +1 at once or any of the instance's
/// from the picker, each set or taken back.
extension ViewState {
    /// The reaction `+` sets on the item shown, or takes back when the account already gave it.
    static let keyReaction = "+1"

    /// The item on top when it is a loaded issue or merge request of a known account; else says
    /// that `refusal` cannot be done to it.
    private mutating func discussion(refusing refusal: @autoclosure () -> String) -> (index: Int, item: ItemScreen, account: Account, reactions: [Reaction])? {
        guard let index = screens.indices.last, case .item(let item) = screens[index].kind, let account = item.account,
              case .loaded(let details) = item.content
        else { return nil }
        switch details {
        case .issue(let issue): return (index, item, account, issue.discussion.reactions)
        case .mergeRequest(let mr): return (index, item, account, mr.discussion.reactions)
        case .build:
            message = Message(text: refusal(), kind: .failed)
            return nil
        }
    }

    // MARK: - Reactions

    /// Sets `reaction` on the item shown, or takes it back when the account gave it.
    mutating func toggle(_ reaction: String) -> [ViewEffect] {
        guard let (index, item, account, reactions) = discussion(refusing: Self.noReaction) else { return [] }
        let remove = reactions.contains { $0.reaction == reaction && $0.me }
        let text = remove
            ? Localized.text("Taking back {reaction}…", note: "The terminal view's status line while a reaction is removed. {reaction}: its name, \"+1\", \"heart\".", ["reaction": reaction])
            : Localized.text("Reacting {reaction}…", note: "The terminal view's status line while a reaction is set. {reaction}: its name, \"+1\", \"heart\".", ["reaction": reaction])
        message = Message(text: text, kind: .underWay)
        return [.react(screen: screens[index].id, account: account, destination: item.destination, reaction: reaction, remove: remove)]
    }

    private static var noReaction: String {
        Localized.text("A build takes no reaction", note: "The terminal view's status line: a reaction key on a build's page.")
    }

    /// The reaction key: the picker of every reaction the instance knows.
    mutating func openPicker() {
        guard let (index, item, _, _) = discussion(refusing: Self.noReaction) else { return }
        var picking = item
        picking.isPicking = true
        screens[index].kind = .item(picking)
    }

    /// A key while the picker is open: a digit reacts, anything else closes it.
    mutating func pick(_ key: Key, on index: Int) -> [ViewEffect] {
        guard case .item(var item) = screens[index].kind else { return [] }
        item.isPicking = false
        screens[index].kind = .item(item)
        guard case .character(let character) = key, let number = character.wholeNumberValue,
              Reaction.names.indices.contains(number - 1)
        else { return [] }
        return toggle(Reaction.names[number - 1])
    }

    /// The picker's lines: each reaction with its digit, its count, and whether it is yours.
    func pickerLines(_ item: ItemScreen) -> [StyledLine] {
        guard case .loaded(let details) = item.content else { return [] }
        let given: [Reaction] = switch details {
        case .issue(let issue): issue.discussion.reactions
        case .mergeRequest(let mr): mr.discussion.reactions
        case .build: []
        }
        var lines = [StyledLine(
            Localized.text("React to {item}:", note: "The heading of the terminal view's reaction picker. {item}: owner/repo#12.", ["item": item.destination.shortName]),
            Style(bold: true))]
        for (offset, name) in Reaction.names.enumerated() {
            var line = StyledLine("  \(offset + 1)  ", .colored(.yellow))
            line.append(name + String(repeating: " ", count: max(10 - name.count, 0)))
            if let reaction = given.first(where: { $0.reaction == name }) {
                line.append("×\(reaction.count)", .dim)
                if reaction.me { line.append(
                    " " + Localized.text(
                        "(you: {digit} takes it back)",
                        note: "In the terminal view's reaction picker, beside a reaction the account gave. {digit}: the key that removes it.",
                        ["digit": String(offset + 1)]),
                    .dim) }
            }
            lines.append(line)
        }
        return lines
    }

    mutating func reacted(screen id: Int, reaction: String, remove: Bool, failure: ReadProblem?) -> [ViewEffect] {
        guard let index = screens.firstIndex(where: { $0.id == id }), case .item(let item) = screens[index].kind else { return [] }
        if let failure {
            message = Message(
                text: Localized.text("Could not react: {problem}", note: "The terminal view's status line. {problem}: why, in English.", ["problem": "\(failure)"]),
                kind: .failed)
            return []
        }
        let values: KeyValuePairs = ["reaction": reaction, "item": item.destination.shortName]
        let done = remove
            ? Localized.text("Took back {reaction} on {item}", note: "The terminal view's status line. {reaction}: the reaction's name; {item}: owner/repo#12.", values)
            : Localized.text("Reacted {reaction} on {item}", note: "The terminal view's status line. {reaction}: the reaction's name; {item}: owner/repo#12.", values)
        message = Message(text: done, kind: .done)
        return [loadEffect(index)]
    }

    // MARK: - Replies

    /// The reply key: the editor, started from the kept draft when there is one.
    mutating func startReply() -> [ViewEffect] {
        guard let (index, item, account, _) = discussion(refusing: Localized.text("A build takes no reply", note: "The terminal view's status line: the reply key on a build's page."))
        else { return [] }
        let template = CommentText.editorTemplate(for: item.destination, account: account.displayName, draft: item.draft?.text ?? "")
        return [.compose(screen: screens[index].id, template: template)]
    }

    mutating func draftLoaded(screen id: Int, _ result: Result<DraftRecord.Draft?, ReadProblem>) -> [ViewEffect] {
        guard let index = screens.firstIndex(where: { $0.id == id }), case .item(var item) = screens[index].kind else { return [] }
        switch result {
        case .success(let draft):
            item.draft = draft
            if let draft, message == nil {
                message = Message(
                    text: Localized.text(
                        "Your reply could not be posted ({reason}) and is kept: {keys} edits and sends it",
                        note: "The terminal view's status line on an item with a kept draft. {reason}: why (a message of its own, or in English from an older gbnotify); {keys}: the reply key.",
                        ["reason": draft.spokenReason, "keys": ViewKeys.reply.keys]),
                    kind: .offer)
            }
        case .failure(let problem):
            message = Message(
                text: Localized.text("Could not read the kept drafts: {problem}", note: "The terminal view's status line. {problem}: why, in English.", ["problem": "\(problem)"]),
                kind: .failed)
        }
        let replyNow = item.replyAtOnce
        item.replyAtOnce = false
        screens[index].kind = .item(item)
        return replyNow && index == screens.count - 1 ? startReply() : []
    }

    mutating func composed(screen id: Int, _ composed: ComposedReply) -> [ViewEffect] {
        guard let index = screens.firstIndex(where: { $0.id == id }), case .item(let item) = screens[index].kind,
              let account = item.account
        else { return [] }
        switch composed {
        case .cancelled:
            message = Message(text: CommentTextError.empty.spoken.capitalizedFirst, kind: .failed)
            return []
        case .failed(let words):
            message = Message(text: words.capitalizedFirst, kind: .failed)
            return []
        case .text(let text, let file):
            let comment: CommentText
            do {
                comment = try CommentText(text)
            } catch {
                message = Message(text: CommentText.notSent(error.spoken.capitalizedFirst, keptIn: file), kind: .failed)
                return []
            }
            message = Message(
                text: Localized.text(
                    "Posting the reply to {item}…", note: "The terminal view's status line while a reply is sent. {item}: owner/repo#12.",
                    ["item": item.destination.shortName]),
                kind: .underWay)
            return [.reply(
                screen: id, account: account, destination: item.destination, comment: comment, file: file, offered: item.draft != nil)]
        }
    }

    mutating func replied(screen id: Int, _ outcome: ReplyOutcome) -> [ViewEffect] {
        guard let index = screens.firstIndex(where: { $0.id == id }), case .item(let item) = screens[index].kind,
              let account = item.account
        else { return [] }
        message = Message(text: outcome.lines.joined(separator: "; ").capitalizedFirst, kind: outcome.isPosted ? .done : .failed)
        // Read again: the thread with the reply in it, and the draft as it is now.
        var effects = [loadEffect(index), ViewEffect.loadDraft(screen: id, account: account, destination: item.destination)]
        if outcome.isPosted {
            // Answered, so read, as after a reply from the popup: the notification goes at the
            // daemon's next poll.
            markingReadAfterReply.insert(item.destination.path)
            effects.append(.markRead(account: account, path: item.destination.path))
        }
        return effects
    }
}

extension String {
    /// "The reply…" from "the reply…": a sentence of its own on the status line.
    fileprivate var capitalizedFirst: String {
        guard let first else { return self }
        return first.uppercased() + dropFirst()
    }
}

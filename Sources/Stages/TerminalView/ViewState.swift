import PushCore

extension NotificationDestination {
    /// How the view names an item: `krz/gitbay#12`, a merge request `krz/gitbay!31`.
    var shortName: String { "\(repository)\(kind == .mr ? "!" : "#")\(number)" }
}

/// Everything the view shows, and how keys and answers change it: a stack of screens (the
/// inbox, and an item opened from it), each scrolled on its own, and one line of status. Pure:
/// events in, effects out; the loop (`ViewLoop`) runs the effects and draws `frame()`.
public struct ViewState {
    /// Set when the view is to end: 0 for `q`, 130 for ^C.
    public private(set) var exitStatus: Int32?
    var screens: [Screen]
    var message: Message?
    /// Items marked read because a reply to them was posted: the status line keeps saying the
    /// reply was posted rather than how many notices were marked.
    var markingReadAfterReply: Set<String> = []
    private(set) var size: TerminalSize
    /// Seconds since the epoch, for ages; the moment the view started.
    private let now: Double
    private var nextScreenID = 1

    struct Message: Equatable {
        enum Kind {
            case done
            case failed
            /// Something under way; the answer replaces it.
            case underWay
            /// Something the user may do now (a kept draft to send).
            case offer
        }

        let text: String
        let kind: Kind
    }

    enum Content<Value: Equatable>: Equatable {
        case loading
        case loaded(Value)
        case failed(ReadProblem)
    }

    struct Screen {
        let id: Int
        var kind: Kind
        /// The first body line shown.
        var scroll = 0
        /// The content laid out for the current width.
        var lines: [StyledLine] = []

        enum Kind {
            case item(ItemScreen)
            case inbox(InboxScreen)
        }
    }

    struct ItemScreen {
        /// The account as given (`USER@HOST`), until the item's answer names it.
        let accountName: String
        var account: Account?
        let destination: NotificationDestination
        var content: Content<ItemDetails> = .loading
        /// The reply kept for it when one could not be posted, offered by the reply key.
        var draft: DraftRecord.Draft?
        /// The reaction picker is open.
        var isPicking = false
        /// The editor opens as soon as the item and its draft are read (`show --reply`).
        var replyAtOnce = false
    }

    struct InboxScreen {
        let accountName: String?
        var content: Content<[AccountInbox]> = .loading
        var rows: [InboxLayout.Row] = []
        var selected = 0
        /// Something was marked read since it was read: read it again when it is shown.
        var isStale = false
    }

    // MARK: - Starting

    /// The view of one item: `gbnotifyctl show ACCOUNT PATH`; with `reply`, the reply's editor
    /// opens once the item is read (`show --reply`).
    public static func item(
        account: String, destination: NotificationDestination, size: TerminalSize, now: Double, reply: Bool = false
    ) -> (ViewState, [ViewEffect]) {
        var state = ViewState(size: size, now: now)
        let effect = state.push(.item(ItemScreen(accountName: account, destination: destination, replyAtOnce: reply)))
        return (state, [effect])
    }

    /// The inbox: `gbnotifyctl inbox [ACCOUNT]`.
    public static func inbox(account: String?, size: TerminalSize, now: Double) -> (ViewState, [ViewEffect]) {
        var state = ViewState(size: size, now: now)
        let effect = state.push(.inbox(InboxScreen(accountName: account)))
        return (state, [effect])
    }

    private init(size: TerminalSize, now: Double) {
        self.size = size
        self.now = now
        screens = []
    }

    // MARK: - Events

    public mutating func handle(_ event: ViewEvent) -> [ViewEffect] {
        switch event {
        case .key(let key):
            message = nil
            return handle(key)
        case .resized(let newSize):
            size = newSize
            for index in screens.indices { relayout(index) }
            return []
        case .itemLoaded(let id, let account, let result):
            guard let index = screens.firstIndex(where: { $0.id == id }), case .item(var item) = screens[index].kind else { return [] }
            // Known even when the item is not: its page may still open, its notices be read.
            item.account = account ?? item.account
            switch result {
            case .success(let details): item.content = .loaded(details)
            case .failure(let problem): item.content = .failed(problem)
            }
            screens[index].kind = .item(item)
            finishLoading(index)
            // An issue or a merge request may have a reply kept for it.
            guard let account = item.account, case .loaded(let details) = item.content else { return [] }
            if case .build = details { return [] }
            return [.loadDraft(screen: id, account: account, destination: item.destination)]
        case .inboxLoaded(let id, let result):
            guard let index = screens.firstIndex(where: { $0.id == id }), case .inbox(var inbox) = screens[index].kind else { return [] }
            switch result {
            case .success(let inboxes): inbox.content = .loaded(inboxes)
            case .failure(let problem): inbox.content = .failed(problem)
            }
            screens[index].kind = .inbox(inbox)
            finishLoading(index)
            return []
        case .markedRead(let account, let path, let result):
            return markedRead(account: account, path: path, result)
        case .opened(.success(let url)):
            message = Message(
                text: Localized.text("Opened {url} in the browser", note: "The terminal view's status line. {url}: what was opened.", ["url": "\(url)"]),
                kind: .done)
            return []
        case .opened(.failure(let problem)):
            message = Message(
                text: Localized.text("Could not open it: {problem}", note: "The terminal view's status line. {problem}: why, in English.", ["problem": "\(problem)"]),
                kind: .failed)
            return []
        case .reacted(let id, let reaction, let remove, let failure):
            return reacted(screen: id, reaction: reaction, remove: remove, failure: failure)
        case .draftLoaded(let id, let result):
            return draftLoaded(screen: id, result)
        case .composed(let id, let written):
            return composed(screen: id, written)
        case .replied(let id, let outcome):
            return replied(screen: id, outcome)
        }
    }

    private mutating func handle(_ key: Key) -> [ViewEffect] {
        guard let top = screens.indices.last else { return [] }
        if case .item(let item) = screens[top].kind, item.isPicking, key != .control("c") {
            return pick(key, on: top)
        }
        switch key {
        case .control("c"):
            exitStatus = 130
        case .character("q"):
            if screens.count > 1 { return pop() }
            exitStatus = 0
        case .escape, .left, .backspace, .character("h"):
            if screens.count > 1 { return pop() }
        case ViewKeys.reload.key:
            return [reload(top)]
        case ViewKeys.open.key:
            guard let target = currentTarget() else {
                message = Message(text: Localized.text("Nothing to open yet", note: "The terminal view's status line, after o."), kind: .failed)
                return []
            }
            return [.open(target)]
        case ViewKeys.markRead.key:
            guard let (account, path) = currentItemPath() else {
                message = Message(text: Localized.text("Nothing to mark read", note: "The terminal view's status line, after r."), kind: .failed)
                return []
            }
            message = Message(
                text: Localized.text("Marking {item} read…", note: "The terminal view's status line. {item}: as krz/gitbay#12.", ["item": Self.name(of: path)]),
                kind: .underWay)
            return [.markRead(account: account, path: path)]
        case ViewKeys.thumbsUp.key:
            return toggle(Self.keyReaction)
        case ViewKeys.react.key:
            openPicker()
        case ViewKeys.reply.key:
            return startReply()
        case .enter, .right, .character("l"):
            return openSelectedRow()
        case .up, .character("k"): move(.by(-1))
        case .down, .character("j"): move(.by(1))
        case .pageUp, .character("b"): move(.by(-page))
        case .pageDown, .character(" "), .character("f"): move(.by(page))
        case .home, .character("g"): move(.start)
        case .end, .character("G"): move(.end)
        default:
            break
        }
        return []
    }

    // MARK: - Screens

    private mutating func push(_ kind: Screen.Kind) -> ViewEffect {
        let id = nextScreenID
        nextScreenID += 1
        screens.append(Screen(id: id, kind: kind))
        relayout(screens.count - 1)
        return loadEffect(screens.count - 1)
    }

    private mutating func pop() -> [ViewEffect] {
        screens.removeLast()
        let top = screens.count - 1
        guard case .inbox(var inbox) = screens[top].kind, inbox.isStale else { return [] }
        inbox.isStale = false
        screens[top].kind = .inbox(inbox)
        return [reload(top)]
    }

    private mutating func reload(_ index: Int) -> ViewEffect {
        message = Message(text: "Reloading…", kind: .underWay)
        return loadEffect(index)
    }

    func loadEffect(_ index: Int) -> ViewEffect {
        let screen = screens[index]
        switch screen.kind {
        case .item(let item):
            return .loadItem(screen: screen.id, account: item.account?.reference ?? item.accountName, destination: item.destination)
        case .inbox(let inbox):
            return .loadInbox(screen: screen.id, account: inbox.accountName)
        }
    }

    private mutating func finishLoading(_ index: Int) {
        if message?.kind == .underWay { message = nil }
        relayout(index)
    }

    /// Enter on an inbox row: its item, from its own account.
    private mutating func openSelectedRow() -> [ViewEffect] {
        guard case .inbox(let inbox) = screens.last?.kind, inbox.rows.indices.contains(inbox.selected) else { return [] }
        let row = inbox.rows[inbox.selected]
        guard let destination = NotificationDestination(path: row.item.path) else {
            message = Message(
                text: Localized.text(
                    "This notice names no issue, merge request or build; o opens the inbox in the browser",
                    note: "The terminal view's status line, after Enter. Keep the key, o."),
                kind: .failed)
            return []
        }
        return [push(.item(ItemScreen(accountName: row.account.reference, account: row.account, destination: destination)))]
    }

    private func currentTarget() -> PushTarget? {
        switch screens.last?.kind {
        case .item(let item):
            return item.account.map { PushTarget(account: $0, destination: item.destination) }
        case .inbox(let inbox):
            if inbox.rows.indices.contains(inbox.selected) {
                let row = inbox.rows[inbox.selected]
                return PushTarget(account: row.account, destination: NotificationDestination(path: row.item.path))
            }
            guard case .loaded(let inboxes) = inbox.content, let first = inboxes.first else { return nil }
            return PushTarget(account: first.account, destination: nil)
        case nil:
            return nil
        }
    }

    private func currentItemPath() -> (Account, String)? {
        switch screens.last?.kind {
        case .item(let item):
            return item.account.map { ($0, item.destination.path) }
        case .inbox(let inbox):
            guard inbox.rows.indices.contains(inbox.selected) else { return nil }
            let row = inbox.rows[inbox.selected]
            return (row.account, row.item.path)
        case nil:
            return nil
        }
    }

    private mutating func markedRead(account: Account, path: String, _ result: Result<Int, ReadProblem>) -> [ViewEffect] {
        let afterReply = markingReadAfterReply.remove(path) != nil
        switch result {
        case .success where afterReply:
            break
        case .failure(let problem):
            message = Message(
                text: Localized.text(
                    "Could not mark {item} read: {problem}", note: "The terminal view's status line. {item}: as krz/gitbay#12; {problem}: why, in English.",
                    ["item": Self.name(of: path), "problem": "\(problem)"]),
                kind: .failed)
            return []
        case .success(let count):
            message = Message(
                text: count == 0
                    ? Localized.text(
                        "Nothing unread for {item} on {account}", note: "The terminal view's status line. {item}: as krz/gitbay#12; {account}: user@host.",
                        ["item": Self.name(of: path), "account": account.displayName])
                    : Localized.plural(
                        "Marked {count} notice of {item} read", "Marked {count} notices of {item} read", count: count,
                        note: "The terminal view's status line. {item}: as krz/gitbay#12.", ["item": Self.name(of: path)]),
                kind: .done)
        }
        // Every inbox in the stack is out of date: the one on top is read again now.
        var effects: [ViewEffect] = []
        for index in screens.indices {
            guard case .inbox(var inbox) = screens[index].kind else { continue }
            if index == screens.count - 1 {
                effects.append(loadEffect(index))
            } else {
                inbox.isStale = true
                screens[index].kind = .inbox(inbox)
            }
        }
        return effects
    }

    /// `krz/gitbay#12` for a path that names an item, else the path.
    static func name(of path: String) -> String {
        NotificationDestination(path: path)?.shortName ?? path
    }

    private mutating func relayout(_ index: Int) {
        let width = contentWidth
        switch screens[index].kind {
        case .item(let item):
            switch item.content {
            case .loading:
                screens[index].lines = [StyledLine("Loading \(item.destination.shortName) for \(item.accountName)…", .dim)]
            case .loaded(let details):
                screens[index].lines = ItemLayout.lines(details, width: width, now: now)
            case .failed(let problem):
                screens[index].lines = ProblemLayout.lines(problem, width: width)
            }
            scroll(index, to: screens[index].scroll)
        case .inbox(var inbox):
            switch inbox.content {
            case .loading:
                screens[index].lines = [StyledLine(Localized.text("Loading the inbox…", note: "The terminal view while the inbox is read."), .dim)]
                inbox.rows = []
            case .loaded(let inboxes):
                let selectedRow = inbox.rows.indices.contains(inbox.selected) ? inbox.rows[inbox.selected] : nil
                (screens[index].lines, inbox.rows) = InboxLayout.lines(inboxes, width: width, now: now)
                // The selection stays on its row when the row is still there, else on its place.
                if let selectedRow, let same = inbox.rows.firstIndex(where: { $0.item.id == selectedRow.item.id && $0.account == selectedRow.account }) {
                    inbox.selected = same
                }
                inbox.selected = min(inbox.selected, max(inbox.rows.count - 1, 0))
            case .failed(let problem):
                screens[index].lines = ProblemLayout.lines(problem, width: width)
                inbox.rows = []
            }
            screens[index].kind = .inbox(inbox)
            reveal(index)
        }
    }
}

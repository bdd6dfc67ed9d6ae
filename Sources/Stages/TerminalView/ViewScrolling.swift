/// Scrolling an item and moving the inbox's selection, within the lines laid out for the
/// terminal's size.
extension ViewState {
    /// Body lines on screen: all but the title and status lines.
    var bodyHeight: Int { max(size.rows - 2, 0) }

    var page: Int { max(bodyHeight - 1, 1) }

    /// The content's width: the screen less a column of margin each side.
    var contentWidth: Int { max(size.columns - 2, 1) }

    enum Movement {
        case by(Int)
        case start
        case end
    }

    /// Moves the inbox's selection, or scrolls an item.
    mutating func move(_ movement: Movement) {
        guard let index = screens.indices.last else { return }
        if case .inbox(var inbox) = screens[index].kind, !inbox.rows.isEmpty {
            let target = switch movement {
            case .by(let delta): inbox.selected + delta
            case .start: 0
            case .end: inbox.rows.count - 1
            }
            inbox.selected = min(max(target, 0), inbox.rows.count - 1)
            screens[index].kind = .inbox(inbox)
            reveal(index)
            return
        }
        switch movement {
        case .by(let delta): scroll(index, to: screens[index].scroll + delta)
        case .start: scroll(index, to: 0)
        case .end: scroll(index, to: screens[index].lines.count)
        }
    }

    mutating func scroll(_ index: Int, to line: Int) {
        let last = max(screens[index].lines.count - bodyHeight, 0)
        screens[index].scroll = min(max(line, 0), last)
    }

    /// Scrolls the inbox so that the selected row shows, with its account's heading when it
    /// is the account's first row.
    mutating func reveal(_ index: Int) {
        guard case .inbox(let inbox) = screens[index].kind, inbox.rows.indices.contains(inbox.selected) else {
            scroll(index, to: screens[index].scroll)
            return
        }
        let row = inbox.rows[inbox.selected]
        let isFirstOfAccount = inbox.selected == 0 || inbox.rows[inbox.selected - 1].account != row.account
        let top = isFirstOfAccount ? max(row.line - 1, 0) : row.line
        var scroll = screens[index].scroll
        if top < scroll { scroll = top }
        if row.line >= scroll + bodyHeight { scroll = row.line - bodyHeight + 1 }
        self.scroll(index, to: scroll)
    }
}

import PushCore

/// The view drawn: the screen on top of the stack, with its title bar and status line.
extension ViewState {
    /// The whole screen: exactly `size.rows` lines of `size.columns` columns, a title bar at
    /// the top, the content, and the status line at the bottom.
    public func frame() -> [StyledLine] {
        guard let screen = screens.last, size.rows > 0, size.columns > 0 else { return [] }
        let columns = size.columns
        var frame = [titleBar(screen).fitted(to: columns, padding: Self.bar)]
        let selectedLine: Int? = if case .inbox(let inbox) = screen.kind, inbox.rows.indices.contains(inbox.selected) {
            inbox.rows[inbox.selected].line
        } else {
            nil
        }
        // The reaction picker covers the bottom of the body.
        let picker: [StyledLine] = if case .item(let item) = screen.kind, item.isPicking { pickerLines(item) } else { [] }
        let pickerStart = bodyHeight - min(picker.count, bodyHeight)
        for offset in 0..<bodyHeight {
            let index = screen.scroll + offset
            if offset >= pickerStart {
                frame.append((StyledLine(" ") + picker[offset - pickerStart]).fitted(to: columns))
                continue
            }
            let content = index < screen.lines.count ? screen.lines[index] : StyledLine()
            if index == selectedLine {
                let selected = Style(reverse: true)
                frame.append((StyledLine(" ", selected) + content.restyled { $0.reverse = true }).fitted(to: columns, padding: selected))
            } else {
                frame.append((StyledLine(" ") + content).fitted(to: columns))
            }
        }
        frame.append(statusLine(screen).fitted(to: columns))
        return Array(frame.prefix(size.rows))
    }

    private static let bar = Style(reverse: true)

    private func titleBar(_ screen: Screen) -> StyledLine {
        let title: String
        switch screen.kind {
        case .item(let item):
            let account = item.account?.displayName ?? item.accountName
            title = " \(item.destination.shortName) · \(account)"
        case .inbox(let inbox):
            var text = " " + Localized.text("Inbox", note: "The terminal view's title bar.")
            if case .loaded(let inboxes) = inbox.content {
                let unread = inbox.rows.count
                text += " · "
                    + Localized.plural(
                        "{number} unread", "{number} unread", count: unread,
                        note: "The terminal view's inbox, after an account's name. {number}: how many notices (\"7\", or \"50+\" when there are more).",
                        ["number": "\(unread)"])
                    + (inboxes.count > 1
                        ? " · " + Localized.plural("{count} account", "{count} accounts", count: inboxes.count, note: "The terminal view's title bar.")
                        : "")
            }
            if let name = inbox.accountName { text += " · \(name)" }
            title = text
        }
        let position = positionText(screen)
        let left = StyledLine(title, Style(bold: true, reverse: true)).truncated(to: max(size.columns - position.count - 1, 1))
        let gap = max(size.columns - left.width - position.count, 1)
        return left + StyledLine(String(repeating: " ", count: gap) + position, Self.bar)
    }

    /// `12-40/80` lines shown, or `all`.
    private func positionText(_ screen: Screen) -> String {
        let total = screen.lines.count
        guard total > bodyHeight else {
            return Localized.text("all", note: "The terminal view's title bar, at its right: every line is shown.") + " "
        }
        let last = min(screen.scroll + bodyHeight, total)
        return "\(screen.scroll + 1)-\(last)/\(total) "
    }

    private func statusLine(_ screen: Screen) -> StyledLine {
        if let message {
            let style: Style = switch message.kind {
            case .done: .colored(.green)
            case .failed: .colored(.red, bold: true)
            case .underWay: .plain
            case .offer: .colored(.yellow, bold: true)
            }
            return StyledLine(message.text, style)
        }
        let back = screens.count > 1 ? ViewKeys.back : ViewKeys.quit
        let keys: [ViewKey]
        switch screen.kind {
        case .item(let item) where item.isPicking:
            keys = [ViewKeys.choose, ViewKeys.cancel]
        case .item(let item):
            switch item.content {
            case .loading: return StyledLine(Self.loadingLine(back), .dim)
            case .failed where item.account == nil: keys = [ViewKeys.reload, back]
            case .failed: keys = [ViewKeys.reload, ViewKeys.open, back]
            case .loaded(.build): keys = [ViewKeys.scroll, ViewKeys.markRead, ViewKeys.open, ViewKeys.reload, back]
            case .loaded: keys = [ViewKeys.scroll, ViewKeys.markRead, ViewKeys.reply, ViewKeys.react, ViewKeys.open, ViewKeys.reload, back]
            }
        case .inbox(let inbox):
            switch inbox.content {
            case .loading: return StyledLine(Self.loadingLine(back), .dim)
            case .failed: keys = [ViewKeys.reload, back]
            case .loaded: keys = [ViewKeys.select, ViewKeys.view, ViewKeys.markRead, ViewKeys.open, ViewKeys.reload, back]
            }
        }
        return StyledLine(ViewKeys.line(keys), .dim)
    }

    /// The status line while a page loads, with the key that leaves it.
    static func loadingLine(_ back: ViewKey) -> String {
        Localized.text("Loading… · {back}", note: "The terminal view's status line. {back}: the key that goes back, as \"q back\".", ["back": ViewKeys.line([back])])
    }
}

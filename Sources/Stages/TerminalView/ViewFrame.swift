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
        for offset in 0..<bodyHeight {
            let index = screen.scroll + offset
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
            }
            return StyledLine(message.text, style)
        }
        let back = screens.count > 1
            ? Localized.text("q back", note: "The terminal view's keys: q goes back. Keep the key, q.")
            : Localized.text("q quit", note: "The terminal view's keys: q quits. Keep the key, q.")
        let keys: String
        switch screen.kind {
        case .item(let item):
            switch item.content {
            case .loading: keys = Localized.text("Loading… · {back}", note: "The terminal view's status line. {back}: the key that goes back.", ["back": back])
            case .failed where item.account == nil:
                keys = Localized.text("R reload · {back}", note: "The terminal view's keys. Keep the key, R. {back}: the key that goes back.", ["back": back])
            case .failed:
                keys = Localized.text(
                    "R reload · o open in browser · {back}", note: "The terminal view's keys. Keep the keys, R and o. {back}: the key that goes back.",
                    ["back": back])
            case .loaded(.build):
                keys = Localized.text(
                    "↑↓ PgUp PgDn g G scroll · r mark read · o open in browser · R reload · {back}",
                    note: "The terminal view's keys for a build. Keep the keys (↑↓ PgUp PgDn g G r o R). {back}: the key that goes back.",
                    ["back": back])
            case .loaded:
                keys = Localized.text(
                    "↑↓ PgUp PgDn g G scroll · r mark read · + react +1 · o open in browser · R reload · {back}",
                    note: "The terminal view's keys for an issue or merge request. Keep the keys (↑↓ PgUp PgDn g G r + o R) and +1. {back}: the key that goes back.",
                    ["back": back])
            }
        case .inbox(let inbox):
            switch inbox.content {
            case .loading: keys = Localized.text("Loading… · {back}", note: "The terminal view's status line. {back}: the key that goes back.", ["back": back])
            case .failed:
                keys = Localized.text("R reload · {back}", note: "The terminal view's keys. Keep the key, R. {back}: the key that goes back.", ["back": back])
            case .loaded:
                keys = Localized.text(
                    "↑↓ select · Enter view · r mark read · o open in browser · R reload · {back}",
                    note: "The terminal view's keys in the inbox. Keep the keys (↑↓ Enter r o R). {back}: the key that goes back.", ["back": back])
            }
        }
        return StyledLine(keys, .dim)
    }
}

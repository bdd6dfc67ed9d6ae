import PushCore

/// The unread inbox of one or more accounts, by account, each newest first: a heading per
/// account, then one line per row (kind, item, a reply kept for it, who did what, how long
/// ago). An account that
/// could not be read says why where its rows would be.
enum InboxLayout {
    /// A row of the inbox and the line it is drawn on.
    struct Row: Equatable {
        let line: Int
        let account: Account
        let item: InboxItem
    }

    static func lines(_ inboxes: [AccountInbox], width: Int, now: Double) -> (lines: [StyledLine], rows: [Row]) {
        let width = max(width, 20)
        guard !inboxes.isEmpty else {
            return (ItemLayout.wrapped(
                Localized.text(
                    "No gitbay accounts in the keyring. Add one: {command}", note: "The terminal view's inbox. {command}: the command (stays English).",
                    ["command": "gbnotifyctl account add URL"]),
                .dim, width), [])
        }
        var lines: [StyledLine] = []
        var rows: [Row] = []
        for (index, inbox) in inboxes.enumerated() {
            if index > 0 { lines.append(StyledLine()) }
            var heading = StyledLine(inbox.account.displayName, .colored(.blue, bold: true))
            switch inbox.listing {
            case .failure(let problem):
                heading.append(" · ", .dim)
                heading.append(problem.headline, .colored(.red, bold: true))
                lines.append(heading.truncated(to: width))
                lines += ItemLayout.wrapped(problem.detail, .plain, width, indent: "  ")
                if let fix = problem.fix { lines += ItemLayout.wrapped(
                        Localized.text("What to do: {fix}", note: "The terminal view, under a problem. {fix}: what to do, in English.", ["fix": fix]),
                        .dim, width, indent: "  ") }
            case .success(let listing):
                let count = listing.rows.count
                let unread = count == 0
                    ? Localized.text("nothing unread", note: "The terminal view's inbox, after an account's name.")
                    : Localized.plural(
                        "{number} unread", "{number} unread", count: count,
                        note: "The terminal view's inbox, after an account's name. {number}: how many notices (\"7\", or \"50+\" when there are more).",
                        ["number": listing.hasMore ? "\(count)+" : "\(count)"])
                heading.append(" · " + unread, .dim)
                lines.append(heading.truncated(to: width))
                let referenceWidth = min(listing.rows.map { ScreenText.width(of: ScreenText.line(reference($0))) }.max() ?? 0, width / 3)
                for item in listing.rows {
                    rows.append(Row(line: lines.count, account: inbox.account, item: item))
                    lines.append(row(
                        item, replyKept: listing.drafted.contains(item.path), referenceWidth: referenceWidth, width: width, now: now))
                }
                if listing.hasMore {
                    lines += ItemLayout.wrapped(
                        Localized.text(
                            "More unread on the web: {url}", note: "The terminal view's inbox, under a long list. {url}: the inbox's address.",
                            ["url": Links.inboxURL(on: inbox.account.instance)]),
                        .dim, width, indent: "  ")
                }
            }
        }
        return (lines, rows)
    }

    /// `  issue  krz/gitbay#12  cmc opened issue #12      2 hours ago`, the item reference
    /// padded to `referenceWidth` (then "reply kept" where a reply to the item was not posted),
    /// cut to the width with the age kept.
    static func row(_ item: InboxItem, replyKept: Bool = false, referenceWidth: Int, width: Int, now: Double) -> StyledLine {
        let kind = item.kind?.rawValue ?? "?"
        var line = StyledLine("  " + kind + String(repeating: " ", count: max(6 - kind.count, 1)), .colored(color(of: item.kind)))
        let name = ScreenText.truncated(ScreenText.line(reference(item)), to: referenceWidth)
        line.append(name, .colored(.cyan))
        line.append(String(repeating: " ", count: max(referenceWidth - ScreenText.width(of: name), 0)) + "  ")
        if replyKept {
            line.append(
                Localized.text(
                    "reply kept", note: "The terminal view's inbox, on the row of an item whose reply could not be posted and is kept as a draft (c on the item sends it)."),
                .colored(.yellow, bold: true))
            line.append("  ")
        }
        line.append(item.actor, .bold)
        line.append(" " + item.summary)
        let age = StyledLine("  " + Age.describe(item.createdAt, now: now), .dim)
        let room = width - age.width
        guard room > 10 else { return line.truncated(to: width) }
        let left = line.truncated(to: room)
        return left + StyledLine(String(repeating: " ", count: room - left.width)) + age
    }

    /// `krz/gitbay#12`, `krz/gitbay!31` (merge requests), or the path as sent when it names
    /// no item.
    static func reference(_ item: InboxItem) -> String {
        ViewState.name(of: item.path)
    }

    private static func color(of kind: ItemKind?) -> Color {
        switch kind {
        case .issue: .green
        case .mr: .magenta
        case .build: .yellow
        case nil: .gray
        }
    }
}

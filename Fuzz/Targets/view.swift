import PushCore
import TerminalView

/// What the terminal view makes of a server's text and of the keys typed at it: the input as an
/// item's data (each kind), as every text field of an issue, and as the keys of a session. No
/// crash or hang, nothing a terminal would act on in the text, every frame exactly the screen's
/// size.
func fuzz(_ input: UnsafeBufferPointer<UInt8>) {
    let bytes = Array(input)
    let envelope = Array(#"{"protocol_version":1,"exit_code":0,"data":"#.utf8) + bytes + Array("}".utf8)
    let answer = APIResult(status: 200, headers: [:], body: envelope)
    for kind in ItemKind.allCases {
        guard let details = try? ItemDetails.decode(answer, as: kind) else { continue }
        for width in [1, 20, 57, 200] { checkPlain(PlainText.item(details, width: width, now: 1.8e9)) }
    }

    let text = String(decoding: bytes, as: UTF8.self)
    let reactions = [Reaction(reaction: text, count: bytes.count, me: true)]
    let issue = ItemDetails.issue(IssueDetails(
        discussion: Discussion(
            number: 1, title: text, state: text, author: text, createdAt: text, body: text,
            bodyFormat: bytes.first.map { $0 & 1 == 0 ? "md" : "org" }, milestone: text, labels: [text, text],
            reactions: reactions,
            comments: [ItemComment(id: 1, author: text, body: text, bodyFormat: "md", createdAt: text, reactions: reactions),
                       ItemComment(id: 2, author: "system", body: text, bodyFormat: nil, createdAt: text, reactions: [])]),
        assignees: [text]))
    for width in [1, 9, 33, 80] { checkPlain(PlainText.item(issue, width: width, now: 1.8e9)) }
    let row = InboxItem(id: 1, repo: text, kind: nil, actor: text, summary: text, path: text, createdAt: text, readAt: nil)
    let inbox = [AccountInbox(account: account, listing: .success(InboxListing(rows: [row, row], hasMore: true)))]
    for width in [1, 30, 100] { checkPlain(PlainText.inbox(inbox, width: width, now: 1.8e9)) }

    // The first bytes as keys (a frame after each is the costly part), at a size they pick,
    // over the issue and over the inbox.
    let size = TerminalSize(rows: Int(bytes.first ?? 0) % 40, columns: Int(bytes.last ?? 0) % 130)
    var views = [
        ViewState.item(account: account.reference, destination: destination, size: size, now: 1.8e9).0,
        ViewState.inbox(account: nil, size: size, now: 1.8e9).0,
    ]
    _ = views[0].handle(.itemLoaded(screen: 1, account: account, .success(issue)))
    _ = views[1].handle(.inboxLoaded(screen: 1, .success(inbox)))
    for index in views.indices {
        var decoder = KeyDecoder()
        for key in decoder.decode(bytes.prefix(40)) + decoder.flush() {
            _ = views[index].handle(.key(key))
            checkFrame(views[index].frame(), size)
        }
        _ = views[index].handle(.resized(TerminalSize(rows: size.columns % 50, columns: size.rows * 3)))
        checkFrame(views[index].frame(), TerminalSize(rows: size.columns % 50, columns: size.rows * 3))
    }
}

private func checkPlain(_ text: String) {
    invariant(!text.unicodeScalars.contains { scalar in
        let category = scalar.properties.generalCategory
        return (category == .control && scalar != "\n") || category == .format
    }, "a control or format character reached the screen: \(text.debugDescription)")
}

private func checkFrame(_ frame: [StyledLine], _ size: TerminalSize) {
    guard size.rows > 0, size.columns > 0 else {
        invariant(frame.isEmpty, "a frame for a screen of no size")
        return
    }
    invariant(frame.count == size.rows, "\(frame.count) lines for \(size.rows) rows")
    for line in frame {
        invariant(line.width == size.columns, "a line of \(line.width) columns on a screen of \(size.columns)")
        checkPlain(line.text)
    }
}

private let account = try! Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc")
private let destination = NotificationDestination(path: "krz/gitbay/issues/1")!

import FoundationEssentials
import PushCore
import TerminalView

/// `gbnotify-bench worst [RUNS]`: the CPU time (CLOCK_THREAD_CPUTIME_ID) of the worst input we
/// could construct for each pure function the daemon's one loop runs on outside text, at that
/// input's size limit; each run once unmeasured, then RUNS times (default 10). One line of
/// JSON: {"rule": [...], "glob": [...], ...}, microseconds each.
///
/// - rule: a rule `summary = *` + 4,080 `q` + `r*` (the config's 4 KiB line) deciding a notice
///   whose summary is 1 MiB (the API body's limit) of `q`: the matcher's worst, a long run over
///   a long text of its first letter (issue 44's stall).
/// - glob: the same pattern on the whole 1 MiB text, without the rules' 1,024-character view.
/// - inbox: a 1 MiB `notifications list` body decoded as the poller does, its summaries all
///   `\u` escapes of a character outside the BMP (two escapes per character).
/// - inboxDeep: a 1 MiB body of `[`, the decoder's depth bound.
/// - relayLine: a relay line at its 64 KiB limit, a message whose topic is all escapes, read
///   as `RelayEvent(line:)`.
/// - relaySplit: 1 MiB with no line break, then one, through the line splitter.
/// - trayMenu: the tray's menu over 20 accounts' 10 newest notices, every summary 1 MiB of
///   format and control characters (what `displaySafe` drops or turns into spaces).
/// - notification: a notification's text for a group of 50 such notices.
/// - layout: the terminal view's layout (gbnotifyctl's loop) of an issue whose system entry is
///   one unbroken 1 MiB word, the slowest body of `gbnotify-bench layout`, in CPU time here.
func worstCases(runs: Int) throws -> [String: [Int]] {
    let mebibyte = 1 << 20
    let run = String(repeating: "q", count: 4080)
    let config = "[rule long]\nsummary = *\(run)r*\nshow = none\n"
    let rules = try Config.parse(config).rules
    let glob = try Glob(parsing: "*\(run)r*")
    let longText = String(repeating: "q", count: mebibyte)
    let account = try Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc")
    func notice(_ id: Int64, summary: String) -> InboxItem {
        InboxItem(id: id, repo: "krz/gitbay", kind: .issue, actor: "mallory", summary: summary,
                  path: "krz/gitbay/issues/\(id)", createdAt: "2026-09-20T10:11:12.123Z", readAt: nil)
    }
    let longNotice = notice(1, summary: longText)

    // Rows of escapes until the body is 1 MiB.
    let escapes = String(repeating: #"\ud83d\ude00"#, count: 2000)
    var rows: [String] = []
    var size = 64
    while size < mebibyte - 13_000 {
        let row = #"{"id":\#(rows.count + 1),"repo":"krz/gitbay","kind":"issue","actor":"a","summary":"\#(escapes)","path":"krz/gitbay/issues/1","created_at":"2026-09-20T10:11:12.123Z"}"#
        rows.append(row)
        size += row.utf8.count + 1
    }
    let inbox = Array(#"{"protocol_version":1,"exit_code":0,"data":{"items":[\#(rows.joined(separator: ","))]}}"#.utf8)
    let deep = [UInt8](repeating: UInt8(ascii: "["), count: mebibyte)

    let relayEscapes = String(repeating: #"\u00e9"#, count: (RelayEvent.maximumLineBytes - 200) / 6)
    let relayLine = Array(#"{"id":"x","time":1,"event":"message","topic":"\#(relayEscapes)","message":"m"}"#.utf8)
    let unbroken = [UInt8](repeating: UInt8(ascii: "a"), count: mebibyte) + [UInt8(ascii: "\n")]

    let hostileSummary = String(repeating: "\u{202E}\u{200B}\u{7}", count: mebibyte / 9)
    let shelves = (0..<20).map { index in
        TrayState.Shelf(
            account: try! Account(instance: GitbayInstance(parsing: "https://git\(index).example.org"), username: "cmc"),
            unread: .exact(10), newest: (1...10).map { notice(Int64($0), summary: hostileSummary) })
    }
    let group = NoticeGroup.grouping((1...50).map { notice(Int64($0), summary: hostileSummary) }, of: account)

    let cases: [(String, () throws -> Bool)] = [
        ("rule", { rules.evaluate(longNotice, of: account).rule == nil }),
        ("glob", { !glob.matches(longText) }),
        ("inbox", { try APIResult(status: 200, headers: [:], body: inbox).decode(InboxPage.self).items.count == rows.count }),
        ("inboxDeep", { (try? APIResult(status: 200, headers: [:], body: deep).decode(InboxPage.self)) == nil }),
        ("relayLine", { (try? RelayEvent(line: relayLine)) != nil }),
        ("relaySplit", {
            var splitter = RelayLineSplitter(limit: RelayEvent.maximumLineBytes)
            return unbroken.withUnsafeBufferPointer { splitter.lines(in: $0) }.count == 1
        }),
        ("trayMenu", {
            var model = TrayModel()
            _ = model.show(TrayState(shelves: shelves))
            return model.layout().items.count > 200
        }),
        ("layout", { PlainText.item(issue(body: "b", systemEntry: String(repeating: "w", count: mebibyte)), width: 80, now: 1_789_905_600).utf8.count > 100 }),
        ("notification", {
            guard let first = group.first else { return false }
            let content = NotificationContent.group(first, capabilities: NotificationCapabilities(bodyMarkup: true, actions: true))
            return content.body.count < 10_000
        }),
    ]
    var times: [String: [Int]] = [:]
    for (name, work) in cases {
        var measured: [Int] = []
        for index in 0..<(1 + runs) {
            let started = threadCPUMicroseconds()
            // Checked, so the work cannot be left out, and a case that went another way is no measurement.
            guard try work() else { fail("the \(name) case did not come out as built") }
            if index > 0 { measured.append(threadCPUMicroseconds() - started) }
        }
        times[name] = measured
    }
    return times
}

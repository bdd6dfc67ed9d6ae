import PushCore
import TerminalView

/// `gbnotify-bench layout [COUNT]`: the terminal view's layout of hostile issues, as `show` lays
/// them out (`PlainText.item`, the layout the view draws, at 80 columns): a body of 1 MiB of
/// tabs, a body of one unbroken 1 MiB word, the same word as a system entry, and 1 MiB of
/// tab-indented code; beside them, what the layout costs without hostile text: 1 MiB of prose
/// (words of a few letters, sentences, paragraphs). Each is laid out 3 times unmeasured, then
/// COUNT (default 20) times, and one line of JSON gives each's microseconds: {"tabs": [...],
/// "word": [...], ..., "prose": [...]}.
func layoutTimes(count: Int) {
    let mebibyte = 1 << 20
    let word = String(repeating: "w", count: mebibyte)
    let bodies = [
        ("tabs", issue(body: String(repeating: "\t", count: mebibyte))),
        ("word", issue(body: word)),
        ("entry", issue(body: "b", systemEntry: word)),
        ("code", issue(body: String(repeating: "\tx", count: mebibyte / 2))),
        ("prose", issue(body: String(String(repeating: "The build of main failed on the arm64 runner. ", count: 20)
            .appending("\n\n").repeated(toFill: mebibyte)))),
    ]
    let now = 1_789_905_600.0
    var times: [String: [Int]] = [:]
    for (name, details) in bodies {
        var measured: [Int] = []
        for index in 0..<(3 + count) {
            let started = monotonicMicroseconds()
            let text = PlainText.item(details, width: 80, now: now)
            let ended = monotonicMicroseconds()
            // Used, so the layout cannot be left out; and a layout of nothing is no measurement.
            if text.utf8.count < 100 { fail("the \(name) issue laid out as \(text.utf8.count) bytes") }
            if index >= 3 { measured.append(ended - started) }
        }
        times[name] = measured
    }
    printLine(times)
}

func issue(body: String, systemEntry: String? = nil) -> ItemDetails {
    let comments = systemEntry.map {
        [ItemComment(id: 2, author: "system", body: $0, bodyFormat: nil, createdAt: "2026-09-18T12:00:00.000Z", reactions: [])]
    } ?? []
    return .issue(IssueDetails(
        discussion: Discussion(
            number: 1, title: "A hostile issue", state: "open", author: "mallory", createdAt: "2026-09-18T12:00:00.000Z",
            body: body, bodyFormat: "md", comments: comments),
        assignees: []))
}

private extension String {
    /// This text over and over, cut to `count` bytes of UTF-8 (it is ASCII).
    func repeated(toFill count: Int) -> String {
        String(String(repeating: self, count: count / utf8.count + 1).utf8.prefix(count))!
    }
}

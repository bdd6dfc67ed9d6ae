import PushCore

/// `Config.parse` with sections, and what its rules and quiet hours decide: the input is a config
/// file, and its last bytes also make notices. A parsed config's rules decide every notice for
/// some rule it has (or none), at most normal urgency; each account's settings lie in their
/// ranges; warnings are one line each; quiet hours, on a zone that changes its offset, are spans
/// that contain the instant asked about and last less than a day and an hour.
func fuzz(_ input: UnsafeBufferPointer<UInt8>) {
    let config: Config
    do {
        config = try Config.parse(String(decoding: input, as: UTF8.self))
    } catch {
        invariant(isOneLine(error.description), "the error is not one line: \(error.description.debugDescription)")
        invariant(error.description.count <= 800, "the error is \(error.description.count) characters")
        return
    }
    invariant(config.warnings.allSatisfy(isOneLine), "a warning is not one line: \(config.warnings)")
    let names = Set(config.rules.rules.map(\.name))
    invariant(names.count == config.rules.rules.count, "two rules of one name: \(config.rules.rules.map(\.name))")
    let tail = String(decoding: input.suffix(24), as: UTF8.self)
    let notices = [
        notice(repo: "krz/gitbay", kind: .build, actor: "ci", summary: "build #88 failed on main"),
        notice(repo: "krz/gitbay", kind: .mr, actor: "dependabot[bot]", summary: "opened merge request #3"),
        notice(repo: "ops/\(tail)", kind: nil, actor: tail, summary: tail),
    ]
    for account in accounts {
        let settings = config.settings(for: account)
        invariant((10...3600).contains(settings.pollIntervalSeconds), "poll-interval \(settings.pollIntervalSeconds)")
        for notice in notices {
            let decision = config.rules.evaluate(notice, of: account)
            invariant(decision.rule.map(names.contains) ?? true, "decided by \(decision.rule ?? "") of \(names)")
            invariant(isOneLine(decision.description), "the decision reads \(decision.description.debugDescription)")
            invariant(decision == config.rules.evaluate(notice, of: account), "two decisions for one notice")
        }
    }
    guard let quiet = config.quietHours else { return }
    for instant in instants {
        guard let span = quiet.span(containing: instant, zone: zone) else { continue }
        invariant(span.contains(instant), "\(span) does not contain \(instant)")
        invariant(span.count < 25 * 3600, "quiet hours \(quiet) last \(span.count) s from \(span.lowerBound)")
    }
}

private func notice(repo: String, kind: ItemKind?, actor: String, summary: String) -> InboxItem {
    InboxItem(id: 1, repo: repo, kind: kind, actor: actor, summary: summary, path: "\(repo)/issues/1", createdAt: "", readAt: nil)
}

private let accounts = [
    try! Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc"),
    try! Account(instance: GitbayInstance(parsing: "https://example.com:8443/git"), username: "bob"),
]

/// UTC+1, and UTC+2 from the spring jump of 2026 to the autumn one.
private let zone = ZoneOffsets { $0 >= 1_774_746_000 && $0 < 1_792_890_000 ? 7200 : 3600 }
/// Around both jumps and on an ordinary day, every 20 minutes.
private let instants = [Int64(1_774_656_000), 1_792_800_000, 1_780_272_000].flatMap { day in
    stride(from: day, to: day + 2 * 86400, by: 1200)
}

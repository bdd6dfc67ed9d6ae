// gbnotify-bench: what Benchmarks/bench.py measures or needs from inside a Swift process, against
// whatever owns the session bus's names (dunst or `gbnotify-bench server`, and gbnotifyd, in
// `make bench`).
//
//     gbnotify-bench notify [COUNT]
//         The floor under showing a notice: a bare `Notify` call, from this process to the
//         notification server and back, with nothing of gbnotifyd around it. Runs 20 unmeasured
//         (connection warm), then COUNT (default 1000) one after another, clearing dunst's screen
//         between two (unmeasured), and prints one line of JSON: {"microseconds": [...]}.
//     gbnotify-bench deliver
//         A local relay calling a running gbnotifyd's `Deliver`: for each line of standard input
//         (one payload), the call, then one line of JSON on standard output:
//         {"sent": MICROSECONDS, "replied": MICROSECONDS, "account": "..."} (CLOCK_MONOTONIC, to
//         be set beside the notification server's receipts), or {"error": "..."} when the daemon
//         woke no account. Exits at the end of standard input.
//     gbnotify-bench poll INSTANCE CA
//         The floor under the poll a wake-up makes: for each line of standard input (an account's
//         token), the request gbnotifyd sends to list that account's notices (GET /api/v1/read,
//         the same headers, no If-None-Match), made straight through libcurl on one session, so
//         the connection to INSTANCE is kept between two, trusting CA; then one line of JSON:
//         {"microseconds": ..., "status": ...}, from the request handed to libcurl to its whole
//         answer read. Exits at the end of standard input.
//     gbnotify-bench server
//         A notification server that answers at once (InstantServer.swift), in place of dunst.
//         Prints {"ready": true} once it owns the name; at the end of its standard input, one
//         line per `Notify` received, {"t": MICROSECONDS, "body": "..."}, and exits.
//     gbnotify-bench layout [COUNT]
//         The terminal view's layout of hostile issues (1 MiB bodies of tabs, of one unbroken
//         word, that word as a system entry, tab-indented code), each laid out COUNT (default
//         20) times after 3 unmeasured (Layout.swift); one line of JSON with each's microseconds.
//     gbnotify-bench rules [RUNS]
//         What deciding what pops up costs: 100 rules, parsed from a config file as gbnotifyd
//         parses it, evaluated against 1,000 notices, all but the last rule missing nearly every
//         notice (so most notices are tried against all of them: the worst case of first match
//         wins). Runs it once unmeasured, then RUNS times (default 20), and prints one line of
//         JSON: {"microseconds": [...], "without": [...]}, the CPU time of each run
//         (CLOCK_THREAD_CPUTIME_ID), with the 100 rules and with none (every notice a popup).
//     gbnotify-bench worst [RUNS]
//         The worst input we could construct for each pure function the loop runs on outside
//         text (rules, JSON, relay lines, the tray's menu, a notification's text), at its size
//         limit (WorstCase.swift); one line of JSON with each's CPU microseconds.
//     gbnotify-bench floor URL CA
//         The floor under gbnotifyd's memory: the same build's runtime and libraries doing next
//         to nothing. Connects to the session bus, GETs URL through libcurl (over TLS, trusting
//         CA as gbnotifyd does), decodes a little JSON, prints {"ready": true} and waits for
//         the end of its standard input.
//
// CA is a PEM file (trusted as `ca-file` is) or a hashed directory (as the system's CAs are
// read without one: `SystemTrust`).
import Curl
import DBus
import FoundationEssentials
import Glibc
import MainLoop
import PushCore

func fail(_ message: String) -> Never {
    let line = Array("gbnotify-bench: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

let usage = "usage: gbnotify-bench notify [COUNT] | deliver | poll INSTANCE CA | server | layout [COUNT] | rules [RUNS] | worst [RUNS] | floor URL CA"

/// CA as gbnotifyd trusts it: a PEM file as `ca-file`, a hashed directory as the system's CAs.
func trusting(_ ca: String) -> TransferOptions {
    var status = stat()
    return stat(ca, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
        ? TransferOptions(caDirectory: ca) : TransferOptions(caFile: ca)
}
let warmUp = 20

/// One measured piece of work, in CLOCK_MONOTONIC microseconds.
struct Span {
    let started: Int
    let ended: Int

    var microseconds: Int { ended - started }
}

/// Runs `work(1...)` for the warm-up and then `count` measured times. After each, unmeasured,
/// the notification server is asked to close everything on screen: dunst takes longer over
/// each `Notify` the more notifications it holds, and the figure is about gbnotifyd, not about
/// a screen with a thousand notifications on it.
func measure(on connection: DBusConnection, _ count: Int, _ work: (Int) async throws -> Void) async throws -> [Span] {
    var spans: [Span] = []
    spans.reserveCapacity(count)
    for index in 1...(warmUp + count) {
        let started = monotonicMicroseconds()
        try await work(index)
        let ended = monotonicMicroseconds()
        if index > warmUp {
            spans.append(Span(started: started, ended: ended))
        }
        // dunst's own method (what `dunstctl close-all` calls); another server does without.
        _ = try? await connection.call(
            destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
            interface: "org.dunstproject.cmd0", member: "NotificationCloseAll")
    }
    return spans
}

func item(_ index: Int) -> InboxItem {
    let kind = ItemKind.allCases[index % ItemKind.allCases.count]
    return InboxItem(
        id: Int64(index), repo: "krz/gitbay", kind: kind, actor: "eve", summary: "opened \(kind.rawValue) #\(index)",
        path: "krz/gitbay/\(kind.pathSegment)/\(index)", createdAt: "2026-09-20T10:11:12.123Z", readAt: nil)
}

func notifyLatencies(count: Int) async throws -> [Span] {
    let connection = try await DBusConnection.connect()
    let latencies = try await measure(on: connection, count) { index in
        let notice = item(index)
        let hints: [String: DBusValue] = [
            "desktop-entry": .string("gbnotify"), "urgency": .byte(1), "category": .string("x-gitbay.issue"),
        ]
        _ = try await connection.call(
            destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
            interface: "org.freedesktop.Notifications", member: "Notify",
            arguments: [
                .string("gitbay"), .uint32(0), .string(""), .string(notice.repo),
                .string("\(notice.actor) \(notice.summary)"), .stringArray(["default", "Open", "mark-read", "Mark read"]),
                .vardict(hints), .int32(-1),
            ])
    }
    await connection.close()
    return latencies
}

/// What `deliver` prints for each payload.
struct Delivered: Encodable {
    let sent: Int
    let replied: Int
    let account: String
}

/// Calls `Deliver` with each line of standard input, one at a time, as bench.py writes them.
func deliverPayloads() async throws {
    let connection = try await DBusConnection.connect()
    for await payload in standardInputLines() {
        let sent = monotonicMicroseconds()
        do {
            let reply = try await connection.call(
                destination: DaemonInterface.busName, path: DaemonInterface.objectPath,
                interface: DaemonInterface.interface, member: DaemonInterface.Method.deliver.rawValue, arguments: [.string(payload)])
            let replied = monotonicMicroseconds()
            printLine(Delivered(sent: sent, replied: replied, account: reply.first?.stringValue ?? ""))
        } catch let error as DBusError where error.name == DaemonInterface.payloadDroppedError {
            printLine(["error": error.message])
        }
    }
    await connection.close()
}

/// What `poll` prints for each request.
struct Polled: Encodable {
    let microseconds: Int
    let status: Int
}

/// Lists the notices of the account whose token is each line of standard input, one request at a
/// time, the way gbnotifyd's poll asks for them.
func pollFloor(instance: String, ca: String) async throws {
    let url = "\(instance)/api/v1/read?\(GitbayCommand.notificationsList(limit: nil, cursor: nil).readQuery)"
    let options = trusting(ca)
    for await token in standardInputLines() {
        let request = HTTPRequest(
            mayUseProxy: false, url: url,
            headers: ["Authorization": "Bearer \(token)", "Accept": "application/json", "User-Agent": "gbnotify-bench"])
        let started = monotonicMicroseconds()
        let response = try await HTTPSession.shared.perform(request, options: options)
        printLine(Polled(microseconds: monotonicMicroseconds() - started, status: response.status))
    }
}

/// Serves notifications until standard input ends, then prints what was received.
func serveNotifications() async throws {
    let server = try await InstantServer.start()
    printLine(["ready": true])
    await standardInputEnded()
    await server.stop()
    for receipt in server.receipts {
        printLine(receipt)
    }
}

/// 100 rules of the four kinds of filter users write (an account, a repository, a summary with
/// a kind, a bot), the last a catch-all; 1,000 notices of a few repositories, actors and kinds.
func ruleCosts(runs: Int) throws -> RuleCosts {
    let plain = "sound = message-new-instant\n"
    var config = plain
    for index in 0..<99 {
        config += "\n[rule r\(index)]\n"
        switch index % 4 {
        case 0: config += "account = cmc@git\(index).example.org\nshow = none\n"
        case 1: config += "repo = team\(index)/*\nshow = silent\n"
        case 2: config += "kind = build\nsummary = *deploy \(index) failed*\nurgency = low\n"
        default: config += "actor = *-bot\(index)\\[bot\\]\nshow = silent\n"
        }
    }
    config += "\n[rule everything-else]\nshow = popup\n"
    let rules = try Config.parse(config).rules
    guard rules.rules.count == 100 else { fail("\(rules.rules.count) rules, not 100") }
    let none = try Config.parse(plain).rules
    let account = try Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc")
    let actors = ["alba", "ci", "dependabot[bot]", "noor", "renovate[bot]"]
    let notices = (1...1000).map { index in
        let kind = ItemKind.allCases[index % ItemKind.allCases.count]
        return InboxItem(
            id: Int64(index), repo: "krz/repo\(index % 37)", kind: kind, actor: actors[index % actors.count],
            summary: kind == .build ? "build #\(index) failed on main" : "opened \(kind.rawValue) #\(index)",
            path: "krz/repo\(index % 37)/\(kind.pathSegment)/\(index)", createdAt: "2026-09-20T10:11:12.123Z", readAt: nil)
    }
    func costs(of rules: RuleSet) -> [Int] {
        var popups = 0
        var costs: [Int] = []
        for run in 0...runs {
            let started = threadCPUMicroseconds()
            for notice in notices where rules.evaluate(notice, of: account).show == .popup {
                popups += 1
            }
            if run > 0 { costs.append(threadCPUMicroseconds() - started) }
        }
        // Every notice falls through to the catch-all: the worst case, as intended.
        guard popups == notices.count * (runs + 1) else { fail("\(popups) popups: some rule matched early") }
        return costs
    }
    return RuleCosts(microseconds: costs(of: rules), without: costs(of: none))
}

struct RuleCosts: Encodable {
    let microseconds: [Int]
    let without: [Int]
}

func threadCPUMicroseconds() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return time.tv_sec * 1_000_000 + time.tv_nsec / 1000
}

/// Holds what gbnotifyd holds at the least (a bus connection, libcurl with a transfer done,
/// JSON decoded) until standard input ends.
func idleFloor(url: String, ca: String) async throws {
    let connection = try await DBusConnection.connect()
    let response = try await HTTPSession.shared.perform(
        HTTPRequest(mayUseProxy: false, url: url), options: trusting(ca))
    _ = try? JSONDecoder().decode([String: Int].self, from: Data(response.body))
    printLine(["ready": true])
    await standardInputEnded()
    await connection.close()
}

/// The lines of standard input, read off the main loop, until it ends.
func standardInputLines() -> AsyncStream<String> {
    let (lines, continuation) = AsyncStream.makeStream(of: String.self)
    let input = StandardInput()
    MainLoop.shared.submit {
        var pending: [UInt8] = []
        input.source = LoopSource.watch(0, for: .readable) { _ in
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(0, &buffer, buffer.count)
            guard count > 0 else {
                if !pending.isEmpty { continuation.yield(String(decoding: pending, as: UTF8.self)) }
                input.source?.cancel()
                continuation.finish()
                return
            }
            pending += buffer[..<count]
            while let newline = pending.firstIndex(of: 0x0A) {
                continuation.yield(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
        }
    }
    return lines
}

/// Standard input's source, on the loop's thread alone.
final class StandardInput: @unchecked Sendable {
    var source: LoopSource?
}

/// Returns once standard input ends: how bench.py stops the modes that wait.
func standardInputEnded() async {
    for await _ in standardInputLines() {}
}

/// One line of JSON on standard output.
func printLine(_ value: some Encodable) {
    guard let data = try? JSONEncoder().encode(value) else { fail("cannot encode \(value)") }
    // Written at once, unbuffered: `ready` must not wait in a buffer.
    var line = Array(data) + [UInt8(ascii: "\n")]
    while !line.isEmpty {
        let written = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        guard written > 0 || (written < 0 && errno == EINTR) else { fail("cannot write to standard output") }
        line.removeFirst(max(written, 0))
    }
}

/// What the measuring modes print.
struct Latencies: Encodable {
    let microseconds: [Int]
}

let arguments = Array(CommandLine.arguments.dropFirst())
func count(at index: Int) -> Int {
    guard arguments.count > index else { return 1000 }
    guard let count = Int(arguments[index]), count > 0 else { fail(usage) }
    return count
}

// On the main loop, as gbnotifyd: the floor is the same runtime waiting the same way.
LoopMain.run {
    do {
        switch arguments.first {
        case "notify" where arguments.count <= 2:
            let spans = try await notifyLatencies(count: count(at: 1))
            printLine(Latencies(microseconds: spans.map(\.microseconds)))
        case "deliver" where arguments.count == 1:
            try await deliverPayloads()
        case "poll" where arguments.count == 3:
            try await pollFloor(instance: arguments[1], ca: arguments[2])
        case "server" where arguments.count == 1:
            try await serveNotifications()
        case "layout" where arguments.count <= 2:
            layoutTimes(count: arguments.count == 2 ? count(at: 1) : 20)
        case "rules" where arguments.count <= 2:
            printLine(try ruleCosts(runs: arguments.count == 2 ? count(at: 1) : 20))
        case "worst" where arguments.count <= 2:
            printLine(try worstCases(runs: arguments.count == 2 ? count(at: 1) : 10))
        case "floor" where arguments.count == 3:
            try await idleFloor(url: arguments[1], ca: arguments[2])
        default:
            fail(usage)
        }
    } catch {
        fail("\(error)")
    }
    return 0
}

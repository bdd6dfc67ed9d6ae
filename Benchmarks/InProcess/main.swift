// gbnotify-bench: the latencies Benchmarks/bench.py measures from inside a process, against
// whatever owns the session bus's names (dunst and gbnotifyd, in `make bench`).
//
//     gbnotify-bench presenter [COUNT]
//         The daemon's own DesktopPresenter, in this process: from a notice handed to it to
//         the notification server's `Notify` reply. Each notice is its own `AccountUpdate`,
//         the way a poll hands them over, and its info line is logged (to /dev/null).
//     gbnotify-bench notify [COUNT]
//         The floor under both: a bare `Notify` call with the same content, from this process
//         to the notification server and back, with nothing of gbnotifyd around it.
//     gbnotify-bench deliver INSTANCE USER [COUNT]
//         A running gbnotifyd's `Deliver`, called as a local relay would: from the call sent to
//         its reply, which the daemon sends once the notice's `Notify` has returned. Each
//         payload is a different notice for account USER at INSTANCE.
//
// Both first run 20 unmeasured (capabilities asked, connections warm), then COUNT (default
// 1000) one after another, clearing dunst's screen between two (unmeasured), and print one
// line of JSON: {"microseconds": [...]}, in order.
import DBus
import Daemon
import FoundationEssentials
import Glibc
import PushCore

func fail(_ message: String) -> Never {
    let line = Array("gbnotify-bench: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

let usage = "usage: gbnotify-bench presenter [COUNT] | notify [COUNT] | deliver INSTANCE USER [COUNT]"
let warmUp = 20

/// Runs `work(1...)` for the warm-up and then `count` measured times. After each, unmeasured,
/// the notification server is asked to close everything on screen: dunst takes longer over
/// each `Notify` the more notifications it holds, and the figure is about gbnotifyd, not about
/// a screen with a thousand notifications on it.
func measure(on connection: DBusConnection, _ count: Int, _ work: (Int) async throws -> Void) async throws -> [Int] {
    var microseconds: [Int] = []
    microseconds.reserveCapacity(count)
    for index in 1...(warmUp + count) {
        let started = ContinuousClock.now
        try await work(index)
        let elapsed = ContinuousClock.now - started
        if index > warmUp {
            microseconds.append(Int(elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000))
        }
        // dunst's own method (what `dunstctl close-all` calls); another server does without.
        _ = try? await connection.call(
            destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
            interface: "org.dunstproject.cmd0", member: "NotificationCloseAll")
    }
    return microseconds
}

func item(_ index: Int) -> InboxItem {
    let kind = ItemKind.allCases[index % ItemKind.allCases.count]
    return InboxItem(
        id: Int64(index), repo: "krz/gitbay", kind: kind, actor: "eve", summary: "opened \(kind.rawValue) #\(index)",
        path: "krz/gitbay/\(kind.pathSegment)/\(index)", createdAt: "2026-09-20T10:11:12.123Z", readAt: nil)
}

func presenterLatencies(count: Int) async throws -> [Int] {
    let devNull = open("/dev/null", O_WRONLY)
    let logger = Logger(level: .info) { line in
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(devNull, $0.baseAddress, $0.count) }
    }
    let connection = try await DBusConnection.connect()
    let presenter = try await DesktopPresenter.start(
        on: connection, options: DesktopPresenter.Options(config: .defaults, environment: [:]),
        markRead: { _, _ in }, logger: logger)
    let account = try Account(instance: try GitbayInstance(parsing: "https://gitbay.example"), username: "bench")
    let latencies = try await measure(on: connection, count) { index in
        // The unread count stays the same, so no badge update rides along.
        await presenter.present(AccountUpdate(account: account, notices: [.item(item(index))], unread: .exact(1), withdrawn: []))
    }
    await presenter.stop()
    await connection.close()
    return latencies
}

func notifyLatencies(count: Int) async throws -> [Int] {
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

/// A push payload as gitbay-api.md shows it.
struct Payload: Encodable {
    struct APS: Encodable {
        struct Alert: Encodable {
            let title: String
            let body: String
        }

        let alert: Alert
    }

    let aps: APS
    let path: String
    let instance: String
    let user: String
}

func deliverLatencies(instance: String, user: String, count: Int) async throws -> [Int] {
    let connection = try await DBusConnection.connect()
    // Ids far above anything the stand-in hands out, so no poll has shown these notices.
    let base = 1_000_000 + Int(getpid()) * 10_000
    let latencies = try await measure(on: connection, count) { index in
        let notice = item(base + index)
        let payload = Payload(
            aps: .init(alert: .init(title: notice.repo, body: "\(notice.actor) \(notice.summary)")),
            path: notice.path, instance: instance, user: user)
        let text = String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
        let reply = try await connection.call(
            destination: DaemonInterface.busName, path: DaemonInterface.objectPath, interface: DaemonInterface.interface,
            member: DeliverMethod.member, arguments: [.string(text)])
        guard reply.first?.stringValue == DeliverMethod.Reply.shown.rawValue else {
            fail("payload \(index) was not shown: \(reply)")
        }
    }
    await connection.close()
    return latencies
}

let arguments = Array(CommandLine.arguments.dropFirst())
func count(at index: Int) -> Int {
    guard arguments.count > index else { return 1000 }
    guard let count = Int(arguments[index]), count > 0 else { fail(usage) }
    return count
}

do {
    let latencies: [Int]
    switch arguments.first {
    case "presenter" where arguments.count <= 2:
        latencies = try await presenterLatencies(count: count(at: 1))
    case "notify" where arguments.count <= 2:
        latencies = try await notifyLatencies(count: count(at: 1))
    case "deliver" where (3...4).contains(arguments.count):
        latencies = try await deliverLatencies(instance: arguments[1], user: arguments[2], count: count(at: 3))
    default:
        fail(usage)
    }
    print("{\"microseconds\": [\(latencies.map(String.init).joined(separator: ","))]}")
} catch {
    fail("\(error)")
}

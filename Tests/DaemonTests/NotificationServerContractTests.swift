import DBus
import DesktopSuites
import Notifications
import TestSupport
import Testing

/// Keeps `InMemoryNotificationServer` honest: one scenario of the calls the desktop stage makes
/// and of a user's clicks, run on the in-memory server and on a real dunst (through the real
/// client, `NotificationClient`, and `dunstctl`), must read the same: the ids each call got
/// back (named by their order of appearance, as the numbers are the server's own) and what the
/// server said after each step.
@Suite(.serialized, .desktop(.dunst))
struct NotificationServerContractTests {
    /// A user's hands on a server: a click on the body of the notification `id`, and a
    /// dismissal of it.
    struct Hands: Sendable {
        let click: @Sendable (UInt32) async throws -> Void
        let dismiss: @Sendable (UInt32) async throws -> Void
    }

    @Test func theInMemoryServerAnswersAndSignalsAsDunstDoes() async throws {
        let memory = InMemoryNotificationServer()
        let inMemory = try await Self.scenario(
            memory.connect(), hands: Hands(click: { memory.click($0) }, dismiss: { memory.dismiss($0) }))

        let session = try SharedDesktop.session()
        let onDunst = try await session.withConnection { connection in
            let client = try await NotificationClient(on: connection, appName: "gbnotify")
            // dunstctl reaches the notification at the top, the one just shown.
            return try await Self.scenario(client, hands: Hands(
                click: { _ in try await Self.dunstctl(session, "action", "0") },
                dismiss: { _ in try await Self.dunstctl(session, "close") }))
        }
        #expect(inMemory.count == onDunst.count)
        for (index, (memoryLine, dunstLine)) in zip(inMemory, onDunst).enumerated() {
            #expect(memoryLine == dunstLine, "step \(index + 1)")
        }
    }

    static func dunstctl(_ session: DesktopSession, _ arguments: String...) async throws {
        let outcome = try await session.run(["dunstctl"] + arguments)
        try #require(outcome.status == 0, "dunstctl \(arguments): \(outcome.stderr)")
    }

    /// The scenario, one line per step: the step, the id the server gave, and what it said.
    static func scenario(_ server: some NotificationServer, hands: Hands) async throws -> [String] {
        let heard = Observed<[NotificationEvent]>([])
        let listening = Task {
            for await event in server.events {
                if case .serverChanged = event { continue }
                heard.update { $0.append(event) }
            }
        }
        defer { listening.cancel() }
        var ids: [UInt32] = []
        func name(_ id: UInt32) -> String {
            if let index = ids.firstIndex(of: id) { return "#\(index + 1)" }
            ids.append(id)
            return "#\(ids.count)"
        }
        func said(_ event: NotificationEvent) -> String {
            switch event {
            case .action(let id, let key): "action \(key) on \(name(id))"
            case .activationToken(let id, _): "activation token for \(name(id))"
            case .closed(let id, let reason): "closed \(name(id)), reason \(reason)"
            case .replied(let id, let text): "reply \(text) on \(name(id))"
            case .serverChanged: "server changed"
            }
        }
        func notification(_ summary: String) -> Notification {
            Notification(
                summary: summary, body: "eve opened issue #12", icon: "dialog-information",
                actions: [.init(key: "default", label: "Open"), .init(key: "mark-read", label: "Mark read")],
                desktopEntry: "gbnotify", category: "im.received", urgency: .normal, sound: nil, staysUntilDismissed: false)
        }
        var lines: [String] = []
        var saidSoFar = 0
        /// Waits until the server has said `count` more things, and names them.
        func awaitSaying(_ count: Int) async throws -> String {
            let total = saidSoFar + count
            let events = try await heard.wait(for: "\(count) more signals") { $0.count >= total }
            defer { saidSoFar = events.count }
            return events[saidSoFar...].map(said).joined(separator: "; ")
        }

        let first = try await server.show(notification("krz/a"), replacing: nil)
        lines.append("show krz/a -> \(name(first))")
        let replaced = try await server.show(notification("krz/a, replaced"), replacing: first)
        lines.append("replace \(name(first)) -> \(name(replaced))")
        try await server.close(replaced)
        lines.append("close \(name(replaced)) -> \(try await awaitSaying(1))")
        let second = try await server.show(notification("krz/b"), replacing: nil)
        lines.append("show krz/b -> \(name(second))")
        try await hands.click(second)
        lines.append("click \(name(second)) -> \(try await awaitSaying(1))")
        // Still open after the click: replaced in place, not shown anew.
        let kept = try await server.show(notification("krz/b, replaced"), replacing: second)
        lines.append("replace \(name(second)) -> \(name(kept))")
        try await hands.dismiss(kept)
        lines.append("dismiss \(name(kept)) -> \(try await awaitSaying(1))")
        // Nothing left to replace: a new notification.
        let fresh = try await server.show(notification("krz/b, again"), replacing: kept)
        lines.append("replace the closed \(name(kept)) -> \(name(fresh))")
        try await server.close(fresh)
        lines.append("close \(name(fresh)) -> \(try await awaitSaying(1))")
        return lines
    }
}

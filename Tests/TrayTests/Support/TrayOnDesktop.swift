import DBus
import Foundation
import Logging
import PushCore
import Synchronization
import TestSupport
import Tray

/// A `Tray` on a connection of its own to a desktop session's bus, as the daemon would run it,
/// with what it asks for collected in order.
final class TrayOnDesktop: Sendable {
    let connection: DBusConnection
    let tray: Tray
    private let received = Received()
    private let arrivals: AsyncStream<Void>
    private let reader: Task<Void, Never>
    let log: LogLines

    /// The count drawn on the source tree's icon by the built gbnotifyctl, as the daemon has it drawn.
    static let drawing = Tray.IconDrawing(program: Program.built("gbnotifyctl"), svgFile: "\(Standin.packageRoot)/packaging/gbnotify.svg")
    static let cmc = try! Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc")
    static let bob = try! Account(instance: GitbayInstance(parsing: "https://example.com"), username: "bob")

    static func row(_ id: Int64, repo: String = "krz/gitbay", actor: String = "ann") -> InboxItem {
        InboxItem(
            id: id, repo: repo, kind: .issue, actor: actor, summary: "opened issue #\(id)", path: "\(repo)/issues/\(id)",
            createdAt: "2026-01-01T00:00:00Z", readAt: nil)
    }

    /// `rows` newest first; `unread` defaults to their number.
    static func state(_ account: Account = cmc, unread: Int? = nil, _ rows: [InboxItem]) -> TrayState {
        TrayState(shelves: [TrayState.Shelf(account: account, unread: .exact(unread ?? rows.count), newest: rows)])
    }

    /// `body` with a tray on `session`, stopped after it; returns once the watcher has let it
    /// go and the host has taken it away, so that the next test's item takes its place in the
    /// panel and not beside it.
    static func with(
        on session: DesktopSession, admit: (@Sendable (DBusMethodCall) async throws -> Void)? = nil,
        _ body: (TrayOnDesktop) async throws -> Void
    ) async throws {
        let tray = try await start(on: session, admit: admit)
        do {
            try await body(tray)
        } catch let timedOut as TimedOut {
            // What the item heard from the watcher (registered, refused, no answer) says on which
            // side a wait for the host gave up.
            await tray.stop()
            throw TimedOut(description: "\(timedOut.description)\nthe tray logged:\n\(tray.log.all.suffix(12).joined(separator: "\n"))")
        } catch {
            await tray.stop()
            throw error
        }
        let service = tray.connection.uniqueName
        let title = try await session.withConnection { connection in
            try await connection.call(
                destination: service, path: "/StatusNotifierItem", interface: "org.freedesktop.DBus.Properties", member: "Get",
                arguments: [.string("org.kde.StatusNotifierItem"), .string("Title")]
            ).first?.variantValue?.stringValue
        }
        await tray.stop()
        try await TrayWatcher(session).waitUntilGone(service)
        if let title { try await TrayHost(session).waitUntilDropped(service, titled: title) }
    }

    static func start(
        on session: DesktopSession, mode: Config.Tray = .auto, admit: (@Sendable (DBusMethodCall) async throws -> Void)? = nil
    ) async throws -> TrayOnDesktop {
        let connection = try await session.connect()
        return try await start(on: connection, mode: mode, admit: admit)
    }

    static func start(
        on connection: DBusConnection, mode: Config.Tray = .auto, admit: (@Sendable (DBusMethodCall) async throws -> Void)? = nil
    ) async throws -> TrayOnDesktop {
        let log = LogLines()
        let logger = Logger(level: .debug) { line in log.lines.withLock { $0.append(line) } }
        let tray = try await Tray.start(on: connection, options: Tray.Options(mode: mode, drawing: drawing, admit: admit), logger: logger)
        return TrayOnDesktop(connection: connection, tray: tray, log: log)
    }

    private init(connection: DBusConnection, tray: Tray, log: LogLines) {
        self.connection = connection
        self.tray = tray
        self.log = log
        let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
        self.arrivals = arrivals
        let received = self.received
        let requests = tray.requests
        reader = Task {
            for await request in requests {
                received.list.withLock { $0.append(request) }
                arrived.yield()
            }
            arrived.finish()
        }
    }

    /// The requests so far.
    var requests: [TrayRequest] { received.list.withLock { $0 } }

    /// The first request after the `count` already seen, within `timeout`.
    func request(after count: Int, timeout: Duration = .seconds(60)) async throws -> TrayRequest {
        let received = received
        let arrivals = arrivals
        return try await withDeadline(timeout, "a tray request after \(count) (had \(requests))") {
            if let found = received.list.withLock({ $0.count > count ? $0[count] : nil }) { return found }
            for await _ in arrivals {
                if let found = received.list.withLock({ $0.count > count ? $0[count] : nil }) { return found }
            }
            throw CancellationError()
        }
    }

    func stop() async {
        tray.stop()
        reader.cancel()
        await connection.close()
    }
}

/// What the tray logged, for a failure's message and the tests that read it.
final class LogLines: Sendable {
    let lines = Mutex<[String]>([])

    var all: [String] { lines.withLock { $0 } }
}

final class Received: Sendable {
    let list = Mutex<[TrayRequest]>([])
}

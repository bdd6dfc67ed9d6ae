import Foundation
import DBus
import Synchronization
import TestSupport
import Testing

/// A plain client of `org.freedesktop.Notifications` on a session's bus: it calls Notify itself
/// (so it is the sender the server answers) and records every signal of the interface it
/// receives, broadcast or sent to it alone, with who sent it.
final class NotificationsClient: Sendable {
    let connection: DBusConnection
    private let signals: AsyncStream<DBusSignal>
    /// Everything received so far, and which of it `next` has handed out.
    private let received = Mutex<(signals: [DBusSignal], claimed: Set<Int>)>(([], []))

    private init(connection: DBusConnection, signals: AsyncStream<DBusSignal>) {
        self.connection = connection
        self.signals = signals
    }

    static func connect(to session: DesktopSession) async throws -> NotificationsClient {
        let connection = try await session.connect()
        let signals = try await connection.signals(matching: DBusMatchRule(interface: "org.freedesktop.Notifications"))
        return NotificationsClient(connection: connection, signals: signals)
    }

    func close() async {
        await connection.close()
    }

    /// Notify; the server's id. `actions` are (key, label) pairs.
    @discardableResult
    func notify(
        app: String = "Rig Test", title: String, body: String = "", icon: String = "", actions: [(String, String)] = [],
        hints: [String: DBusValue] = [:], timeout: Int32 = -1, replacing id: UInt32 = 0
    ) async throws -> UInt32 {
        let reply = try await connection.call(
            destination: NotificationsInterface.name, path: NotificationsInterface.path,
            interface: NotificationsInterface.name, member: "Notify",
            arguments: [
                .string(app), .uint32(id), .string(icon), .string(title), .string(body),
                .stringArray(actions.flatMap { [$0.0, $0.1] }), .vardict(hints), .int32(timeout),
            ])
        return try #require(reply.first?.uint32Value, "Notify answered \(reply)")
    }

    /// CloseNotification. (notification-daemon takes it from the sender of the notification
    /// only, and shows one bubble at a time: a test that leaves one open blocks the next.)
    func closeNotification(_ id: UInt32) async throws {
        _ = try await connection.call(
            destination: NotificationsInterface.name, path: NotificationsInterface.path,
            interface: NotificationsInterface.name, member: "CloseNotification", arguments: [.uint32(id)])
    }

    /// The first signal `member` about notification `id` not handed out before: one already
    /// received, or the next to come.
    @discardableResult
    func next(_ member: String, id: UInt32, timeout: Duration = .seconds(30)) async throws -> DBusSignal {
        let matches: @Sendable (DBusSignal) -> Bool = { $0.member == member && $0.arguments.first?.uint32Value == id }
        if let found = claim(matches) { return found }
        return try await withDeadline(timeout, "\(member) for notification \(id)") { [self] in
            for await signal in signals {
                let index = received.withLock { received in
                    received.signals.append(signal)
                    return received.signals.count - 1
                }
                if matches(signal) {
                    received.withLock { _ = $0.claimed.insert(index) }
                    return signal
                }
            }
            throw ConnectionClosed()
        }
    }

    /// Every signal received so far about `id`.
    func received(about id: UInt32) -> [DBusSignal] {
        received.withLock { $0.signals.filter { $0.arguments.first?.uint32Value == id } }
    }

    private func claim(_ matches: (DBusSignal) -> Bool) -> DBusSignal? {
        received.withLock { received in
            guard let index = received.signals.indices.first(where: {
                !received.claimed.contains($0) && matches(received.signals[$0])
            }) else { return nil }
            received.claimed.insert(index)
            return received.signals[index]
        }
    }
}

struct ConnectionClosed: Error {}

/// The owner's unique name of `name` on `session`'s bus.
func owner(of name: String, on connection: DBusConnection) async throws -> String {
    try #require(try await connection.nameOwner(name), "nobody owns \(name)")
}

/// Checks that `path` is a PNG of `width` by `height` pixels with something drawn on it (more
/// than a handful of colours), by ImageMagick's identify.
func expectPicture(_ path: String, width: Int, height: Int, on session: DesktopSession, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let header = try #require(FileManager.default.contents(atPath: path)?.prefix(8), sourceLocation: sourceLocation)
    #expect(Array(header) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "not a PNG", sourceLocation: sourceLocation)
    let identified = try await session.run(["identify", "-format", "%m %w %h %k", path])
    let fields = identified.stdout.split(separator: " ").map(String.init)
    #expect(fields.count == 4 && fields[0] == "PNG" && fields[1] == String(width) && fields[2] == String(height),
            "identify: \(identified.stdout) \(identified.stderr)", sourceLocation: sourceLocation)
    #expect((Int(fields.last ?? "") ?? 0) > 16, "a picture of a few colours only: \(identified.stdout)", sourceLocation: sourceLocation)
}

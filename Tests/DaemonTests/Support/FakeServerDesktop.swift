import DBus
import Desktop
import Foundation
import Logging
import MainLoop
import PushCore
import StateStore
import TestSupport

/// The desktop stage on a bus of the test's own, where `FakeNotificationServer` records what it
/// is sent: for what no real server lets a test see (a refusal, the hints of a call).
enum FakeServerDesktop {
    /// A desktop with `config` on a private bus (no dunst) whose notification server refuses
    /// `refusals` times and never answers a `Notify` of a summary in `unanswered`, on a clock
    /// the test moves.
    static func run(
        refusals: Int = 0, unanswered: Set<String> = [], config: Config = .defaults, test: String = #function,
        _ body: (Desktop, FakeNotificationServer, ManualClock, Observed<[String]>) async throws -> Void
    ) async throws {
        try await PrivateSession.run(test: test) {
            let server = try await FakeNotificationServer.start(capabilities: ["body"], refusals: refusals, unanswered: unanswered)
            let connection = try await DBusConnection.connect()
            let log = Observed<[String]>([])
            let clock = ManualClock()
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gbnotify-fake-server-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let desktop = try await Desktop.start(
                on: connection, state: StateFiles(StateDirectory(path: directory.path)),
                options: Desktop.Options(config: config, environment: [:], icon: "gbnotify", timeline: Timeline(clock)),
                logger: Logger(level: .debug) { line in log.update { $0.append(line) } })
            do {
                try await body(desktop, server, clock, log)
            } catch {
                await desktop.stop()
                await connection.close()
                await server.stop()
                throw error
            }
            await desktop.stop()
            await connection.close()
            await server.stop()
        }
    }
}

import Foundation
import TestSupport
import Testing

/// One `DesktopSession` around a whole suite (which should be `.serialized`: one server, one
/// banner), found in `current` by its tests. Its data directory holds `gbnotify-rig.desktop`
/// (Exec=true, so GNOME resolves it too), for the badge and the `desktop-entry` hint.
struct SharedDesktop: SuiteTrait, TestScoping {
    let server: DesktopSession.Server

    @TaskLocal static var current: DesktopSession?

    static let desktopEntry = "gbnotify-rig"

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let data = FileManager.default.temporaryDirectory.appending(path: "rig-data-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: data.appending(path: "applications"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: data) }
        try """
            [Desktop Entry]
            Type=Application
            Name=Rig Test
            Exec=true
            Icon=dialog-information
            """.write(to: data.appending(path: "applications/\(Self.desktopEntry).desktop"), atomically: true, encoding: .utf8)
        let session = try await DesktopSession.start(server, dataDirectory: data.path)
        do {
            try await Self.$current.withValue(session) { try await function() }
        } catch {
            await session.stop()
            throw error
        }
        await session.stop()
    }

    /// The suite's session; fails the test outside one.
    static func session(sourceLocation: SourceLocation = #_sourceLocation) throws -> DesktopSession {
        try #require(current, "not inside a suite with .desktop(...)", sourceLocation: sourceLocation)
    }
}

extension Trait where Self == SharedDesktop {
    static func desktop(_ server: DesktopSession.Server) -> Self {
        SharedDesktop(server: server)
    }
}

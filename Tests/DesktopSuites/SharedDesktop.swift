import Foundation
import Synchronization
import TestSupport
import Testing

/// One `DesktopSession` around a whole suite, found by its tests with `SharedDesktop.session()`:
/// GNOME Shell and Plasma take seconds to start here, a test a fraction of one. The suite should
/// be `.serialized` (one screen, one banner at a time):
///
///     @Suite(.serialized, .desktop(.plasma, installing: .gbnotify))
///
/// What the suite needs installed (`DesktopData`) goes into a data directory of its own, first
/// in the session's `XDG_DATA_DIRS`, before the server starts and reads it. A gitbay stand-in
/// for the programs on the desktop is the suite's too (`SharedDesktop.standin()`), for the same
/// reason: starting and stopping one for each test would cost more than most tests take here.
public struct SharedDesktop: SuiteTrait, TestScoping {
    public let server: DesktopSession.Server
    public let activation: DesktopSession.Activation
    public let installed: DesktopData?
    public let tray: Bool
    public let release: DesktopSession.Release

    @TaskLocal static var current: Shared?

    /// What a suite's tests share.
    final class Shared: Sendable {
        let session: DesktopSession
        /// Started by the first test that asks; none in a suite that never does (the rigs').
        private let standin = Mutex<Task<Standin, any Error>?>(nil)

        init(session: DesktopSession) {
            self.session = session
        }

        func startedStandin() async throws -> Standin {
            let starting = standin.withLock { starting in
                if let starting { return starting }
                let started = Task { try await Standin.start() }
                starting = started
                return started
            }
            return try await starting.value
        }

        func stop() async {
            if let starting = standin.withLock({ $0 }), let started = try? await starting.value {
                await started.stop()
            }
            await session.stop()
        }
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        var data: URL?
        if let installed {
            let directory = FileManager.default.temporaryDirectory.appending(path: "desktop-data-\(UUID().uuidString)")
            data = directory
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try installed.install(directory)
        }
        defer { if let data { try? FileManager.default.removeItem(at: data) } }
        // Programs the data holds (`bin/`) come first on the desktop's PATH, as a package's would be.
        var environment = ProcessInfo.processInfo.environment
        if let bin = data?.appending(path: "bin").path, FileManager.default.fileExists(atPath: bin) {
            environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        }
        let suite = Shared(session: try await DesktopSession.start(
            server, release: release, activation: activation, dataDirectory: data?.path, tray: tray, environment: environment))
        do {
            try await Self.$current.withValue(suite) { try await function() }
        } catch {
            await suite.stop()
            throw error
        }
        await suite.stop()
    }

    /// The suite's session; fails the test outside a suite with `.desktop(...)`.
    public static func session(sourceLocation: SourceLocation = #_sourceLocation) throws -> DesktopSession {
        try #require(current, "not inside a suite with .desktop(...)", sourceLocation: sourceLocation).session
    }

    /// The suite's gitbay stand-in, started on the first call and stopped after the suite; as
    /// the last test left it, so a test resets it first.
    public static func standin(sourceLocation: SourceLocation = #_sourceLocation) async throws -> Standin {
        try await #require(current, "not inside a suite with .desktop(...)", sourceLocation: sourceLocation).startedStandin()
    }
}

/// What a suite's session has installed in its data directory, where the server looks up a
/// notification's `desktop-entry` and icon names (and Plasma the entry a launcher badge is for);
/// programs in its `bin/` come first on the session's PATH.
/// Each test target says what it installs: gbnotify as packaged, a rig's own entry.
public struct DesktopData: Sendable {
    /// Writes the files into the (empty, existing) data directory.
    public let install: @Sendable (URL) throws -> Void

    public init(install: @escaping @Sendable (URL) throws -> Void) {
        self.install = install
    }
}

extension Trait where Self == SharedDesktop {
    /// The suite runs on one session of `server`, started as `activation` says, with
    /// `installed` in its data directory; with nothing installed it has no data directory at
    /// all, as a build tree that was never installed. With `tray`, the desktop's tray host runs
    /// too (`DesktopSession.start(tray:)`).
    public static func desktop(
        _ server: DesktopSession.Server, release: DesktopSession.Release = .debian12, activation: DesktopSession.Activation = .none,
        installing installed: DesktopData? = nil, tray: Bool = false
    ) -> Self {
        SharedDesktop(server: server, activation: activation, installed: installed, tray: tray, release: release)
    }
}

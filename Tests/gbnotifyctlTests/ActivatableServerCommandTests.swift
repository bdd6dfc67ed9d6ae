import Testing
import TestSupport

/// doctor and `gbnotifyctl test` where the notification server is installed but not running, and
/// only its D-Bus service file offers it, as mako on Sway and MATE's always (issue 25): a server
/// the bus can start is named, never a failure. doctor starts nothing; `test` is a notice, and
/// starts it as one would.
@Suite(.serialized)
struct ActivatableServerCommandTests {
    /// gbnotifyctl as a program of that desktop runs it: with the session's XDG_DATA_HOME, where
    /// its bus finds the server's service file (`session.environment` keeps this process's own).
    static func gbnotifyctl(_ command: String, on session: DesktopSession, adding extra: [String: String] = [:]) async throws -> Program.Outcome {
        var environment = session.environment.merging(extra) { $1 }
        environment["XDG_DATA_HOME"] = session.directory + "/home/.local/share"
        return try await Program.run([Program.built("gbnotifyctl"), command], environment: environment)
    }

    @Test(arguments: [
        (DesktopSession.Server.mako, "mako (fr.emersion.mako.service)"),
        (.mate, "mate-notification-daemon (org.freedesktop.mate.Notifications.service)"),
    ])
    func doctorNamesTheServerTheBusWouldStartAndLeavesItStopped(server: DesktopSession.Server, named: String) async throws {
        try await DesktopSession.withSession(server, activation: .onDemand) { session in
            let run = try await Self.gbnotifyctl("doctor", on: session)
            #expect(run.stdout.contains("ok       notification server: activatable: \(named); the bus starts it with the first notice"),
                    "\(run.stdout)\(run.stderr)")
            #expect(!run.stdout.contains("FAIL     notification server"))
            #expect(try await session.owner() == nil, "doctor started the server")
        }
    }

    @Test func testStartsAnActivatableMakoAndSaysWhichItStarted() async throws {
        try await DesktopSession.withSession(.mako, activation: .onDemand) { session in
            let run = try await Self.gbnotifyctl("test", on: session)
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            #expect(run.stdout.contains(
                "gbnotifyctl: the bus started the notification server for it: activatable: mako (fr.emersion.mako.service)"))
            #expect(try await session.owner()?.executable == "/usr/bin/mako")
            #expect(try await Mako(session).notifications().count == 1)
        }
    }

    @Test func testSaysWhichItStartedInTheSessionsLanguage() async throws {
        try await DesktopSession.withSession(.mako, activation: .onDemand) { session in
            let run = try await Self.gbnotifyctl("test", on: session, adding: try await Translations.environment("de"))
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            #expect(run.stdout.contains(
                "gbnotifyctl: Der Bus hat den Benachrichtigungsserver dafür gestartet: aktivierbar: mako (fr.emersion.mako.service)"),
                "\(run.stdout)")
        }
    }

    /// Where the server already runs, `test` does not claim to have started it.
    @Test func testOnARunningMakoSaysNothingOfStartingIt() async throws {
        try await DesktopSession.withSession(.mako, activation: .activatable) { session in
            let run = try await Self.gbnotifyctl("test", on: session)
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            #expect(run.stdout.hasPrefix("gbnotifyctl: sent a sample notification"))
            #expect(!run.stdout.contains("started"))
        }
    }
}

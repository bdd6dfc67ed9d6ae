import DBus
import Foundation
import Glibc
import PushCore
import StateStore
import TestSupport
import Testing

/// Issue 24's state files against the real gbnotifyd, each test in a session of its own: what is
/// read back from the state directory is bounded like what a server sends, and a state file that
/// is not a regular file is set aside unread. On cdd6bf3 the first crashed the daemon at every
/// start (SIGILL: a crash loop under `Restart=on-failure`), and the second hung it before it was
/// ready, deaf to SIGTERM.
@Suite struct StateFileTrustTests {
    /// A `notifications.json` entry with the id 18446744073709551615 (UInt64.max), saved for the
    /// notification server that runs now, so that the daemon takes it over at start; and an
    /// `accounts.json` whose numbers are out of their range (a negative high-water mark and
    /// device id, Int.max unread, an ETag with an escape in it). Both are set aside as corrupt
    /// files are, with a warning each; the daemon starts, answers `Status`, polls the account
    /// afresh, and stops cleanly.
    @Test func storedNumbersAtTheirTypesEdgeAreSetAsideNotACrash() async throws {
        try await PrivateSession.run(notifications: true) {
            let fixture = try await BinaryFixture.start()
            let rows = try await fixture.standin.addNotifications(for: "cmc", count: 2)
            let bus = try await DBusConnection.connect()
            let server = try #require(try await bus.nameOwner("org.freedesktop.Notifications"))
            await bus.close()
            let state = fixture.home.stateDirectory
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
            chmod(state, 0o700)
            try """
                {"version":1,"serverOwner":"\(server)","entries":[{"id":18446744073709551615,\
                "account":{"instance":"\(fixture.account.instance.url)","user":"cmc"},"subject":{"tokenRejected":{}},\
                "serverID":7,"needsShowing":false,"isAdopted":false}]}
                """.write(toFile: state + "/notifications.json", atomically: false, encoding: .utf8)
            try """
                {"version":1,"accounts":{"\(fixture.account.id)":{"highWater":-5,"deviceID":-1,\
                "unread":9223372036854775807,"listETag":"\\u001b]52;c;eA==\\u0007"}}}
                """.write(toFile: state + "/accounts.json", atomically: false, encoding: .utf8)

            let readiness = try NotifySocket(path: fixture.home.notifySocket)
            let daemon = try RunningDaemon(environment: fixture.home.environment)
            #expect(try await readiness.receive().hasPrefix("READY=1"))
            try await daemon.waitForLine(containing: "notifications.json was unreadable; kept it as")
            try await daemon.waitForLine(containing: "accounts.json was unreadable; kept it as")
            try await daemon.waitForPoll(of: fixture.account)
            #expect(try await fixture.home.ctl(["status"]).status == 0)
            // Afresh, from a file of its own: the mark is the newest row's.
            #expect(try fixture.savedHighWater() == Int64(rows.last!))
            let setAside = try FileManager.default.contentsOfDirectory(atPath: state).filter { $0.contains(".corrupt-") }
            #expect(setAside.count == 2, "\(setAside)")

            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            await fixture.finish()
        }
    }

    /// FIFOs where `notifications.json` and `accounts.json` belong (opening one for reading
    /// waits for a writer that never comes): each is set aside unread, with a warning, and the
    /// daemon gets ready, polls its account, answers `Status` and stops on SIGTERM.
    @Test func theDaemonSetsAsideFIFOsWhereItsStateFilesBelong() async throws {
        try await PrivateSession.run {
            let fixture = try await BinaryFixture.start()
            let state = fixture.home.stateDirectory
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
            chmod(state, 0o700)
            for name in ["notifications.json", "accounts.json"] {
                #expect(mkfifo(state + "/" + name, 0o600) == 0)
            }

            let readiness = try NotifySocket(path: fixture.home.notifySocket)
            let daemon = try RunningDaemon(environment: fixture.home.environment)
            #expect(try await readiness.receive().hasPrefix("READY=1"))
            try await daemon.waitForLine(containing: "notifications.json is a FIFO, not a regular file; kept it as")
            try await daemon.waitForPoll(of: fixture.account)
            #expect(daemon.lines(containing: "accounts.json is a FIFO, not a regular file; kept it as").count == 1)
            #expect(try await fixture.home.ctl(["status"]).status == 0)
            // Written anew as a regular file; the FIFOs kept beside it.
            #expect(try fixture.savedHighWater() != nil)
            let setAside = try FileManager.default.contentsOfDirectory(atPath: state).filter { $0.contains(".corrupt-") }
            #expect(setAside.count == 2, "\(setAside)")

            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            await fixture.finish()
        }
    }
}

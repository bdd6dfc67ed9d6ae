import Daemon
import DesktopSuites
import Foundation
import Glibc
import PushCore
import Settings
import StateStore
import TestSupport
import Testing

/// The machine's own side fails: files that cannot be read, config and state cut short or
/// garbled, a disk that takes no more bytes. (The tests may run as root, where mode 000 stops
/// no read, so "unreadable" is a directory where a file belongs: a read that fails for real.)
/// The waits between polls pass in virtual time, as in FaultGitbayTests.
@Suite(.needsDesktopSession) struct FaultLocalTests {
    @Test func anUnreadableStateFileStartsEveryAccountAfreshWithoutAFlood() async throws {
        try await Harness.run { harness in
            let rows = try await harness.instances[0].standin.addNotifications(for: Harness.username, count: 5)
            try harness.state.create()
            try FileManager.default.createDirectory(atPath: harness.state.path + "/accounts.json", withIntermediateDirectories: false)
            let supervisor = harness.supervisor(parts: Supervisor.Parts(timeline: harness.virtualTime(pollers: 2)))
            try await supervisor.start()

            // Nothing old replayed: one summary of what is unread.
            let notices = try await harness.desktop.waitForNotices(1, for: harness.instances[0].account)
            #expect(notices.map(\.gist) == [.firstSight(5, Int64(rows.last!))])
            try await harness.waitForLog("cannot read the account state, so every account starts afresh")
            try await harness.waitForLog("cannot save the account's state")
            // Marks kept in memory: each new row is shown once, on both accounts. Registering
            // waits for a place to keep the device token: a token made afresh at every start
            // would leave a row behind each time.
            try await harness.expectShowsNewRowsOnce(0, from: supervisor, state: .registrationFailed)
            try await harness.expectShowsNewRowsOnce(1, from: supervisor, state: .registrationFailed)
            // Said once per account, not once per poll.
            #expect(harness.log.value.count { $0.hasPrefix("<3>") && $0.contains("cannot save the account's state") } == 2)
        }
    }

    /// State files garbled rather than cut short (RestartTests has the truncated one): set
    /// aside, started afresh with one summary, never a replay, on both accounts.
    @Test(arguments: [
        Data([0xff, 0x00, 0x7b, 0x22]),
        Data(#"{"accounts":"all of them","version":1}"#.utf8),
        Data(#"{"accounts":{},"version":99}"#.utf8),
    ])
    func aGarbledStateIsSetAsideWithoutReplayingTheInbox(_ contents: Data) async throws {
        try await Harness.run { harness in
            let rows = try await harness.instances[0].standin.addNotifications(for: Harness.username, count: 4)
            try harness.state.create()
            try contents.write(to: URL(fileURLWithPath: harness.state.path + "/accounts.json"))
            let supervisor = harness.supervisor(parts: Supervisor.Parts(timeline: harness.virtualTime(pollers: 2)))
            try await supervisor.start()

            let notices = try await harness.desktop.waitForNotices(1, for: harness.instances[0].account)
            #expect(notices.map(\.gist) == [.firstSight(4, Int64(rows.last!))])
            #expect(harness.log.value.contains { $0.hasPrefix("<4>") && $0.contains("accounts.json was unreadable; kept it as") })
            let setAside = try FileManager.default.contentsOfDirectory(atPath: harness.state.path).filter { $0.contains(".corrupt-") }
            #expect(setAside.count == 1, "\(setAside)")
            try await harness.expectShowsNewRowsOnce(0, from: supervisor)
            try await harness.expectShowsNewRowsOnce(1, from: supervisor)
        }
    }

    /// A state directory another user could write to would let them plant what the daemon
    /// reads (a relay cursor, notifications to take over): a clear error at start, nothing sent.
    @Test func aStateDirectoryOthersCanWriteIsAClearErrorAtStart() async throws {
        try await Harness.run(1) { harness in
            try harness.state.create()
            chmod(harness.state.path, 0o777)
            let supervisor = harness.supervisor()
            let error = await #expect(throws: StateError.self) { try await supervisor.start() }
            #expect("\(error.map { "\($0)" } ?? "")".contains("other users may write to it"), "\(String(describing: error))")
            #expect(try await harness.instances[0].standin.requests().isEmpty)
        }
    }

    /// A reload that finds the config unreadable or cut short keeps the settings in use and
    /// every account polling.
    @Test func anUnreadableOrTruncatedConfigOnReloadKeepsEverythingRunning() async throws {
        try await Harness.run { harness in
            let path = harness.directory.appendingPathComponent("config").path
            try FileManager.default.createDirectory(at: harness.directory, withIntermediateDirectories: true)
            let supervisor = harness.supervisor(
                loadSettings: { () throws(ConfigFileError) in DaemonSettings(config: try ConfigFile.load(path)) }, parts: Supervisor.Parts(timeline: harness.virtualTime(pollers: 2)))
            try await supervisor.start()
            try await harness.expectShowsNewRowsOnce(0, from: supervisor)

            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            let unreadable = await #expect(throws: ReloadError.self) { try await supervisor.reload() }
            #expect(unreadable?.problems == ["config \(path): cannot read it: Is a directory; kept the settings in use"])

            try FileManager.default.removeItem(atPath: path)
            // Cut off mid-write: the last line lost its value.
            try Data("poll-interval = 45\nbackoff-cap =".utf8).write(to: URL(fileURLWithPath: path))
            let truncated = await #expect(throws: ReloadError.self) { try await supervisor.reload() }
            #expect(truncated?.description.contains("config \(path): line 2: backoff-cap") == true, "\(String(describing: truncated))")

            try await harness.expectShowsNewRowsOnce(0, from: supervisor)
            try await harness.expectShowsNewRowsOnce(1, from: supervisor)
        }
    }

    /// A full disk, for real: the daemon runs with a file size limit of 0 (and SIGXFSZ ignored,
    /// so the write fails with EFBIG rather than killing it, as ENOSPC would fail it). The
    /// marks stay in memory, so nothing is shown twice while the disk is full; once the limit
    /// is lifted the state is written after the next poll, and a kill -9 then loses nothing.
    @Test func aFullStateDiskIsLoggedKeptInMemoryAndRetried() async throws {
        try await PrivateSession.run {
            let fixture = try await BinaryFixture.start()
            try await fixture.standin.addNotifications(for: "cmc", count: 2)
            // The install token exists, as on any machine that ran gbnotifyd before the disk filled.
            try FileManager.default.createDirectory(
                atPath: fixture.home.stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try Data((String(repeating: "5a", count: 32) + "\n").utf8)
                .write(to: URL(fileURLWithPath: fixture.home.stateDirectory + "/install-token"))

            let full = try RunningDaemon(
                environment: fixture.home.environment,
                wrapper: ["/bin/sh", "-c", #"ulimit -S -f 0 && trap '' XFSZ && exec "$@""#, "sh"])
            try await full.waitForPoll(of: fixture.account, saying: "200 ok, 2 new")
            try await full.waitForLine(containing: "\(fixture.name): cannot save the account's state")
            #expect(try fixture.savedHighWater() == nil)

            let added = try await fixture.standin.addNotification(for: "cmc")
            full.send(SIGHUP)
            try await full.waitForPoll(of: fixture.account, saying: "200 ok, 1 new")
            // Polled again with the mark and ETag in memory: nothing new, the write tried again.
            full.send(SIGHUP)
            try await full.waitForPoll(of: fixture.account, saying: "304 not modified")
            try await full.waitForLine(containing: "\(fixture.name): still cannot save the account's state")

            // Room on the disk again.
            let lifted = try await Program.run(
                ["prlimit", "--pid", "\(full.pid)", "--fsize=unlimited"], environment: ProcessInfo.processInfo.environment)
            try #require(lifted.status == 0, "prlimit: \(lifted.stderr)")
            full.send(SIGHUP)
            try await full.waitForLine(containing: "\(fixture.name): the account's state is saved again")
            #expect(try fixture.savedHighWater() == Int64(added))
            #expect(full.lines(containing: " new") == [
                "<7>\(fixture.name): 200 ok, 2 new", "<7>\(fixture.name): 200 ok, 1 new",
            ])
            #expect(full.lines(containing: "cannot save").filter { $0.hasPrefix("<3>") }.count == 1)
            full.send(SIGKILL)
            #expect(try await full.waitForExit() == 128 + SIGKILL)

            // Restarted: nothing shown again (its first poll reads the list whole, for the tray).
            let again = try RunningDaemon(environment: fixture.home.environment)
            try await again.waitForPoll(of: fixture.account, saying: "200 ok")
            #expect(again.lines(containing: " new").isEmpty, "\(again.lines.value)")
            again.send(SIGTERM)
            #expect(try await again.waitForExit() == 0)
            await fixture.finish()
        }
    }
}

import Foundation
import Glibc
import PushCore
import Synchronization
import Testing
import TestSupport

@testable import StateStore

/// Issue 24: the state store never blocks and never trusts what it reads back. A FIFO or a
/// device where a state file belongs is set aside unread; the lock is never waited on without a
/// bound; numbers out of their range make a file unusable, set aside and rebuilt as a corrupt
/// one is. Each call that could hang runs on a thread of its own and must end within a bound,
/// so that a hang fails the test instead of stopping the run.
@Suite struct StateFileSafetyTests {
    /// The longest a call here may take: several times the lock's own wait.
    static let bound = Duration.seconds(10)

    // MARK: - Not a regular file

    @Test(arguments: ["notifications.json", "accounts.json", "relay-cursor.json"])
    func aFIFOWhereAStateFileBelongsIsSetAsideUnread(_ name: String) async throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        let fifo = scratch.path + "/" + name
        try #require(mkfifo(fifo, 0o600) == 0)
        // On a hang, a writer opening the FIFO lets the stuck open return, so the thread ends.
        defer { Self.unblockReader(of: fifo) }
        let warning = try #require(await Self.finishes("loading \(name)") { () throws(StateError) -> String? in
            switch name {
            case "notifications.json":
                let (saved, warning) = try state.loadScreen()
                return saved == nil ? warning : "read \(String(describing: saved))"
            case "accounts.json":
                let (loaded, warning) = try state.loadAccounts()
                return loaded == PersistedAccounts() ? warning : "read \(loaded)"
            default:
                let (cursor, warning) = try state.loadRelayCursor()
                return cursor == nil ? warning : "read \(String(describing: cursor))"
            }
        }.get())
        let aside = try Self.setAside(name, in: scratch)
        #expect(warning.hasPrefix("\(fifo) is a FIFO, not a regular file; kept it as \(aside), and "), "\(warning)")
        // Set aside, so the next start neither waits nor warns again.
        #expect(!FileManager.default.fileExists(atPath: fifo))
        #expect(try state.loadAccounts().warning == nil)
    }

    /// A device (here /dev/zero's, which would be read without end) where `accounts.json`
    /// belongs is set aside unread too. Making a device node needs root, as CI runs.
    @Test func aDeviceWhereAStateFileBelongsIsSetAsideUnread() async throws {
        guard geteuid() == 0 else { return }
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        // Major 1, minor 5: /dev/zero.
        try #require(mknod(scratch.path + "/accounts.json", S_IFCHR | 0o600, dev_t((1 << 8) | 5)) == 0)
        let warning = try await Self.finishes("loading accounts.json") { () throws(StateError) in try state.loadAccounts().warning }.get()
        #expect(warning?.contains("accounts.json is a character device, not a regular file; kept it as") == true, "\(String(describing: warning))")
        try state.updateAccounts { $0.accounts["x"] = AccountRecord(deviceID: 1) }
        #expect(try state.loadAccounts().state.accounts["x"]?.deviceID == 1)
    }

    /// A FIFO at the lock's name is refused with a clear error, not opened and waited on.
    @Test func aFIFOAtTheLockIsAClearError() async throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        try #require(mkfifo(scratch.path + "/lock", 0o600) == 0)
        let outcome = await Self.finishes("an update") { () throws(StateError) in
            try state.updateAccounts { $0.accounts["x"] = AccountRecord(deviceID: 1) }.warning
        }
        #expect {
            try outcome.get()
        } throws: { error in
            "\(error)" == "\(scratch.path)/lock is a FIFO, not a regular file; remove it"
        }
    }

    // MARK: - The lock

    /// Another process holding the lock (util-linux's `flock`, as a stopped or hung gbnotifyctl
    /// would): a change gives up after `lockWait` with a clear error and writes nothing; once the
    /// holder lets go, it goes through. On cdd6bf3 the change waited in flock(2) for as long as
    /// the holder held on.
    @Test func aLockHeldByAnotherProcessIsWaitedOnForABoundedTimeOnly() async throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        try state.create()
        let holder = try await holdLock(scratch.path + "/lock")
        let started = ContinuousClock.now
        let outcome = await Self.finishes("an update while the lock is held", release: holder) { () throws(StateError) in
            try state.updateAccounts { $0.accounts["x"] = AccountRecord(deviceID: 1) }.warning
        }
        let waited = ContinuousClock.now - started
        #expect {
            try outcome.get()
        } throws: { error in
            "\(error)" == "another process has held \(scratch.path)/lock for over 2.0 seconds, so the state was left as it is"
        }
        #expect(waited >= .seconds(2))
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/accounts.json"))
        await holder.stop()
        try state.updateAccounts { $0.accounts["x"] = AccountRecord(deviceID: 1) }
        #expect(try state.loadAccounts().state.accounts["x"]?.deviceID == 1)
    }

    // MARK: - Numbers out of range

    /// On cdd6bf3 each of these was read as it was: a negative mark shows every unread row again,
    /// a device id of 0 or less goes back to the server in `device remove`, an ETag with an
    /// escape in it goes back as a header.
    @Test(arguments: [
        #"{"highWater":-1}"#, #"{"highWater":-9223372036854775808}"#, #"{"highWater":9223372036854775808}"#,
        #"{"deviceID":0}"#, #"{"deviceID":-7}"#, #"{"legacyDeviceID":-1}"#, #"{"deviceID":18446744073709551615}"#,
        #"{"listETag":""}"#, #"{"listETag":"\"a\" b"}"#, #"{"listETag":"\u001b]52;c;eA==\u0007"}"#,
        #"{"listETag":"\u009b31m"}"#, "{\"listETag\":\"\(String(repeating: "a", count: 257))\"}",
        #"{"unread":"5"}"#,
    ])
    func accountStateOutOfRangeIsSetAsideAndRebuilt(_ record: String) throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        try #"{"version":1,"accounts":{"cmc@https://gitbay.org":\#(record)}}"#
            .write(toFile: scratch.path + "/accounts.json", atomically: false, encoding: .utf8)
        let (loaded, warning) = try state.loadAccounts()
        #expect(loaded == PersistedAccounts())
        #expect(warning?.contains("accounts.json was unreadable; kept it as") == true, "\(String(describing: warning))")
        #expect(try scratch.contents().contains { $0.hasPrefix("accounts.json.corrupt-") })
    }

    /// Counts are clamped as a server's are, and a registration error is cut to a line.
    @Test func accountStateCountsAreClampedAndItsWordsBounded() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        let long = String(repeating: "x", count: 10_000)
        try """
            {"version":1,"accounts":{"a":{"unread":9223372036854775807,"highWater":0},"b":{"unread":-3},\
            "c":{"unread":1e300,"registrationError":"\(long)"}}}
            """.write(toFile: scratch.path + "/accounts.json", atomically: false, encoding: .utf8)
        let (loaded, warning) = try state.loadAccounts()
        #expect(warning == nil)
        #expect(loaded.accounts["a"] == AccountRecord(highWater: 0, unread: OutsideCount.maximum))
        #expect(loaded.accounts["b"] == AccountRecord(unread: 0))
        #expect(loaded.accounts["c"]?.unread == OutsideCount.maximum)
        #expect(loaded.accounts["c"]?.registrationError?.count == 500)
        // What the daemon writes reads back as it was.
        let written = AccountRecord(
            deviceToken: String(repeating: "ab", count: 32), deviceID: 7, legacyDeviceID: 3, registrationError: "x",
            highWater: 0, listETag: #""0123456789abcdef0123456789abcdef""#, unread: 4)
        try state.updateAccounts { $0.accounts = ["d": written] }
        let reread = try state.loadAccounts()
        #expect(reread.warning == nil)
        #expect(reread.state.accounts == ["d": written])
    }

    /// The entry id 18446744073709551615 that trapped the daemon at start on cdd6bf3: the file
    /// is set aside and nothing is taken over.
    @Test func aScreenFileWithAnIDAtItsTypesEdgeIsSetAsideAndRebuilt() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        try """
            {"version":1,"serverOwner":":1.4","entries":[{"id":18446744073709551615,\
            "account":{"instance":"https://gitbay.org","user":"cmc"},"subject":{"tokenRejected":{}},\
            "serverID":7,"needsShowing":false,"isAdopted":false}]}
            """.write(toFile: scratch.path + "/notifications.json", atomically: false, encoding: .utf8)
        let (saved, warning) = try state.loadScreen()
        try #require(saved == nil)
        #expect(warning?.hasSuffix("and no notification is taken over") == true, "\(String(describing: warning))")
        #expect(try scratch.contents().contains { $0.hasPrefix("notifications.json.corrupt-") })
        #expect(ScreenBook(limit: 3, adopting: saved, serverOwner: ":1.4").entries.isEmpty)
    }

    // MARK: - Pieces

    /// `work`'s outcome, or a recorded failure when it takes longer than `bound` (then `release`
    /// is let go, or the FIFO opened, so the stuck thread can end).
    static func finishes<Value: Sendable>(
        _ what: String, release: LifelineProcess? = nil, _ work: @escaping @Sendable () throws(StateError) -> Value
    ) async -> Result<Value, StateError> {
        let outcome = Mutex<Result<Value, StateError>?>(nil)
        Thread.detachNewThread {
            let result = Result { () throws(StateError) in try work() }
            outcome.withLock { $0 = result }
        }
        let deadline = ContinuousClock.now + bound
        while true {
            // Looked at once more after the deadline: on a loaded machine this task may first
            // run again long after it, when the work has been done for a while.
            let overdue = ContinuousClock.now >= deadline
            if let result = outcome.withLock({ $0 }) { return result }
            if overdue { break }
            try? await Task.sleep(for: .milliseconds(10))
        }
        await release?.stop()
        Issue.record("\(what) did not finish within \(bound)")
        return .failure(.io("\(what): hung", errno: ETIMEDOUT))
    }

    /// Opens the FIFO for writing without waiting and closes it: a reader stuck opening it goes on.
    static func unblockReader(of fifo: String) {
        let fd = open(fifo, O_WRONLY | O_NONBLOCK)
        if fd >= 0 { close(fd) }
    }

    static func setAside(_ name: String, in scratch: ScratchDirectory) throws -> String {
        let contents = try scratch.contents()
        let aside = try #require(contents.first { $0.hasPrefix(name + ".corrupt-") }, "\(name) not set aside: \(contents)")
        return scratch.path + "/" + aside
    }
}

/// `flock LOCK cat`: another process holding the lock until its lifeline closes (`stop()`).
func holdLock(_ lock: String) async throws -> LifelineProcess {
    // Held once it says so.
    try await LifelineProcess.started(
        ["flock", "--exclusive", lock, "sh", "-c", "echo locked; exec cat"], readyLines: 1, readyTimeout: .seconds(10))
}

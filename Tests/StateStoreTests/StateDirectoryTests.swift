import Foundation
import Glibc
import PushCore
import Testing

@testable import StateStore

/// A fresh directory per test, removed afterwards.
final class ScratchDirectory {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("gbnotify-state-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    func mode(_ name: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path + "/" + name)
        return (attributes[.posixPermissions] as! NSNumber).intValue
    }

    func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }
}

@Suite struct StateDirectoryTests {
    @Test func followsXDGStateHomeThenHome() throws {
        #expect(try StateDirectory(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]).path == "/s/gbnotifyd")
        #expect(try StateDirectory(environment: ["HOME": "/h"]).path == "/h/.local/state/gbnotifyd")
        // The XDG spec says relative paths are invalid and must be ignored.
        #expect(try StateDirectory(environment: ["XDG_STATE_HOME": "rel", "HOME": "/h"]).path == "/h/.local/state/gbnotifyd")
        #expect(throws: StateError.noStateDirectory) { try StateDirectory(environment: [:]) }
    }

    @Test func aDeviceTokenIsMadeOncePerAccountPrivateAndKept() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path + "/a/gbnotifyd")
        let first = try state.deviceToken(for: "cmc@https://gitbay.org")
        let again = try state.deviceToken(for: "cmc@https://gitbay.org")
        let other = try state.deviceToken(for: "cmc@https://other.example")
        #expect(first.token == again.token)
        #expect(first.token != other.token)
        #expect(first.warning == nil)
        #expect(try scratch.mode("a/gbnotifyd") == 0o700)
        #expect(try scratch.mode("a/gbnotifyd/accounts.json") == 0o600)
        #expect(try state.loadAccounts().state.accounts["cmc@https://gitbay.org"]?.deviceToken == first.token.hex)
    }

    @Test func manyAccountsGetTheirDeviceTokensInOneCallAndSavedOnesAreKept() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        let saved = try state.deviceToken(for: "b").token
        let ids = (0..<50).map { "u\($0)@https://gitbay.org" } + ["b"]
        let (tokens, warning) = try state.deviceTokens(for: ids)
        #expect(warning == nil)
        #expect(tokens.count == 51)
        #expect(tokens["b"] == saved)
        #expect(Set(tokens.values.map(\.hex)).count == 51)
        let records = try state.loadAccounts().state.accounts
        #expect(ids.allSatisfy { records[$0]?.deviceToken == tokens[$0]?.hex })
        #expect(try state.deviceTokens(for: ids).tokens == tokens)
    }

    @Test func anUnusableDeviceTokenIsReplaced() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        try state.updateAccounts { $0.accounts["a"] = AccountRecord(deviceToken: "not a token", deviceID: 3) }
        let token = try state.deviceToken(for: "a").token
        #expect(token.hex.count == 64)
        // The old id was the unusable token's: the new one is registered afresh.
        #expect(try state.loadAccounts().state.accounts["a"] == AccountRecord(deviceToken: token.hex))
    }

    @Test func anEarlierVersionsDeviceIDIsKeptAsLegacyWhenTheAccountGetsItsToken() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        try state.updateAccounts { $0.accounts["a"] = AccountRecord(deviceID: 7, highWater: 40) }
        let token = try state.deviceToken(for: "a").token
        #expect(try state.loadAccounts().state.accounts["a"] == AccountRecord(deviceToken: token.hex, legacyDeviceID: 7, highWater: 40))
    }

    @Test func theLegacyInstallTokenIsReadOnly() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        #expect(try state.legacyInstallToken() == nil)
        let hex = String(repeating: "ab", count: 32)
        try (hex + "\n").write(toFile: state.installTokenPath, atomically: false, encoding: .utf8)
        #expect(try state.legacyInstallToken()?.hex == hex)
        try "garbage".write(toFile: state.installTokenPath, atomically: false, encoding: .utf8)
        #expect(try state.legacyInstallToken() == nil)
    }

    @Test func aStateDirectoryOthersCanWriteIsRefused() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path + "/open")
        try FileManager.default.createDirectory(atPath: state.path, withIntermediateDirectories: false)
        chmod(state.path, 0o777)
        #expect {
            try state.updateAccounts { $0.accounts["x"] = AccountRecord(deviceID: 1) }
        } throws: { error in
            "\(error)".contains("other users may write to it") && "\(error)".contains("chmod 700")
        }
        #expect(!FileManager.default.fileExists(atPath: state.path + "/accounts.json"))
    }

    @Test func aStateDirectoryOfAnotherUserIsRefused() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path + "/theirs")
        try FileManager.default.createDirectory(atPath: state.path, withIntermediateDirectories: false)
        chmod(state.path, 0o700)
        // Owned by someone else: as root by chown; as anyone else, the test's own directory
        // cannot be given away, so this case needs root (CI runs as root).
        guard geteuid() == 0 else { return }
        #expect(chown(state.path, 12345, 12345) == 0)
        #expect {
            try state.create()
        } throws: { error in
            "\(error)".contains("belongs to user id 12345")
        }
    }

    @Test func aStateDirectoryThatIsALinkIsRefused() throws {
        let scratch = try ScratchDirectory()
        try FileManager.default.createDirectory(atPath: scratch.path + "/elsewhere", withIntermediateDirectories: false)
        #expect(symlink(scratch.path + "/elsewhere", scratch.path + "/link") == 0)
        let state = StateDirectory(path: scratch.path + "/link")
        #expect {
            try state.create()
        } throws: { error in
            "\(error)".contains("is not a directory")
        }
    }

    @Test func stateFilesAreNeverReadOrWrittenThroughALink() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path + "/state")
        try state.create()
        let victim = scratch.path + "/victim"
        try "precious".write(toFile: victim, atomically: false, encoding: .utf8)
        // A link planted where the state file goes is not read through...
        #expect(symlink(victim, state.path + "/relay-cursor.json") == 0)
        #expect(throws: StateError.self) { try state.loadRelayCursor() }
        // ...and one planted at the temporary file's name is not written through.
        #expect(symlink(victim, state.path + "/accounts.json.tmp-\(getpid())") == 0)
        try state.updateAccounts { $0.accounts["x"] = AccountRecord(deviceID: 1) }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        #expect(try state.loadAccounts().state.accounts["x"]?.deviceID == 1)
    }

    @Test func aLinkPlantedAtTheLockIsNotFollowed() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path + "/state")
        try state.create()
        // Opened with O_CREAT through the link, the lock would make a file wherever it points.
        let target = scratch.path + "/made-through-the-link"
        #expect(symlink(target, state.path + "/lock") == 0)
        #expect {
            try state.updateAccounts { $0.accounts["x"] = AccountRecord(deviceID: 1) }
        } throws: { error in
            "\(error)".contains("cannot open \(state.path)/lock")
        }
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(!FileManager.default.fileExists(atPath: state.path + "/accounts.json"))
    }

    @Test func theScreenIsSavedReadBackAndRemoved() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        let account = try Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc")
        var book = ScreenBook(limit: 3)
        book.take(AccountUpdate(account: account, unread: .exact(4)))
        book.shown(book.entries[0], serverID: 17)
        let saved = book.saved(serverOwner: ":1.5")
        try state.saveScreen(saved)
        #expect(try state.loadScreen().saved == saved)
        #expect(try scratch.mode("notifications.json") == 0o600)
        try state.removeScreen()
        try state.removeScreen()
        #expect(try state.loadScreen().saved == nil)
    }

    @Test func accountStateRoundTripsAndIsPrivate() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        try state.updateAccounts { $0.accounts["cmc@https://gitbay.org"] = AccountRecord(deviceID: 7) }
        let (loaded, warning) = try state.loadAccounts()
        #expect(warning == nil)
        #expect(loaded.accounts["cmc@https://gitbay.org"]?.deviceID == 7)
        #expect(try scratch.mode("accounts.json") == 0o600)
        // No temporary file is left behind by the atomic write.
        #expect(try scratch.contents() == ["accounts.json", "lock"])
    }

    @Test func anUnchangedStateIsNotRewritten() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        try state.updateAccounts { _ in }
        #expect(!FileManager.default.fileExists(atPath: state.accountsFile.path))
    }

    @Test(arguments: ["{\"version\": 1, \"accounts\": {\"x\": {\"deviceID\": 7", "garbage", "", "{\"version\": 99, \"accounts\": {}}", "[1,2]"])
    func unreadableAccountStateIsSetAsideNotFatal(contents: String) throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        try contents.write(toFile: state.accountsFile.path, atomically: false, encoding: .utf8)
        let (loaded, warning) = try state.loadAccounts()
        #expect(loaded == PersistedAccounts())
        #expect(warning?.contains("unreadable") == true)
        #expect(try scratch.contents().contains { $0.hasPrefix("accounts.json.corrupt-") })
        // The next load starts from the clean slate without another warning.
        #expect(try state.loadAccounts().warning == nil)
    }

    @Test func concurrentUpdatesLoseNothing() async throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<25 {
                        try state.updateAccounts { $0.accounts["n", default: AccountRecord(highWater: 0)].highWater! += 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try state.loadAccounts().state.accounts["n"]?.highWater == 100)
    }

    @Test func aWriteThatCannotHappenIsAnErrorNotACrash() throws {
        // /dev/null is not a directory, whoever runs the test (root ignores permission bits).
        let state = StateDirectory(path: "/dev/null/gbnotifyd")
        #expect(throws: StateError.self) { try state.updateAccounts { $0.accounts["x"] = AccountRecord(deviceID: 1) } }
        #expect(throws: StateError.self) { try state.deviceToken(for: "x") }
    }
}

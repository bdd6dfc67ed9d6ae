import Foundation
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

    @Test func installTokenIsMadeOncePrivateAndKept() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path + "/a/gbnotifyd")
        let first = try state.installToken()
        let second = try state.installToken()
        #expect(first.token == second.token)
        #expect(first.warning == nil)
        #expect(first.token.hex.count == 64)
        #expect(try scratch.mode("a/gbnotifyd") == 0o700)
        #expect(try scratch.mode("a/gbnotifyd/install-token") == 0o600)
        #expect(try String(contentsOfFile: state.installTokenPath, encoding: .utf8) == first.token.hex + "\n")
    }

    @Test func twoInstallsGetDifferentTokens() throws {
        let scratch = try ScratchDirectory()
        let one = try StateDirectory(path: scratch.path + "/one").installToken().token
        let two = try StateDirectory(path: scratch.path + "/two").installToken().token
        #expect(one != two)
    }

    @Test func corruptInstallTokenIsSetAsideAndReplaced() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        try "not a token\n".write(toFile: state.installTokenPath, atomically: false, encoding: .utf8)
        let (token, warning) = try state.installToken()
        #expect(warning?.contains("install token file was not a token") == true)
        #expect(try state.installToken().token == token)
        #expect(try scratch.contents().contains { $0.hasPrefix("install-token.corrupt-") })
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
        #expect(!FileManager.default.fileExists(atPath: state.accountsPath))
    }

    @Test(arguments: ["{\"version\": 1, \"accounts\": {\"x\": {\"deviceID\": 7", "garbage", "", "{\"version\": 99, \"accounts\": {}}", "[1,2]"])
    func unreadableAccountStateIsSetAsideNotFatal(contents: String) throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        try contents.write(toFile: state.accountsPath, atomically: false, encoding: .utf8)
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
                        try state.updateAccounts { $0.accounts["n", default: AccountRecord(deviceID: 0)].deviceID! += 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try state.loadAccounts().state.accounts["n"]?.deviceID == 100)
    }

    @Test func aWriteThatCannotHappenIsAnErrorNotACrash() throws {
        // /dev/null is not a directory, whoever runs the test (root ignores permission bits).
        let state = StateDirectory(path: "/dev/null/gbnotifyd")
        #expect(throws: StateError.self) { try state.updateAccounts { $0.accounts["x"] = AccountRecord(deviceID: 1) } }
        #expect(throws: StateError.self) { try state.installToken() }
    }
}

import Foundation
import PushCore
import Testing

@testable import StateStore

/// `noise.json`: the mutes and snoozes gbnotifyctl notes and the daemon reads.
@Suite struct NoiseFileTests {
    static let cmc = try! Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc")

    @Test func noFileIsAnEmptyRecord() throws {
        let scratch = try ScratchDirectory()
        let (record, warning) = try StateDirectory(path: scratch.path).loadNoise()
        #expect(record == NoiseRecord())
        #expect(warning == nil)
    }

    @Test func anUpdateIsReadBackPrivatelyAndOnlyAChangeWrites() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path + "/sub")
        let noted = try state.updateNoise { record in
            record.snooze(nil, until: 2000, now: 1000)
            return record.recordMute(of: "krz/gitbay", account: Self.cmc, at: 1000)
        }
        #expect(noted.result)
        let (record, warning) = try state.loadNoise()
        #expect(warning == nil)
        #expect(record.mutes == [NoiseRecord.Mute(account: Self.cmc, repo: "krz/gitbay", at: 1000)])
        #expect(record.snoozes == [NoiseRecord.Snooze(account: nil, until: 2000)])
        let attributes = try FileManager.default.attributesOfItem(atPath: state.noiseFile.path)
        #expect((attributes[.posixPermissions] as! NSNumber).intValue == 0o600)
        let text = try String(contentsOfFile: state.noiseFile.path, encoding: .utf8)
        #expect(text == #"{"mutes":[{"account":{"instance":"https:\/\/gitbay.org","user":"cmc"},"at":1000,"repo":"krz\/gitbay"}],"snoozes":[{"until":2000}],"version":1}"#)

        let modified = try FileManager.default.attributesOfItem(atPath: state.noiseFile.path)[.modificationDate] as? Date
        try state.updateNoise { _ in }
        #expect(try FileManager.default.attributesOfItem(atPath: state.noiseFile.path)[.modificationDate] as? Date == modified)
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: state.path)) == ["lock", "noise.json"])
    }

    @Test(arguments: [
        "not json",
        #"{"version":2,"mutes":[],"snoozes":[]}"#,
        #"{"version":1,"mutes":[{"account":{"instance":"https://gitbay.org","user":"cmc"},"repo":"../x","at":1}],"snoozes":[]}"#,
        #"{"version":1,"mutes":[{"account":{"instance":"ftp://gitbay.org","user":"cmc"},"repo":"a/b","at":1}],"snoozes":[]}"#,
    ])
    func anUnreadableRecordIsSetAside(_ contents: String) throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        try contents.write(toFile: state.noiseFile.path, atomically: false, encoding: .utf8)
        let (record, warning) = try state.loadNoise()
        #expect(record == NoiseRecord())
        #expect(warning?.contains("noise.json was unreadable") == true)
        #expect(try scratch.contents().contains { $0.hasPrefix("noise.json.corrupt-") })
    }

    @Test func aRecordPastItsBoundsIsSetAsideUnread() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        let mute = #"{"account":{"instance":"https://gitbay.org","user":"cmc"},"repo":"a/b","at":1}"#
        let many = Array(repeating: mute, count: NoiseRecord.maximumMutes + 1).joined(separator: ",")
        try #"{"version":1,"mutes":[\#(many)],"snoozes":[]}"#.write(toFile: state.noiseFile.path, atomically: false, encoding: .utf8)
        #expect(try state.loadNoise().record == NoiseRecord())
    }

    @Test func aFileLargerThanAnyRecordIsRefusedBeforeDecoding() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        try String(repeating: " ", count: (1 << 20) + 1).write(toFile: state.noiseFile.path, atomically: false, encoding: .utf8)
        #expect(throws: StateError.self) { try state.loadNoise() }
    }
}

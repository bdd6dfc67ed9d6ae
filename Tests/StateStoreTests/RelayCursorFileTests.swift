import Foundation
import PushCore
import Testing

@testable import StateStore

@Suite struct RelayCursorFileTests {
    @Test func noFileIsNoCursor() throws {
        let scratch = try ScratchDirectory()
        let (cursor, warning) = try StateDirectory(path: scratch.path).loadRelayCursor()
        #expect(cursor == nil)
        #expect(warning == nil)
    }

    @Test func aSavedCursorIsReadBackPrivately() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path + "/sub")
        let saved = RelayCursor(relayURL: "https://ntfy.example.org", lastMessageID: "hwQ2YpKdmg")
        try state.saveRelayCursor(saved)
        try state.saveRelayCursor(RelayCursor(relayURL: saved.relayURL, lastMessageID: "next"))

        #expect(try state.loadRelayCursor().cursor?.lastMessageID == "next")
        #expect(try FileManager.default.contentsOfDirectory(atPath: state.path) == ["relay-cursor.json"])
        let attributes = try FileManager.default.attributesOfItem(atPath: state.relayCursorFile.path)
        #expect((attributes[.posixPermissions] as! NSNumber).intValue == 0o600)
        let text = try String(contentsOfFile: state.relayCursorFile.path, encoding: .utf8)
        #expect(text.hasPrefix(#"{"last_message_id":"next","relay_url":"#))
    }

    @Test(arguments: ["not json", #"{"relay_url":"u","topic":"t","last_message_id":"../../x"}"#, "{}"])
    func anUnreadableCursorIsSetAside(_ contents: String) throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        try contents.write(toFile: state.relayCursorFile.path, atomically: false, encoding: .utf8)

        let (cursor, warning) = try state.loadRelayCursor()
        #expect(cursor == nil)
        #expect(warning?.contains("relay-cursor.json was unreadable") == true)
        #expect(try scratch.contents().contains { $0.hasPrefix("relay-cursor.json.corrupt-") })
        #expect(try state.loadRelayCursor().warning == nil)
    }
}

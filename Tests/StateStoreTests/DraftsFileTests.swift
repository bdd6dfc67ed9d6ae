import Foundation
import PushCore
import Testing

@testable import StateStore

/// `drafts.json`: the replies that could not be posted, kept so that nothing typed is lost.
@Suite struct DraftsFileTests {
    static let cmc = try! Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc")

    @Test func aKeptDraftIsReadBackPrivately() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path + "/sub")
        #expect(try state.loadDrafts().record == DraftRecord())
        let text = String(repeating: "\u{1}\"x", count: CommentText.maximumBytes / 3)
        let kept = try state.updateDrafts { record in
            record.keep(.init(account: Self.cmc, path: "krz/gitbay/issues/12", text: text, savedAt: 1000, failure: .notPosted(.offline("offline"))))
        }
        #expect(kept.result)
        let (record, warning) = try state.loadDrafts()
        #expect(warning == nil)
        #expect(record.draft(of: Self.cmc, for: "krz/gitbay/issues/12")?.text == text)
        let attributes = try FileManager.default.attributesOfItem(atPath: state.draftsFile.path)
        #expect((attributes[.posixPermissions] as! NSNumber).intValue == 0o600)
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: state.path)) == ["lock", "drafts.json"])
    }

    @Test func anUnreadableFileIsSetAsideNotLost() throws {
        let scratch = try ScratchDirectory()
        let state = StateDirectory(path: scratch.path)
        try Data("{\"version\":1,\"drafts\":[{\"text\":\"my words\"".utf8).write(to: URL(fileURLWithPath: state.draftsFile.path))
        let (record, warning) = try state.loadDrafts()
        #expect(record == DraftRecord())
        #expect(warning?.contains("kept it as") == true)
        let names = try FileManager.default.contentsOfDirectory(atPath: state.path)
        #expect(names.contains { $0.hasPrefix("drafts.json.") })
    }
}

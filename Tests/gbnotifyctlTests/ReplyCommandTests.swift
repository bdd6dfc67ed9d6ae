import Foundation
import PushCore
import Testing
import TestSupport

/// `gbnotifyctl reply` and `react`, the built binary against the stand-in and a real keyring, in
/// a session of its own (`ReplyCommandSuiteTests`). The editor is a script that writes as a user
/// would.
@Suite(.serialized, .enabled(if: PrivateSession.isRunning(suite: "ReplyCommandTests")))
struct ReplyCommandTests {
    struct World {
        let standin: Standin
        let token: String
        let ctl: Ctl
        /// `cmc@127.0.0.1:PORT`.
        let account: String
        static let issue = "krz/gitbay/issues/12"

        static func start() async throws -> World {
            let (standin, token) = try await standinWithUser("cmc")
            try await SecretTool.store(instance: standin.url, user: "cmc", token: token)
            try await standin.addItem(.issue, repo: "krz/gitbay", data: #"{"number": 12, "title": "Crash", "state": "open", "author": "alice"}"#)
            return World(standin: standin, token: token, ctl: try Ctl(), account: "cmc@\(standin.url.dropFirst("http://".count))")
        }

        func stop() async {
            try? await SecretTool.clear(instance: standin.url, user: "cmc")
            await standin.stop()
            try? FileManager.default.removeItem(at: ctl.home)
        }

        /// The comments of krz/gitbay#12, as `gbnotifyctl show --json` reads them for cmc.
        func comments() async throws -> [String] {
            let shown = try await ctl.run(["show", account, Self.issue, "--json"])
            guard shown.status == 0 else { throw ShowFailed(stderr: shown.stderr) }
            let item = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
            return (item?["comments"] as? [[String: Any]] ?? []).compactMap { $0["body"] as? String }
        }

        struct ShowFailed: Error {
            let stderr: String
        }

        func commentRequests() async throws -> Int {
            try await standin.requests().count { $0.argv?.starts(with: ["issue", "comment"]) == true }
        }

        func drafts() throws -> DraftRecord {
            let url = ctl.stateDirectory.appendingPathComponent("drafts.json")
            guard FileManager.default.fileExists(atPath: url.path) else { return DraftRecord() }
            return try JSONDecoder().decode(DraftRecord.self, from: Data(contentsOf: url))
        }

        /// An editor: a script that runs `body` with the file as $1, and a TMPDIR of its own.
        func editor(_ body: String) throws -> [String: String] {
            let script = ctl.home.appendingPathComponent("editor-\(UUID().uuidString)")
            try "#!/bin/sh\nset -e\n\(body)\n".write(to: script, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: script.path)
            let temporary = ctl.home.appendingPathComponent("tmp")
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
            return ["VISUAL": script.path, "EDITOR": "false", "TMPDIR": temporary.path]
        }

        /// What the editor left in the temporary directory.
        func temporaryFiles() throws -> [String] {
            (try? FileManager.default.contentsOfDirectory(atPath: ctl.home.appendingPathComponent("tmp").path)) ?? []
        }
    }

    @Test func aMessageIsPostedOnceAndSaidAndTheItemsNoticesMarkedRead() async throws {
        let world = try await World.start()
        let notice = try await world.standin.addNotification(for: "cmc", repo: "krz/gitbay", path: World.issue)
        let other = try await world.standin.addNotification(for: "cmc", repo: "krz/gitbay", path: "krz/gitbay/issues/13")

        let run = try await world.ctl.run(["reply", world.account, World.issue, "--message", "Looks good."])

        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "Replied to krz/gitbay#12 as \(world.account).\n")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        #expect(try await world.comments() == ["Looks good."])
        #expect(try await world.commentRequests() == 1)
        let rows = try await world.standin.state().notifications
        #expect(rows.first { $0.id == notice }?.readAt != nil)
        #expect(rows.first { $0.id == other }?.readAt == nil)
        #expect(!(run.stdout + run.stderr).contains(world.token))
        await world.stop()
    }

    @Test func standardInputIsTakenUpTo64KiBAndRefusedBeyondBeforeSending() async throws {
        let world = try await World.start()
        let full = String(repeating: "a", count: 65_536)

        let taken = try await world.ctl.run(["reply", world.account, World.issue, "--file", "-"], stdin: full)
        let refused = try await world.ctl.run(["reply", world.account, World.issue, "--file", "-"], stdin: full + "b")

        #expect(taken.status == 0, "\(taken.stderr)")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("longer than gitbay's limit of 65536 bytes (64 KiB)"), "\(refused.stderr)")
        #expect(try await world.commentRequests() == 1)
        #expect(try await world.comments() == [full])
        await world.stop()
    }

    @Test func theEditorsTextIsPostedWithoutItsCommentLines() async throws {
        let world = try await World.start()
        let editor = try world.editor(#"{ printf 'From the editor.\n#not sent\n'; cat "$1"; } > "$1.new"; mv "$1.new" "$1""#)

        let run = try await world.ctl.run(["reply", world.account, World.issue], adding: editor)

        #expect(run.status == 0, "\(run.stderr)")
        #expect(try await world.comments() == ["From the editor."])
        #expect(try world.temporaryFiles().isEmpty)
        await world.stop()
    }

    /// ^C at the terminal reaches gbnotifyctl too while the editor runs: it waits for the
    /// editor, which decides, and posts what it wrote.
    @Test func anInterruptWhileTheEditorRunsIsTheEditorsAlone() async throws {
        let world = try await World.start()
        let editor = try world.editor(#"trap '' INT QUIT; kill -INT $PPID; kill -QUIT $PPID; printf 'Still here.\n' > "$1""#)

        let run = try await world.ctl.run(["reply", world.account, World.issue], adding: editor)

        #expect(run.status == 0, "\(run.stderr)")
        #expect(try await world.comments() == ["Still here."])
        await world.stop()
    }

    @Test func anEmptyTextFromTheEditorCancels() async throws {
        let world = try await World.start()

        let run = try await world.ctl.run(["reply", world.account, World.issue], adding: try world.editor(":"))

        #expect(run.status == 1)
        #expect(run.stderr == "gbnotifyctl: the reply is empty; nothing was sent\n")
        #expect(try await world.commentRequests() == 0)
        #expect(try world.temporaryFiles().isEmpty)
        await world.stop()
    }

    /// Refused by an archived repository: kept as a draft; once the repository is open again,
    /// the editor offers the draft and posting it forgets it.
    @Test func aRefusedReplyIsKeptAndOfferedAgain() async throws {
        let world = try await World.start()
        try await world.standin.addRepository("krz/gitbay", archived: true)

        let refused = try await world.ctl.run(["reply", world.account, World.issue, "--message", "Keep me."])

        #expect(refused.status == 1)
        #expect(refused.stderr.contains("not posted to krz/gitbay#12: the instance refused it (repository krz/gitbay is archived)"), "\(refused.stderr)")
        #expect(refused.stderr.contains("kept as a draft"))
        #expect(try world.drafts().drafts.map(\.text) == ["Keep me."])

        try await world.standin.addRepository("krz/gitbay", archived: false)
        let again = try await world.ctl.run(["reply", world.account, World.issue], adding: try world.editor(":"))

        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("your draft of"))
        #expect(try await world.comments() == ["Keep me."])
        #expect(try world.drafts().drafts.isEmpty)
        await world.stop()
    }

    @Test func anUnreachableInstanceKeepsTheDraft() async throws {
        let world = try await World.start()
        try await world.standin.addFault(.init(.status(429, headers: ["Retry-After": "9"]), match: .init(argvPrefix: ["issue", "comment"])))

        let run = try await world.ctl.run(["reply", world.account, World.issue, "--message", "Later."])

        #expect(run.status == 1)
        #expect(run.stderr.contains("too many writes for now; try again in 9 s"), "\(run.stderr)")
        #expect(try world.drafts().drafts.map(\.text) == ["Later."])
        await world.stop()
    }

    /// Why a reply was not sent or not posted is said in the session's language; the draft
    /// keeps it in English, for whichever language reads it next.
    @Test(arguments: [
        ("de", "gbnotifyctl: die Antwort ist leer; nichts wurde gesendet\n",
         "nicht auf krz/gitbay#12 veröffentlicht: vorerst zu viele Schreibvorgänge; versuchen Sie es in 9 s erneut"),
        ("fr", "gbnotifyctl: la réponse est vide\u{a0}; rien n’a été envoyé\n",
         "non publiée sur krz/gitbay#12\u{a0}: trop d’écritures pour l’instant\u{a0}; réessayez dans 9\u{a0}s"),
    ])
    func whyAReplyDidNotGoThroughIsInTheSessionsLanguage(_ language: String, _ empty: String, _ limited: String) async throws {
        let world = try await World.start()
        let speaking = try await Translations.environment(language)
        let cancelled = try await world.ctl.run(
            ["reply", world.account, World.issue], adding: try world.editor(":").merging(speaking) { $1 })
        #expect(cancelled.stderr == empty)

        try await world.standin.addFault(.init(.status(429, headers: ["Retry-After": "9"]), match: .init(argvPrefix: ["issue", "comment"])))
        let run = try await world.ctl.run(["reply", world.account, World.issue, "--message", "Later."], adding: speaking)
        #expect(run.status == 1)
        #expect(run.stderr.contains(limited), "\(run.stderr)")
        #expect(try world.drafts().drafts.map(\.reason) == ["too many writes for now; try again in 9 s"])
        // Offered again, the draft says why it was kept in the session's language too.
        try await world.standin.clearFaults()
        let again = try await world.ctl.run(["reply", world.account, World.issue], adding: try world.editor(":").merging(speaking) { $1 })
        #expect(again.stderr.contains(limited.split(separator: ": ", maxSplits: 1).last.map(String.init) ?? limited), "\(again.stderr)")
        #expect(!again.stderr.contains("too many writes"), "\(again.stderr)")
        await world.stop()
    }

    /// The editor's failures are said in the session's language too.
    @Test func anEditorThatFailsIsSaidInTheSessionsLanguage() async throws {
        let world = try await World.start()
        let german = try await Translations.environment("de")
        let failed = try await world.ctl.run(["reply", world.account, World.issue], adding: try world.editor("exit 3").merging(german) { $1 })
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("gbnotifyctl: der Editor "), "\(failed.stderr)")
        #expect(failed.stderr.contains(" endete mit Status 3; nichts wurde gesendet, und der Text ist in "), "\(failed.stderr)")
        #expect(try await world.commentRequests() == 0)
        await world.stop()
    }

    /// The server posts, the answer is cut: the thread has it, so it is not sent again.
    @Test func aLostAnswerIsLookedForInTheThread() async throws {
        let world = try await World.start()
        try await world.standin.addFault(.init(.truncate(bytes: 0), match: .init(argvPrefix: ["issue", "comment"])))

        let run = try await world.ctl.run(["reply", world.account, World.issue, "--message", "Once."])

        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("but the thread has the reply"))
        #expect(try await world.comments() == ["Once."])
        #expect(try await world.commentRequests() == 1)
        #expect(try world.drafts().drafts.isEmpty)
        await world.stop()
    }

    @Test func buildsTakeNoReplyNorReaction() async throws {
        let world = try await World.start()

        let reply = try await world.ctl.run(["reply", world.account, "krz/gitbay/builds/3", "--message", "x"])
        let react = try await world.ctl.run(["react", world.account, "krz/gitbay/builds/3", "+1"])

        #expect(reply.status == 2)
        #expect(reply.stderr.hasPrefix("gbnotifyctl: krz/gitbay/builds/3 is a build, which takes no reply on gitbay; only issues and merge requests do\n"))
        #expect(react.status == 2)
        #expect(react.stderr.hasPrefix("gbnotifyctl: krz/gitbay/builds/3 is a build, which takes no reaction on gitbay"))
        #expect(try await world.standin.requests().isEmpty)
        await world.stop()
    }

    @Test func aReactionIsSetTakenBackAndAnUnknownOneRefused() async throws {
        let world = try await World.start()

        let set = try await world.ctl.run(["react", world.account, World.issue, "+1"])
        let removed = try await world.ctl.run(["react", world.account, World.issue, "+1", "--remove"])
        let unknown = try await world.ctl.run(["react", world.account, World.issue, "tada"])

        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout == "Reacted +1 on krz/gitbay#12 as \(world.account).\n")
        #expect(removed.stdout == "Took back +1 on krz/gitbay#12 as \(world.account).\n")
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains(#"unknown reaction "tada"; one of +1, -1, laugh"#), "\(unknown.stderr)")
        let reacts = try await world.standin.requests().compactMap(\.argv).filter { $0.starts(with: ["issue", "react"]) }
        #expect(reacts == [["issue", "react", "krz/gitbay", "12", "+1"], ["issue", "react", "krz/gitbay", "12", "+1", "--remove"],
                           ["issue", "react", "krz/gitbay", "12", "tada"]])
        await world.stop()
    }
}

/// Runs `ReplyCommandTests` in a session of its own: a keyring, and no gbnotifyd on the bus.
@Suite struct ReplyCommandSuiteTests {
    @Test func replyCommandTestsPassInASessionOfTheirOwn() async throws {
        let ran = try await PrivateSession.runSuite("ReplyCommandTests", notifications: false)
        #expect(ran >= 10)
    }
}

import Foundation
import Testing
import TestSupport

/// The terminal view in other languages: German words, and the pseudo-locale `qps` (every
/// message 40% longer than its English, in wide characters two columns each, as a Japanese
/// catalog would be) laid out in its width without a character cut or a line wrapped.
extension ViewTests {
    @Test func theInboxSpeaksGerman() async throws {
        let world = try Self.world
        let account = try await world.freshAccount()
        try await account.standin.addNotification(for: account.user, repo: "krz/inbox", actor: "noor", summary: "opened issue #7", path: "krz/inbox/issues/7")
        try await account.standin.addNotification(for: account.user, repo: "krz/inbox", kind: "build", actor: "ci", summary: "build #3 failed", path: "krz/inbox/builds/3")
        let environment = world.environment().merging(try await Translations.environment("de")) { $1 }
        let pane = try await world.tmux.run([Ctl.executable, "inbox", account.name], environment: environment, columns: 120, rows: 12)
        let screen = try await pane.waitFor("the inbox") { $0.contains { $0.hasPrefix(" \(account.name) · 2 ungelesen") } }
        #expect(screen[0].hasPrefix(" Posteingang · 2 ungelesen · \(account.name)"), "\(screen)")
        #expect(screen.last == "↑↓ auswählen · Enter anzeigen · r als gelesen markieren · o im Browser öffnen · R neu laden · q beenden", "\(screen)")
        // What a key did, said in German: `o` opens the selected row, `r` marks it read.
        try await pane.send("o")
        let url = "\(account.standin.url)/krz/inbox/builds/3"
        #expect(try await world.browser.nextLaunch().arguments == [url])
        try await pane.waitFor("opened") { $0.last == "\(url) im Browser geöffnet" }
        try await pane.send("r")
        try await pane.waitFor("marked read") { $0.last?.hasPrefix("1 Benachrichtigung zu krz/inbox#3 als gelesen markiert") == true }
        try await pane.send("q")
        #expect(try await pane.waitForExit().status == 0)
    }

    /// A problem (ReadProblem) in German: drawn whole by the view, and on one line on standard
    /// error where there is no terminal.
    @Test func aProblemIsGermanOnScreenAndOnStandardError() async throws {
        let world = try Self.world
        let environment = world.environment().merging(try await Translations.environment("de")) { $1 }
        let pane = try await world.tmux.run(
            [Ctl.executable, "show", world.revokedAccount, "krz/errors/issues/1"], environment: environment, columns: 100, rows: 30)
        try await pane.waitFor("the problem in German") { screen in
            screen.contains { $0.hasPrefix(" ✗ Token abgelehnt") }
                && screen.contains { $0.hasPrefix(" Was zu tun ist: Erzeugen Sie mit Ihrem SSH-Schlüssel einen neuen Token") }
        }
        try await pane.send("q")
        #expect(try await pane.waitForExit().status == 0)

        let run = try await Ctl().run(["show", "nobody@example.org", "krz/errors/issues/1"], adding: environment)
        #expect(run.status != 0)
        #expect(run.stderr.hasPrefix("gbnotifyctl: kein solches Konto: "), "\(run.stderr)")
    }

    /// A merge request's stack, merge and queue lines in German and French (user names,
    /// numbers, titles and gitbay's words stay as they are).
    @Test(arguments: [
        ("de", ["Gestapelt auf !40 Basis", "Darauf gestapelt: !42 Oben", "Zusammengeführt von krz", "Ersetzt durch !44",
                "In der Zusammenführungswarteschlange (rebase), eingereiht von noor"]),
        ("fr", ["Empilée sur !40 Basis", "Empilées dessus\u{a0}: !42 Oben", "Fusionnée par krz", "Remplacée par !44",
                "Dans la file de fusion (rebase), ajoutée par noor"]),
    ])
    func aMergeRequestsStackAndOutcomeAreInTheSessionsLanguage(_ language: String, _ lines: [String]) async throws {
        let world = try Self.world
        let repo = "krz/stack\(language)"
        try await world.standin.addItem(.mr, repo: repo, data: """
            {"author":"alba","body":"","created_at":"2026-09-20T07:00:00.000Z","number":41,"source":"top","state":"open",\
            "target_ref":"main","title":"Stacked change","stacked_on":{"number":40,"title":"Basis"},\
            "stacked":[{"number":42,"title":"Oben"}],"merged_by":"krz","superseded_by":44,\
            "queued":{"by":"noor","strategy":"rebase","reason":"wartet"}}
            """)
        let environment = world.environment().merging(try await Translations.environment(language)) { $1 }
        let pane = try await world.tmux.run([Ctl.executable, "show", world.account, "\(repo)/mrs/41"], environment: environment, columns: 120, rows: 30)
        let screen = try await pane.waitFor("the merge request") { $0.contains(" Stacked change") }
        for line in lines {
            #expect(screen.contains { $0.hasPrefix(" " + line) }, "no \(line) in \(screen)")
        }
        try await pane.send("q")
        #expect(try await pane.waitForExit().status == 0)
    }

    @Test(arguments: [40, 61, 100])
    func thePseudoLocaleLaysOutWithoutACutCharacter(columns: Int) async throws {
        let world = try Self.world
        let account = try await world.freshAccount()
        try await account.standin.addNotification(for: account.user, repo: "krz/wide", actor: "noor", summary: "opened issue #7", path: "krz/wide/issues/7")
        let environment = world.environment().merging(try await Translations.environment("qps")) { $1 }
        let rows = 8
        let pane = try await world.tmux.run([Ctl.executable, "inbox", account.name], environment: environment, columns: columns, rows: rows)
        // The status line, the keys with what they do in the pseudo-locale (every letter two columns
        // wide), is the last row.
        let screen = try await pane.waitFor("the inbox in wide characters") { $0.last?.hasPrefix("↑↓ ［ｓｅｌ") == true }
        #expect(screen.count == rows, "\(screen)")
        #expect(screen[0].hasPrefix(" ［Ｉｎｂｏｘ"), "\(screen)")
        for line in screen {
            #expect(Self.columns(line) <= columns, "wider than the terminal: \(line)")
            // Each pseudo message on the line either ends where it ends (］) or is cut whole
            // characters short, marked with …; never half a wide character.
            for message in line.split(separator: "［", omittingEmptySubsequences: false).dropFirst() {
                #expect(message.contains("］") || message.contains("…"), "cut without a mark: \(line)")
            }
        }
        // The keys are far wider than any of these terminals: cut, marked, and filling the
        // width but for the one column a wide character that does not fit leaves.
        let keys = try #require(screen.last)
        #expect(keys.hasSuffix("…"), "\(keys)")
        #expect(Self.columns(keys) >= columns - 1, "\(keys)")
        #expect(!screen.joined().contains("\u{FFFD}"))
        try await pane.send("q")
        #expect(try await pane.waitForExit().status == 0)
    }

    /// How many columns a terminal gives `line`: two for the fullwidth forms and the CJK marks
    /// the pseudo-locale writes, one for everything else it shows.
    static func columns(_ line: String) -> Int {
        line.unicodeScalars.reduce(0) { width, scalar in
            let wide = (0xFF01...0xFF60).contains(scalar.value) || (0x3000...0x30FF).contains(scalar.value)
            return width + (wide ? 2 : 1)
        }
    }
}

import DesktopSuites
import Foundation
import Testing
import TestSupport

/// gbnotifyctl in the session's language: the built program with the catalogs as the build
/// compiles them (`Translations`), `LANG=C.UTF-8` and `LANGUAGE` set as a desktop session sets
/// them.
@Suite struct TranslationTests {
    static let noBus = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/gbnotify-no-bus"]

    @Test(arguments: [
        ("de", "gbnotifyctl: Der Sitzungsbus ist nicht erreichbar, also auch kein gbnotifyd: "),
        ("fr", "gbnotifyctl: impossible de joindre le bus de session, donc aucun gbnotifyd non plus\u{a0}: "),
        ("en", "gbnotifyctl: cannot reach the session bus, so no gbnotifyd either: "),
    ])
    func anErrorIsInTheSessionsLanguage(_ language: String, _ error: String) async throws {
        let ctl = try Ctl()
        let run = try await ctl.run(["status"], adding: try await Translations.environment(language).merging(Self.noBus) { $1 })
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix(error), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    /// glibc follows `LANGUAGE` only while the locale of messages is not C: with no `LANG`
    /// (a bare system's, a cron job's), gbnotifyctl speaks English.
    @Test func inTheCLocaleLanguageIsNotFollowed() async throws {
        let ctl = try Ctl()
        var environment = try await Translations.environment("de").merging(Self.noBus) { $1 }
        environment["LANG"] = ""
        let run = try await ctl.run(["status"], adding: environment)
        #expect(run.stderr.hasPrefix("gbnotifyctl: cannot reach the session bus"), "\(run.stderr)")
    }

    @Test func notRunningIsGerman() async throws {
        let bus = try await PrivateBus()
        let ctl = try Ctl()
        var environment = try await Translations.environment("de")
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        let run = try await ctl.run(["status"], adding: environment)
        await bus.stop()
        #expect(run.status == 1)
        #expect(run.stderr == """
            gbnotifyctl: gbnotifyd läuft nicht (niemand besitzt org.gitbay.Notify1 auf dem Sitzungsbus); starten Sie ihn mit \
            »systemctl --user start gbnotifyd« oder führen Sie »gbnotifyd« aus

            """)
    }

    /// The plural form each language's rule picks, for 1, 2 and 5 (and French's 0, which is
    /// singular there), in `rules check`'s first line.
    @Test(arguments: [
        ("de", 1, "1 Regel in PATH, die erste passende gilt: r1"),
        ("de", 2, "2 Regeln in PATH, die erste passende gilt: r1, r2"),
        ("de", 5, "5 Regeln in PATH, die erste passende gilt: r1, r2, r3, r4, r5"),
        ("fr", 1, "1 règle dans PATH, la première qui correspond l’emporte\u{a0}: r1"),
        ("fr", 2, "2 règles dans PATH, la première qui correspond l’emporte\u{a0}: r1, r2"),
        ("fr", 5, "5 règles dans PATH, la première qui correspond l’emporte\u{a0}: r1, r2, r3, r4, r5"),
        ("en", 1, "1 rule in PATH, first match wins: r1"),
        ("en", 2, "2 rules in PATH, first match wins: r1, r2"),
    ])
    func pluralFormsFollowTheLanguage(_ language: String, _ count: Int, _ heading: String) async throws {
        let ctl = try Ctl()
        try ctl.writeConfig((1...count).map { "[rule r\($0)]\nactor = bot\($0)\nshow = silent\n" }.joined(separator: "\n"))
        // An account nobody has: the heading comes first, then the error about it.
        let run = try await ctl.run(
            ["rules", "check", "nobody@127.0.0.1:9"], adding: try await Translations.environment(language).merging(Self.noBus) { $1 })
        let first = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init)
        #expect(first == heading.replacingOccurrences(of: "PATH", with: ctl.configFile.path), "\(run.stdout)\(run.stderr)")
    }

    /// A time tomorrow said in the session's language ("demain 00:00"), while the log's form
    /// stays English: 0:00 has always passed today, so the snooze ends tomorrow.
    @Test(arguments: [("fr", "Mise en pause de tous les comptes jusqu’à demain 00:00."), ("de", "Schlummern für alle Konten bis morgen 00:00.")])
    func tomorrowIsInTheSessionsLanguage(_ language: String, _ line: String) async throws {
        let ctl = try Ctl()
        let environment = try await Translations.environment(language).merging(Self.noBus) { $1 }.merging(["TZ": "UTC0"]) { $1 }
        let run = try await ctl.run(["snooze", "until", "0:00"], adding: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").first.map(String.init) == line, "\(run.stdout)")
    }

    /// A command's own usage errors in the session's language (the option names and the forms
    /// to use stay as typed).
    @Test(arguments: [
        ("de", ["show", "nobody@127.0.0.1:9", "krz"], "gbnotifyctl: »krz« nennt keinen Eintrag; verwenden Sie OWNER/REPO/issues/N, "),
        ("fr", ["rules", "check", "--rows", "0"], "gbnotifyctl: --rows attend un nombre de 1 à 200"),
        ("de", ["status", "--colour"], "gbnotifyctl: unbekannte Option »--colour«\n"),
        ("fr", ["account", "frobnicate"], "gbnotifyctl: commande inconnue «\u{a0}frobnicate\u{a0}»\u{a0}; attendu l’une de\u{a0}: "),
        ("de", ["snooze", "1h", "--account"], "gbnotifyctl: --account braucht einen Wert\n"),
        ("de", ["react", "nobody@127.0.0.1:9", "krz/gitbay/builds/3", "+1"],
         "gbnotifyctl: krz/gitbay/builds/3 ist ein Build, der auf gitbay keine Reaktion annimmt; das tun nur Issues und Merge-Requests\n"),
        ("fr", ["reply", "nobody@127.0.0.1:9", "krz/gitbay/issues/1", "--message", "x", "--file", "-"],
         "gbnotifyctl: indiquez --message ou --file -, pas les deux\n"),
        ("de", ["snooze", "200h"], "gbnotifyctl: »200h« liegt nicht zwischen einer Minute und einer Woche\n"),
    ])
    func aUsageErrorIsInTheSessionsLanguage(_ language: String, _ arguments: [String], _ error: String) async throws {
        let run = try await Ctl().run(arguments, adding: try await Translations.environment(language).merging(Self.noBus) { $1 })
        #expect(run.status != 0)
        #expect(run.stderr.hasPrefix(error), "\(run.stderr)")
        #expect(run.stderr.hasSuffix(language == "de" ? "Siehe »gbnotifyctl --help«.\n" : "Voir «\u{a0}gbnotifyctl --help\u{a0}».\n"), "\(run.stderr)")
    }

    @Test func snoozeSpeaksFrench() async throws {
        let ctl = try Ctl()
        let run = try await ctl.run(["snooze", "1h"], adding: try await Translations.environment("fr").merging(Self.noBus) { $1 })
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Mise en pause de tous les comptes jusqu’à ") == true, "\(run.stdout)")
        #expect(lines.last == "gbnotifyd n’est pas en cours d’exécution\u{a0}; il lira la pause à son démarrage.", "\(run.stdout)")
    }

    /// doctor's findings themselves, not only its frame: without a session bus, the bus's
    /// failure with its fix, and the terminal a click opens, in German and in French; its JSON
    /// stays English.
    @Test(arguments: [
        ("de", [
            "FEHLER   Sitzungsbus: keine Verbindung (",
            "), daher wurden Benachrichtigungsserver, Dock, systemd-Unit und gbnotifyd nicht geprüft. Lösung: Führen Sie gbnotifyctl in Ihrer Desktop-Sitzung aus, in der DBUS_SESSION_BUS_ADDRESS einen laufenden Bus nennt",
            "Terminal-Befehl: gbnotifyctl show {account} {path}: die eigene Ansicht von gbnotify",
        ]),
        ("fr", [
            "ÉCHEC    bus de session\u{a0}: connexion impossible (",
            "), donc le serveur de notifications, le dock, l’unité systemd et gbnotifyd n’ont pas été vérifiés. Solution\u{a0}: lancez gbnotifyctl dans votre session de bureau",
            "commande du terminal\u{a0}: gbnotifyctl show {account} {path}\u{a0}: la vue propre à gbnotify",
        ]),
    ])
    func doctorsFindingsAreInTheSessionsLanguage(_ language: String, _ parts: [String]) async throws {
        let ctl = try Ctl()
        let environment = try await Translations.environment(language).merging(Self.noBus) { $1 }
        let run = try await ctl.run(["doctor", "nobody@127.0.0.1:9"], adding: environment)
        for part in parts {
            #expect(run.stdout.contains(part), "\(part)\n\(run.stdout)")
        }
        let json = try await ctl.run(["doctor", "nobody@127.0.0.1:9", "--json"], adding: environment)
        #expect(json.stdout.contains(#""check" : "session bus""#), "\(json.stdout)")
        #expect(json.stdout.contains("so the notification server, dock, systemd unit and gbnotifyd were not checked"), "\(json.stdout)")
    }

    @Test func doctorSaysWhichLanguageItSpeaks() async throws {
        let ctl = try Ctl()
        let german = try await ctl.run(
            ["doctor", "nobody@127.0.0.1:9"], adding: try await Translations.environment("de").merging(Self.noBus) { $1 })
        let lines = german.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("ok       Sprache: Meldungen in de (LANGUAGE=de, Locale für Meldungen C.UTF-8)"), "\(german.stdout)")
        #expect(lines.last?.hasSuffix(" fehlgeschlagen.") == true || lines.last?.hasPrefix("Alle Prüfungen bestanden") == true, "\(german.stdout)")

        // Its JSON stays English, for scripts.
        let json = try await ctl.run(
            ["doctor", "nobody@127.0.0.1:9", "--json"], adding: try await Translations.environment("de").merging(Self.noBus) { $1 })
        #expect(json.stdout.contains(#""check" : "language""#), "\(json.stdout)")
        #expect(json.stdout.contains(#""finding" : "messages in de (LANGUAGE=de, messages locale C.UTF-8)""#), "\(json.stdout)")
        #expect(!json.stdout.contains("Sprache"), "\(json.stdout)")

        var cLocale = try await Translations.environment("de").merging(Self.noBus) { $1 }
        cLocale["LANG"] = "C"
        let english = try await ctl.run(["doctor", "nobody@127.0.0.1:9"], adding: cLocale)
        #expect(english.stdout.contains("""
            note     language: messages in English: the locale for messages is C, in which LANGUAGE is not followed \
            (LANGUAGE=de, messages locale C). Fix: set LANG to an installed locale
            """), "\(english.stdout)")
    }
}

import PushCore
import Testing

/// The config's `[account USER@HOST]` and `[rule NAME]` sections, and the global keys that came
/// with them.
@Suite struct ConfigSectionsTests {
    static let cmc = try! Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc")
    static let other = try! Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "krz")

    @Test func aFlatFileOfEveryEarlierVersionReadsAsBefore() throws {
        let config = try Config.parse("poll-interval = 60\nopen-with = terminal\n")
        #expect(config.pollIntervalSeconds == 60)
        #expect(config.accountSections.isEmpty)
        #expect(config.rules == .none)
        #expect(config.quietHours == nil)
        #expect(config.sound == nil)
        #expect(config.settings(for: Self.cmc) == AccountSettings(pollIntervalSeconds: 60, openWith: .terminal, isEnabled: true))
    }

    @Test func theNewGlobalKeys() throws {
        let config = try Config.parse("quiet-hours = 22:00-07:30\nsound = message-new-instant\n")
        #expect(config.quietHours == QuietHours(start: TimeOfDay(hour: 22, minute: 0)!, end: TimeOfDay(hour: 7, minute: 30)!))
        #expect(config.sound == "message-new-instant")
        #expect(try Config.parse("sound = none").sound == nil)
    }

    @Test func anAccountSectionOverridesTheGlobalKeysForItsAccountOnly() throws {
        let config = try Config.parse("""
            poll-interval = 60

            [account cmc@gitbay.org]
            poll-interval = 300
            open-with = terminal
            enabled = false
            """)
        #expect(config.settings(for: Self.cmc) == AccountSettings(pollIntervalSeconds: 300, openWith: .terminal, isEnabled: false))
        #expect(config.settings(for: Self.other) == AccountSettings(pollIntervalSeconds: 60, openWith: .browser, isEnabled: true))
        let section = try #require(config.accountSections.first)
        #expect(section.name == "cmc@gitbay.org")
        #expect(section.line == 3)
        #expect(section.isFor(Self.cmc))
        #expect(!section.isFor(Self.other))
    }

    @Test func headersAndKeysMayBeSpacedAndCommentedAround() throws {
        let config = try Config.parse("""
            # rules
            [  rule   bots  ]
            ; the usual bots
              actor =   "*\\[bot\\]"
            show=silent
            """)
        #expect(config.rules.rules.map(\.name) == ["bots"])
        #expect(config.rules.evaluate(
            InboxItem(id: 1, repo: "a/b", kind: .mr, actor: "renovate[bot]", summary: "s", path: "a/b/mrs/1", createdAt: "", readAt: nil),
            of: Self.cmc).show == .silent)
        #expect(config.warnings.isEmpty)
    }

    @Test func aSetThatReadsLikeAWordIsAcceptedWithAWarning() throws {
        let config = try Config.parse("[rule bots]\nactor = *[bot]\nshow = silent\n")
        #expect(config.warnings == [
            #"line 2: [rule bots] actor: [bot] matches one character, b, o or t, not the text [bot]; to match the text, write \[bot\]"#,
        ])
    }

    /// Every rejection names the line, the section and the key, and says what would do.
    @Test(arguments: [
        // Headers.
        ("[rule bots", #"line 1: "[rule bots" opens a section header that does not end with ]; write [rule NAME] or [account USER@HOST] alone on the line"#),
        ("[rule bots] # comment", #"line 1: "[rule bots] # comment" opens a section header that does not end with ]; write [rule NAME] or [account USER@HOST] alone on the line"#),
        ("[]", #"line 1: "[]" is not a section header; write [rule NAME] or [account USER@HOST]"#),
        ("[[rule x]]", #"line 1: "[[rule x]]" is not a section header; write [rule NAME] or [account USER@HOST]"#),
        ("[filter bots]", #"line 1: "[filter bots]" is not a known section; the sections are [account USER@HOST] and [rule NAME], and the global keys come before the first of them"#),
        ("[Rule bots]", #"line 1: "[Rule bots]" is not a known section; the sections are [account USER@HOST] and [rule NAME], and the global keys come before the first of them"#),
        ("[rule]", "line 1: [rule]: a rule needs a name of 1 to 64 letters, digits, '.', '_' or '-', such as [rule bots]"),
        ("[rule bots silent]", "line 1: [rule bots silent]: a rule needs a name of 1 to 64 letters, digits, '.', '_' or '-', such as [rule bots]"),
        ("[account gitbay.org]", #"line 1: [account gitbay.org]: "gitbay.org" names no account; write USER@HOST, as 'gbnotifyctl account list' prints it"#),
        ("[account https://gitbay.org]", #"line 1: [account https://gitbay.org]: "https://gitbay.org" names no account; write USER@HOST, as 'gbnotifyctl account list' prints it"#),
        ("[rule a]\n\n[rule a]", "line 3: [rule a]: a second section of this name (the first is on line 1); keep one of the two"),
        ("[account cmc@gitbay.org]\n[account cmc@GitBay.org]", "line 2: [account cmc@GitBay.org]: a second section of this name (the first is on line 1); keep one of the two"),

        // Keys in the wrong place.
        ("[rule a]\npoll-interval = 30", "line 2: [rule a] poll-interval: belongs at the top, for every account, or in an [account USER@HOST] section for one; not in a rule"),
        ("[rule a]\nenabled = false", "line 2: [rule a] enabled: belongs in an [account USER@HOST] section, not in a rule"),
        ("[rule a]\nmax-notifications = 3", "line 2: [rule a] max-notifications: is a global key: move the line above the first section"),
        ("[account cmc@gitbay.org]\nquiet-hours = 22:00-07:00", "line 2: [account cmc@gitbay.org] quiet-hours: is a global key: move the line above the first section"),
        ("[account cmc@gitbay.org]\nrepo = krz/*", "line 2: [account cmc@gitbay.org] repo: filters notices, which is what a [rule NAME] section does; write the rule with account = cmc@gitbay.org in it"),
        ("show = silent", "line 1: show: belongs in a [rule NAME] or [account USER@HOST] section: move the line below such a header (the keys at the top are the global ones)"),
        ("actor = *\\[bot\\]", "line 1: actor: belongs in a [rule NAME] section: move the line below such a header (the keys at the top are the global ones)"),
        ("enabled = false", "line 1: enabled: belongs in an [account USER@HOST] section: move the line below such a header (the keys at the top are the global ones)"),
        ("[rule a]\nrepos = krz/*", "line 2: [rule a] repos: not a key of a [rule NAME] section; its keys are account, repo, kind, actor, summary, show, urgency, sound"),
        ("[account cmc@gitbay.org]\nfoo = 1", "line 2: [account cmc@gitbay.org] foo: not a key of an [account USER@HOST] section; its keys are poll-interval, open-with, enabled, show, urgency, sound"),
        ("[rule a]\nshow = silent\nshow = none", "line 3: [rule a] show: set a second time in this section (first on line 2); keep one of the two lines"),

        // Values.
        ("[rule a]\nrepo = krz/[gitbay", #"line 2: [rule a] repo: "krz/[gitbay" is not a usable pattern: a [ opens a set of characters that no ] closes (write \[ for the character itself)"#),
        ("[rule a]\nactor = [z-a]*", #"line 2: [rule a] actor: "[z-a]*" is not a usable pattern: the range z-a goes backwards; write the lower character first"#),
        (#"[rule a]\#nsummary = *failed\"#, #"line 2: [rule a] summary: "*failed\" is not a usable pattern: it ends with a \ that escapes nothing (write \\ for the character itself)"#),
        ("[rule a]\nkind = pr", #"line 2: [rule a] kind: "pr" is not one of issue, mr, build"#),
        ("[rule a]\nshow = hidden", #"line 2: [rule a] show: "hidden" is not one of popup, silent, none"#),
        ("[rule a]\nurgency = critical", "line 2: [rule a] urgency: critical is not offered: it would break through the desktop's do-not-disturb; use low or normal"),
        ("[rule a]\nurgency = high", #"line 2: [rule a] urgency: "high" is not one of low, normal"#),
        ("[rule a]\nsound = /usr/share/sounds/x.oga", #"line 2: [rule a] sound: "/usr/share/sounds/x.oga" is not a sound name; use a name of the freedesktop sound theme, such as message-new-instant or bell, or none"#),
        ("[rule a]\naccount = cmc", #"line 2: [rule a] account: "cmc" names no account; write USER@HOST, as 'gbnotifyctl account list' prints it"#),
        ("[rule a]\nrepo =", "line 2: [rule a] repo: the value is empty; remove the line to use the default"),
        ("[account cmc@gitbay.org]\nenabled = nope", #"line 2: [account cmc@gitbay.org] enabled: "nope" is not a boolean; use true or false (or yes/no, on/off, 1/0)"#),
        ("[account cmc@gitbay.org]\npoll-interval = 5", #"line 2: [account cmc@gitbay.org] poll-interval: "5" is below the minimum of 10 seconds"#),
        ("quiet-hours = 22:00", #"line 1: quiet-hours: "22:00" is not a span of local time like 22:00-07:30 (HH:MM-HH:MM, 24-hour clock)"#),
        ("quiet-hours = 22:00-22:00", #"line 1: quiet-hours: "22:00-22:00" starts and ends at the same time; remove the line to have no quiet hours"#),
        ("sound = message new", #"line 1: sound: "message new" is not a sound name; use a name of the freedesktop sound theme, such as message-new-instant or bell, or none"#),
    ])
    func rejectsWithLineSectionKeyAndRemedy(_ text: String, _ message: String) {
        #expect(ConfigTests.error(parsing: text) == message)
    }

    @Test func errorsCarryTheSectionApart() throws {
        let error = try #require(throws: ConfigError.self) { try Config.parse("[rule bots]\nshow = loud") }
        #expect(error.line == 2)
        #expect(error.section == "rule bots")
        #expect(error.key == "show")
        #expect(error.reason == #""loud" is not one of popup, silent, none"#)
    }

    @Test func aHostileHeaderIsOneShortLineInTheMessage() {
        let header = "[rule " + String(repeating: "x", count: 300) + "]"
        let message = ConfigTests.error(parsing: header) ?? ""
        #expect(message.hasPrefix("line 1: [rule " + String(repeating: "x", count: 74) + "…]: a rule needs a name"))
    }
}

@Suite struct ConfigSectionNameInAdviceTests {
    /// Found by the `rules` fuzz target: the advice to write a rule named the section's account
    /// raw, a tab and all, so the error was not one clean line.
    @Test func theAdviceNamesTheAccountCleaned() {
        #expect {
            _ = try Config.parse("[account cmc@gitbay.org\teve]\nrepo = krz/gitbay\n")
        } throws: { error in
            let text = "\(error)"
            return text.contains("write the rule with account = cmc@gitbay.org eve in it")
                && !text.contains("\t") && !text.contains("\n")
        }
    }
}

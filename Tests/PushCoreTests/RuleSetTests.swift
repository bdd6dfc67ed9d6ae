import PushCore
import Testing

/// `[rule NAME]` sections deciding what pops up: first match wins, the account's section and the
/// global `sound` under it.
@Suite struct RuleSetTests {
    static let cmc = try! Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc")
    static let work = try! Account(instance: GitbayInstance(parsing: "https://Git.Example.com:8443/gb"), username: "cmc")

    static func notice(
        repo: String = "krz/gitbay", kind: ItemKind? = .issue, actor: String = "alba", summary: String = "opened issue #12",
        path: String? = nil
    ) -> InboxItem {
        InboxItem(
            id: 1, repo: repo, kind: kind, actor: actor, summary: summary,
            path: path ?? "\(repo)/\((kind ?? .issue).pathSegment)/12", createdAt: "2026-09-20T10:11:12.123Z", readAt: nil)
    }

    static func rules(_ text: String) throws -> RuleSet {
        try Config.parse(text).rules
    }

    @Test func withoutRulesEverythingPopsUpAtNormalUrgencyWithoutASound() throws {
        let decision = try Self.rules("").evaluate(Self.notice(), of: Self.cmc)
        #expect(decision == RuleDecision(rule: nil, show: .popup, urgency: .normal, sound: nil))
        #expect(decision.description == "popup, urgency normal, no sound")
    }

    /// The man page's examples, as one file.
    static let examples = #"""
        sound = message-new-instant

        [rule failed-builds]
        kind = build
        summary = *failed*
        urgency = normal

        [rule other-builds]
        kind = build
        show = none

        [rule bots]
        actor = *\[bot\]
        show = silent

        [rule noisy-repository]
        repo = krz/generated-*
        show = silent

        [rule work-low]
        account = cmc@git.example.com:8443/gb
        urgency = low
        sound = none
        """#

    @Test(arguments: [
        // Builds only when they fail.
        (notice(repo: "ops/infra", kind: .build, actor: "ci", summary: "build #88 failed on main"), cmc,
         RuleDecision(rule: "failed-builds", show: .popup, urgency: .normal, sound: "message-new-instant")),
        (notice(repo: "ops/infra", kind: .build, actor: "ci", summary: "build #89 passed on main"), cmc,
         RuleDecision(rule: "other-builds", show: .none, urgency: .normal, sound: "message-new-instant")),
        // Bots silent.
        (notice(actor: "dependabot[bot]", summary: "opened merge request #3"), cmc,
         RuleDecision(rule: "bots", show: .silent, urgency: .normal, sound: "message-new-instant")),
        (notice(actor: "bob"), cmc, RuleDecision(rule: nil, show: .popup, urgency: .normal, sound: "message-new-instant")),
        // One noisy repository silent, the repository taken from the path.
        (notice(repo: "krz/generated-docs"), cmc,
         RuleDecision(rule: "noisy-repository", show: .silent, urgency: .normal, sound: "message-new-instant")),
        (notice(repo: "whatever/text", path: "krz/generated-api/issues/3"), cmc,
         RuleDecision(rule: "noisy-repository", show: .silent, urgency: .normal, sound: "message-new-instant")),
        // An account filter, compared as USER@HOST is (host case aside).
        (notice(), work, RuleDecision(rule: "work-low", show: .popup, urgency: .low, sound: nil)),
        // First match wins: a failed build on the work account is the build rule's.
        (notice(kind: .build, summary: "build #1 failed"), work,
         RuleDecision(rule: "failed-builds", show: .popup, urgency: .normal, sound: "message-new-instant")),
    ])
    func theExamplesDecide(_ notice: InboxItem, _ account: Account, _ decision: RuleDecision) throws {
        #expect(try Self.rules(Self.examples).evaluate(notice, of: account) == decision)
    }

    @Test func aRuleFiltersOnAllItsKeysTogether() throws {
        let rules = try Self.rules("""
            [rule one]
            repo = krz/*
            kind = mr
            actor = alba
            summary = opened *
            show = silent
            """)
        let matching = Self.notice(kind: .mr, actor: "alba", summary: "opened merge request #4")
        #expect(rules.evaluate(matching, of: Self.cmc).rule == "one")
        for other in [
            Self.notice(repo: "ops/infra", kind: .mr, actor: "alba", summary: "opened merge request #4"),
            Self.notice(kind: .issue, actor: "alba", summary: "opened merge request #4"),
            Self.notice(kind: .mr, actor: "albatross", summary: "opened merge request #4"),
            Self.notice(kind: .mr, actor: "alba", summary: "merged merge request #4"),
            Self.notice(kind: nil, actor: "alba", summary: "opened merge request #4"),
        ] {
            #expect(rules.evaluate(other, of: Self.cmc).rule == nil, "\(other)")
        }
    }

    @Test func anAccountSectionsEffectsAreItsDefaultsUnderItsRules() throws {
        let rules = try Self.rules("""
            sound = bell

            [account cmc@git.example.com:8443/GB]
            show = silent
            urgency = low

            [rule mentions]
            summary = *mentioned you*
            show = popup
            """)
        #expect(rules.evaluate(Self.notice(), of: Self.work) == RuleDecision(rule: nil, show: .silent, urgency: .low, sound: "bell"))
        #expect(rules.evaluate(Self.notice(summary: "mentioned you in #4"), of: Self.work)
            == RuleDecision(rule: "mentions", show: .popup, urgency: .low, sound: "bell"))
        #expect(rules.evaluate(Self.notice(), of: Self.cmc) == RuleDecision(rule: nil, show: .popup, urgency: .normal, sound: "bell"))
    }

    /// A rule sees a field's first 1,024 characters: a summary of 700,000 (an instance's whole
    /// body long) is matched over those, so a rule costs the same on it as on a short one.
    @Test func aRuleSeesTheFirst1024CharactersOfAField() throws {
        let rules = try Self.rules("""
            [rule ends-in-z]
            summary = *z
            show = none

            [rule starts-with-1024-y]
            summary = \(String(repeating: "y", count: 1024))
            show = silent
            """)
        let long = String(repeating: "y", count: 700_000) + "z"
        #expect(rules.evaluate(Self.notice(summary: long), of: Self.cmc).rule == "starts-with-1024-y")
        #expect(rules.evaluate(Self.notice(summary: String(repeating: "y", count: 1023) + "z"), of: Self.cmc).rule == "ends-in-z")
        #expect(rules.evaluate(Self.notice(actor: String(repeating: "é", count: 5_000) + "z"), of: Self.cmc).rule == nil)
    }

    @Test func aRuleWithoutFiltersMatchesEveryNoticeAndOneWithoutEffectsStopsTheSearch() throws {
        let rules = try Self.rules("""
            [rule keep-alba]
            actor = alba

            [rule everything-else]
            show = silent
            """)
        #expect(rules.evaluate(Self.notice(actor: "alba"), of: Self.cmc) == RuleDecision(rule: "keep-alba", show: .popup, urgency: .normal, sound: nil))
        #expect(rules.evaluate(Self.notice(actor: "bob"), of: Self.cmc).show == .silent)
        #expect(rules.rules.map(\.name) == ["keep-alba", "everything-else"])
        #expect(rules.rules.map(\.line) == [1, 4])
    }

    @Test func aNotificationOfSeveralNoticesDoesWhatTheLoudestOfThemDoes() {
        let silent = RuleDecision(rule: "bots", show: .silent, urgency: .normal, sound: nil)
        let hidden = RuleDecision(rule: "builds", show: .none, urgency: .normal, sound: "bell")
        let low = RuleDecision(rule: "work", show: .popup, urgency: .low, sound: "bell")
        let normal = RuleDecision(rule: nil, show: .popup, urgency: .normal, sound: nil)
        #expect(RuleDecision.loudest(of: []) == nil)
        #expect(RuleDecision.loudest(of: [hidden, silent]) == silent)
        #expect(RuleDecision.loudest(of: [hidden]) == hidden)
        #expect(RuleDecision.loudest(of: [silent, low, normal]) == RuleDecision(rule: "work", show: .popup, urgency: .normal, sound: "bell"))
        #expect(RuleDecision.loudest(of: [normal, low]) == RuleDecision(rule: nil, show: .popup, urgency: .normal, sound: nil))
        #expect(RuleDecision.loudest(of: [low, hidden]) == low)
    }

    @Test func decisionsSayWhatTheyDo() {
        #expect(RuleDecision(rule: "x", show: .silent, urgency: .normal, sound: nil).description == "silent (badge and inbox, no popup)")
        #expect(RuleDecision(rule: "x", show: .none, urgency: .low, sound: "bell").description == "none (not shown)")
        #expect(RuleDecision(rule: nil, show: .popup, urgency: .low, sound: "bell").description == "popup, urgency low, sound bell")
        #expect(RuleUrgency.low.notificationUrgency == .low)
        #expect(RuleUrgency.normal.notificationUrgency == .normal)
    }
}

import FoundationEssentials
import PushCore
import Testing

@Suite struct GitbayCommandTests {
    @Test(arguments: [
        (GitbayCommand.whoami, ["whoami"], true, "argv=whoami"),
        (.notificationsList(limit: nil, cursor: nil), ["notifications", "list"], true, "argv=notifications&argv=list"),
        (.notificationsList(limit: 100, cursor: nil), ["notifications", "list", "--limit", "100"], true,
         "argv=notifications&argv=list&argv=--limit&argv=100"),
        (.notificationsList(limit: 50, cursor: "abc"), ["notifications", "list", "--limit", "50", "--cursor", "abc"], true,
         "argv=notifications&argv=list&argv=--limit&argv=50&argv=--cursor&argv=abc"),
        (.notificationsList(limit: nil, cursor: "c2Vlaw=="), ["notifications", "list", "--cursor", "c2Vlaw=="], true,
         "argv=notifications&argv=list&argv=--cursor&argv=c2Vlaw%3D%3D"),
        (.notificationsList(limit: 20, cursor: nil, includingRead: true), ["notifications", "list", "--all", "--limit", "20"], true,
         "argv=notifications&argv=list&argv=--all&argv=--limit&argv=20"),
        (.notificationsRead(ids: [42]), ["notifications", "read", "42"], false, "argv=notifications&argv=read&argv=42"),
        (.notificationsRead(ids: [1, 2, 9_223_372_036_854_775_807]),
         ["notifications", "read", "1", "2", "9223372036854775807"], false,
         "argv=notifications&argv=read&argv=1&argv=2&argv=9223372036854775807"),
        (.notificationsReadAll, ["notifications", "read", "--all"], false, "argv=notifications&argv=read&argv=--all"),
        (.dashboard, ["dashboard"], true, "argv=dashboard"),
        (.settingsShow, ["notifications", "settings", "show"], true, "argv=notifications&argv=settings&argv=show"),
        (.settingsPush(true), ["notifications", "settings", "push", "on"], false,
         "argv=notifications&argv=settings&argv=push&argv=on"),
        (.settingsPush(false), ["notifications", "settings", "push", "off"], false,
         "argv=notifications&argv=settings&argv=push&argv=off"),
        (.deviceAdd(label: "gbnotifyd on laptop"), ["notifications", "device", "add", "--label", "gbnotifyd on laptop"], false,
         "argv=notifications&argv=device&argv=add&argv=--label&argv=gbnotifyd%20on%20laptop"),
        (.deviceList, ["notifications", "device", "list"], true, "argv=notifications&argv=device&argv=list"),
        (.deviceRemove(id: 7), ["notifications", "device", "remove", "7"], false,
         "argv=notifications&argv=device&argv=remove&argv=7"),
        (.show(NotificationDestination(path: "krz/gitbay/issues/12")!), ["issue", "show", "krz/gitbay", "12"], true,
         "argv=issue&argv=show&argv=krz%2Fgitbay&argv=12"),
        (.show(NotificationDestination(path: "o.x/r_y/mrs/3")!), ["mr", "show", "o.x/r_y", "3"], true,
         "argv=mr&argv=show&argv=o.x%2Fr_y&argv=3"),
        (.show(NotificationDestination(path: "krz/gitbay/builds/9223372036854775807")!),
         ["build", "show", "krz/gitbay", "9223372036854775807"], true,
         "argv=build&argv=show&argv=krz%2Fgitbay&argv=9223372036854775807"),
        (.repo(.mute, repository: "krz/gitbay"), ["repo", "mute", "krz/gitbay"], false, "argv=repo&argv=mute&argv=krz%2Fgitbay"),
        (.repo(.watch, repository: "krz/gitbay"), ["repo", "watch", "krz/gitbay"], false, "argv=repo&argv=watch&argv=krz%2Fgitbay"),
        (.repo(.unwatch, repository: "o.x/r_y"), ["repo", "unwatch", "o.x/r_y"], false, "argv=repo&argv=unwatch&argv=o.x%2Fr_y"),
        (.comment(NotificationDestination(path: "krz/gitbay/issues/12")!), ["issue", "comment", "krz/gitbay", "12", "--file", "-"], false,
         "argv=issue&argv=comment&argv=krz%2Fgitbay&argv=12&argv=--file&argv=-"),
        (.comment(NotificationDestination(path: "krz/gitbay/mrs/7")!), ["mr", "comment", "krz/gitbay", "7", "--file", "-"], false,
         "argv=mr&argv=comment&argv=krz%2Fgitbay&argv=7&argv=--file&argv=-"),
        (.react(NotificationDestination(path: "krz/gitbay/issues/12")!, reaction: "+1", remove: false),
         ["issue", "react", "krz/gitbay", "12", "+1"], false, "argv=issue&argv=react&argv=krz%2Fgitbay&argv=12&argv=%2B1"),
        (.react(NotificationDestination(path: "krz/gitbay/mrs/7")!, reaction: "eyes", remove: true),
         ["mr", "react", "krz/gitbay", "7", "eyes", "--remove"], false, "argv=mr&argv=react&argv=krz%2Fgitbay&argv=7&argv=eyes&argv=--remove"),
    ])
    func argvAndEndpoint(_ command: GitbayCommand, _ argv: [String], _ isReadOnly: Bool, _ query: String) {
        #expect(command.argv == argv)
        #expect(command.isReadOnly == isReadOnly)
        #expect(command.readQuery == query)
    }

    /// A comment is the one write that posts again when sent again; a reaction sets a state.
    @Test func onlyACommentIsNotIdempotent() {
        let issue = NotificationDestination(path: "krz/gitbay/issues/12")!
        #expect(!GitbayCommand.comment(issue).isIdempotent)
        #expect(GitbayCommand.react(issue, reaction: "+1", remove: false).isIdempotent)
        #expect(GitbayCommand.notificationsRead(ids: [1]).isIdempotent)
        #expect(GitbayCommand.repo(.mute, repository: "krz/gitbay").isIdempotent)
    }

    @Test(arguments: [(Int.min, "1"), (-5, "1"), (0, "1"), (1, "1"), (200, "200"), (201, "200"), (Int.max, "200")])
    func listLimitIsClamped(_ limit: Int, _ sent: String) {
        #expect(GitbayCommand.notificationsList(limit: limit, cursor: nil).argv == ["notifications", "list", "--limit", sent])
    }

    @Test(arguments: [
        ("AZaz09-._~", "AZaz09-._~"),
        ("a b", "a%20b"),
        ("a+b=c&d", "a%2Bb%3Dc%26d"),
        ("/?#[]@!$'()*,;:%", "%2F%3F%23%5B%5D%40%21%24%27%28%29%2A%2C%3B%3A%25"),
        ("é", "%C3%A9"),
        ("😀", "%F0%9F%98%80"),
        ("\n\u{0}", "%0A%00"),
    ])
    func readQueryPercentEncodesAllButUnreserved(_ cursor: String, _ encoded: String) {
        let query = GitbayCommand.notificationsList(limit: nil, cursor: cursor).readQuery
        #expect(query == "argv=notifications&argv=list&argv=--cursor&argv=\(encoded)")
    }

    @Test func cmdBodyWithoutStdin() {
        let body = GitbayCommand.notificationsRead(ids: [42]).cmdBody(stdin: nil)
        #expect(String(decoding: body, as: UTF8.self) == #"{"argv":["notifications","read","42"]}"#)
    }

    @Test func cmdBodyWithStdin() {
        let body = GitbayCommand.deviceAdd(label: "gbnotifyd on laptop").cmdBody(stdin: "3fa9")
        #expect(String(decoding: body, as: UTF8.self)
            == #"{"argv":["notifications","device","add","--label","gbnotifyd on laptop"],"stdin":"3fa9"}"#)
    }

    struct Body: Decodable, Equatable {
        let argv: [String]
        let stdin: String?
    }

    @Test(arguments: [
        "",
        #"say "hi""#,
        #"back\slash \" \\"#,
        "line one\nline two\r\n\ttabbed",
        "controls \u{0}\u{1}\u{8}\u{C}\u{1B}\u{1F}\u{7F}",
        "unicode é ß 中文 😀 \u{2028}\u{2029} \u{FEFF}",
        "</script><!-- / -->",
        String(repeating: "x", count: 10_000),
    ])
    func stdinRoundTripsThroughJSONDecoder(_ stdin: String) throws {
        let command = GitbayCommand.deviceAdd(label: "gbnotifyd on \"host\"\n")
        let decoded = try JSONDecoder().decode(Body.self, from: Data(command.cmdBody(stdin: stdin)))
        #expect(decoded == Body(argv: command.argv, stdin: stdin))
    }

    @Test func absentStdinStaysAbsent() throws {
        let body = GitbayCommand.deviceList.cmdBody(stdin: nil)
        #expect(try JSONDecoder().decode(Body.self, from: Data(body)) == Body(argv: ["notifications", "device", "list"], stdin: nil))
        #expect(!String(decoding: body, as: UTF8.self).contains("stdin"))
    }

    @Test(arguments: [
        ("laptop", "gbnotifyd on laptop"),
        ("  laptop.local \n", "gbnotifyd on laptop.local"),
        ("", "gbnotifyd on unknown host"),
        (" \t\n", "gbnotifyd on unknown host"),
        ("\u{7}\u{1B}", "gbnotifyd on unknown host"),
        ("lap\u{1B}[31mtop", "gbnotifyd on lap[31mtop"),
        ("lap\ntop\r", "gbnotifyd on laptop"),
        ("läptöp-😀", "gbnotifyd on läptöp-😀"),
        (String(repeating: "h", count: 64), "gbnotifyd on " + String(repeating: "h", count: 64)),
        (String(repeating: "h", count: 65), "gbnotifyd on " + String(repeating: "h", count: 63) + "…"),
        (String(repeating: "h", count: 5000), "gbnotifyd on " + String(repeating: "h", count: 63) + "…"),
    ])
    func deviceLabel(_ hostname: String, _ label: String) {
        #expect(GitbayCommand.deviceLabel(hostname: hostname) == label)
    }
}

import FoundationEssentials
import PushCore
import Testing

@Suite struct NotificationDestinationTests {
    @Test(arguments: [
        ("krz/gitbay/issues/12", "krz", "gitbay", ItemKind.issue, Int64(12)),
        ("krz/gitbay/mrs/1", "krz", "gitbay", .mr, 1),
        ("krz/gitbay/builds/9223372036854775807", "krz", "gitbay", .build, .max),
        ("a/b/issues/1", "a", "b", .issue, 1),
        ("Some.Org_1/re-po.v2/mrs/42", "Some.Org_1", "re-po.v2", .mr, 42),
        ("_x/y_/builds/3", "_x", "y_", .build, 3),
        (String(repeating: "o", count: 100) + "/" + String(repeating: "r", count: 100) + "/issues/7",
         String(repeating: "o", count: 100), String(repeating: "r", count: 100), .issue, 7),
    ])
    func accepts(_ path: String, _ owner: String, _ repo: String, _ kind: ItemKind, _ number: Int64) throws {
        let destination = try #require(NotificationDestination(path: path))
        #expect(destination.owner == owner)
        #expect(destination.repo == repo)
        #expect(destination.kind == kind)
        #expect(destination.number == number)
        #expect(destination.repository == "\(owner)/\(repo)")
        #expect(destination.path == path)
    }

    @Test(arguments: [
        "",
        "/",
        "krz",
        "krz/gitbay",
        "krz/gitbay/",
        "krz/gitbay/issues",
        "krz/gitbay/issues/",
        "krz/gitbay/wiki/Home",
        "krz/gitbay/merge_requests/3",
        "krz/gitbay/pulls/3",
        "krz/gitbay/Issues/3",
        "krz/gitbay/issue/3",
        "krz/gitbay/MRS/3",
        "/krz/gitbay/issues/12",
        "krz/gitbay/issues/12/",
        "krz/gitbay/issues/12/comments",
        "krz/gitbay/issues/1/../2",
        "krz//issues/12",
        "/gitbay/issues/12",
        "krz/gitbay/issues/0",
        "krz/gitbay/issues/00",
        "krz/gitbay/issues/012",
        "krz/gitbay/issues/+12",
        "krz/gitbay/issues/-12",
        "krz/gitbay/issues/12a",
        "krz/gitbay/issues/0x1F",
        "krz/gitbay/issues/1.5",
        "krz/gitbay/issues/1e3",
        "krz/gitbay/issues/9223372036854775808",
        "krz/gitbay/issues/99999999999999999999999",
        "../gitbay/issues/12",
        "krz/../issues/12",
        "./gitbay/issues/12",
        ".hidden/gitbay/issues/1",
        "krz/.git/issues/1",
        "-rf/gitbay/issues/1",
        "krz/-gitbay/issues/1",
        "krz/gitbay%2Fissues/12",
        "krz/gitbay/issues/%31",
        "%6Brz/gitbay/issues/12",
        "krz/git bay/issues/12",
        " krz/gitbay/issues/12",
        "krz/gitbay/issues/12 ",
        "krz/gitbay/issues/12\n",
        "krz/gitbay/issues/\t12",
        "krz/gitbay/issues/1\u{0}",
        "krz/gitbay/issues/１２",
        "krz/gitbay/issues/٣",
        "krz/gitbаy/issues/12",
        "krz/gitbay/іssues/12",
        "krz/gitbay/issues/12#x",
        "krz/gitbay/issues/12?x",
        "krz\\gitbay/issues/12",
        "krz/gitbay\\issues/12",
        "https://evil.example/a/issues/1",
        "javascript:alert(1)/x/issues/1",
        "user@host/x/issues/1",
        String(repeating: "o", count: 101) + "/gitbay/issues/1",
        "krz/" + String(repeating: "r", count: 101) + "/issues/1",
    ])
    func rejects(_ path: String) {
        #expect(NotificationDestination(path: path) == nil)
    }

    @Test func equalPathsAreEqualDestinations() throws {
        let first = try #require(NotificationDestination(path: "krz/gitbay/mrs/5"))
        let second = try #require(NotificationDestination(path: "krz/gitbay/mrs/5"))
        let other = try #require(NotificationDestination(path: "krz/gitbay/issues/5"))
        #expect(first == second)
        #expect(first != other)
        #expect(Set([first, second, other]).count == 2)
    }

    @Test(arguments: [
        (ItemKind.issue, "issue", "issues", "issue", "x-gitbay.issue"),
        (.mr, "mr", "mrs", "mr", "x-gitbay.mr"),
        (.build, "build", "builds", "build", "x-gitbay.build"),
    ])
    func itemKindNames(_ kind: ItemKind, _ raw: String, _ segment: String, _ noun: String, _ category: String) throws {
        #expect(kind.rawValue == raw)
        #expect(kind.pathSegment == segment)
        #expect(kind.cliNoun == noun)
        #expect(kind.category == category)
        let encoded = try JSONEncoder().encode([kind])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["\#(raw)"]"#)
        #expect(try JSONDecoder().decode([ItemKind].self, from: encoded) == [kind])
    }

    @Test func everyKindHasADestination() {
        for kind in ItemKind.allCases {
            #expect(NotificationDestination(path: "o/r/\(kind.pathSegment)/1")?.kind == kind)
        }
    }
}

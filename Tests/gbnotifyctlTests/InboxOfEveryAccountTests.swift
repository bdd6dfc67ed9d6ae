import Foundation
import Testing
import TestSupport

/// `gbnotifyctl inbox` with no account: every account in the keyring, each read from its own
/// instance, in a keyring of its own (the shared one holds other suites' accounts).
@Suite struct InboxOfEveryAccountTests {
    @Test func theInboxOfEveryAccountComesByAccountNewestFirst() async throws {
        try await PrivateSession.run {
            let (first, firstToken) = try await standinWithUser("cmc")
            let (second, secondToken) = try await standinWithUser("krz")
            let (down, downToken) = try await standinWithUser("cmc")
            for (standin, user, token) in [(first, "cmc", firstToken), (second, "krz", secondToken), (down, "cmc", downToken)] {
                try await SecretTool.store(instance: standin.url, user: user, token: token)
            }
            await down.stop()
            try await first.addNotification(for: "cmc", repo: "krz/one", kind: "issue", actor: "eve", summary: "opened issue #1", path: "krz/one/issues/1")
            try await first.addNotification(for: "cmc", repo: "krz/one", kind: "mr", actor: "eve", summary: "opened merge request #2", path: "krz/one/mrs/2")
            try await second.addNotification(for: "krz", repo: "ops/two", kind: "build", actor: "ci", summary: "build #3 failed", path: "ops/two/builds/3")
            let ctl = try Ctl()
            let run = try await ctl.run(["inbox"])
            // One account could not be read: said in its place, and the status says so.
            #expect(run.status == 1)
            let host = { (standin: Standin) in String(standin.url.dropFirst("http://".count)) }
            let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let headings = lines.filter { !$0.hasPrefix(" ") && !$0.isEmpty }
            // Sorted by account reference: user@host:port.
            let expected = [
                "cmc@\(host(first)) · 2 unread", "cmc@\(host(down)) · Cannot reach \(host(down))", "krz@\(host(second)) · 1 unread",
            ].sorted()
            #expect(headings == expected, "\(run.stdout)")
            let firstRows = lines.drop { $0 != "cmc@\(host(first)) · 2 unread" }.dropFirst().prefix(2)
            #expect(firstRows.map { $0.hasPrefix("  mr    krz/one!2") } == [true, false], "\(run.stdout)")
            #expect(firstRows.last?.hasPrefix("  issue krz/one#1") == true)
            #expect(run.stdout.contains("  build ops/two#3  ci build #3 failed"))
            await first.stop()
            await second.stop()
        }
    }
}

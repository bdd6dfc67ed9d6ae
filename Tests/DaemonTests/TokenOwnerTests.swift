import Daemon
import DesktopSuites
import PushCore
import TestSupport
import Testing

/// A keyring item's `user` is only a label: before an account's token is used for anything
/// else, `whoami` must name that user, once per token (issue 24, item 10).
@Suite(.needsDesktopSession) struct TokenOwnerTests {
    @Test func aTokenOfAnotherUserIsNeverUsedAsTheAccountsUser() async throws {
        try await Harness.run(1, inKeyring: []) { harness in
            let instance = harness.instances[0]
            let bobs = try await instance.standin.addUserWithToken("bob", scope: .full)
            try await SecretTool.store(instance: instance.account.instance.url, user: Harness.username, token: bobs)
            let supervisor = harness.supervisor()
            try await supervisor.start()
            try await harness.waitForLog("the token belongs to bob, not cmc; not polled")
            let status = await supervisor.status().accounts.first
            #expect(status?.state == .needsToken)
            #expect(status?.lastError == "the token belongs to bob, not cmc")
            // Nothing but the question: no registration, no poll as cmc with bob's token.
            #expect(try await instance.standin.requests().compactMap(\.argv) == [["whoami"]])
            #expect(!harness.log.value.contains { $0.contains(bobs) })
        }
    }

    @Test func theAccountsOwnTokenIsAskedAboutOnceThenUsed() async throws {
        try await Harness.run(1) { harness in
            let (standin, account) = (harness.instances[0].standin, harness.instances[0].account)
            let supervisor = harness.supervisor()
            try await supervisor.start()
            try await harness.desktop.waitForUpdates(1, for: account)
            let first = try await standin.requests().compactMap(\.argv)
            #expect(first.first == ["whoami"])
            #expect(first.contains { $0.starts(with: ["notifications", "list"]) })

            // A reload registers again with the same token, and asks nothing. (Polls on the
            // test's short interval may come before and after it.)
            try await standin.clearRequests()
            try await supervisor.reload()
            var again: [[String]] = []
            while !again.contains(where: { $0.starts(with: ["notifications", "device", "add"]) }) {
                again = try await standin.waitForRequests(count: again.count + 1).compactMap(\.argv)
            }
            #expect(!again.contains(["whoami"]), "\(again)")
        }
    }
}

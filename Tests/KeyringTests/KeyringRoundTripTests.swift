import DesktopSuites
import Keyring
@testable import MainLoop
import PushCore
import Testing

@Suite(.timeLimit(.minutes(3)), .needsDesktopSession)
struct KeyringRoundTripTests {
    let keyring = Keyring()

    init() async throws {
        try await TestSession.requireSecretService()
    }

    @Test func storedTokenIsFoundAndListed() async throws {
        let account = try testAccount("round-trip", on: "https://round-trip.example")
        let token = try uniqueToken()
        try await keyring.store(token, for: account)

        #expect(try await keyring.token(for: account) == token)
        let listed = try await keyring.list().accounts.filter { $0.account == account }
        #expect(listed.map(\.token) == [token])
    }

    /// The caller's deadline and the wait reports are loop alarms that go when the call is
    /// answered: a call done in time leaves nothing in the loop to wake it later. (Durations of
    /// this test's own, so that no other test's timer falls in the windows.)
    @Test func aCallAnsweredInTimeLeavesNoAlarmInTheLoop() async throws {
        let deadline = Duration.seconds(7_919)
        let reportAfter = Duration.seconds(7_907)
        let keyring = Keyring(answerWithin: deadline, reportingWaits: KeyringWaitReport(after: reportAfter) { _ in })
        let before = ContinuousClock.now
        _ = try await keyring.accounts()
        let after = ContinuousClock.now
        #expect(!MainLoop.shared.hasTimer(dueIn: (before + deadline)...(after + deadline)), "the deadline's alarm")
        #expect(!MainLoop.shared.hasTimer(dueIn: (before + reportAfter)...(after + reportAfter)), "a wait report's alarm")
    }

    @Test func storingAgainReplacesTheToken() async throws {
        let account = try testAccount("replaced", on: "https://replace.example")
        let first = try uniqueToken()
        let second = try uniqueToken()
        try await keyring.store(first, for: account)
        try await keyring.store(second, for: account)

        #expect(try await keyring.token(for: account) == second)
        let listing = try await keyring.list()
        #expect(listing.accounts.filter { $0.account == account }.map(\.token) == [second])
        #expect(!listing.skipped.contains { $0.instance == account.instance.url })
    }

    /// The record of a minted token (its name and SSH remote) comes back with the token, and a
    /// token stored without one replaces the item, record and all: one item, no record.
    @Test func aMintedTokensRecordComesBackAndGoesWithItsToken() async throws {
        let account = try testAccount("minted", on: "https://minted.example")
        let mint = SSHMint(
            tokenName: "gbnotifyd on laptop 3fa9c2", remote: try SSHRemote(host: "ssh.minted.example", port: 2222, options: ["-i", "~/my key"]))
        let minted = try uniqueToken()
        try await keyring.store(minted, for: account, mint: mint)
        #expect(try await keyring.list().accounts.filter { $0.account == account }.map(\.mint) == [mint])

        let pasted = try uniqueToken()
        try await keyring.store(pasted, for: account)
        let listing = try await keyring.list()
        let stored = listing.accounts.filter { $0.account == account }
        #expect(stored.map(\.token) == [pasted])
        #expect(stored.map(\.mint) == [nil])
        #expect(!listing.skipped.contains { $0.instance == account.instance.url })
        _ = try await keyring.delete(account)
    }

    @Test func deleteRemovesTheAccountAndSaysSo() async throws {
        let account = try testAccount("deleted", on: "https://delete.example")
        try await keyring.store(try uniqueToken(), for: account)

        #expect(try await keyring.delete(account))
        #expect(try await keyring.token(for: account) == nil)
        #expect(!(try await keyring.list().accounts.contains { $0.account == account }))
        #expect(try await keyring.delete(account) == false)
    }

    @Test func unknownAccountHasNoToken() async throws {
        let account = try testAccount("nobody", on: "https://never-stored.example")
        #expect(try await keyring.token(for: account) == nil)
    }

    @Test func sameUserOnTwoInstancesIsTwoAccounts() async throws {
        let onFirst = try testAccount("twin", on: "https://first-twin.example")
        let onSecond = try testAccount("twin", on: "https://second-twin.example")
        let firstToken = try uniqueToken()
        let secondToken = try uniqueToken()
        try await keyring.store(firstToken, for: onFirst)
        try await keyring.store(secondToken, for: onSecond)

        #expect(try await keyring.token(for: onFirst) == firstToken)
        #expect(try await keyring.token(for: onSecond) == secondToken)
        #expect(try await keyring.delete(onFirst))
        #expect(try await keyring.token(for: onFirst) == nil)
        #expect(try await keyring.token(for: onSecond) == secondToken)
    }

    @Test func usernamesDifferingOnlyInCaseAreTwoAccounts() async throws {
        let lower = try testAccount("casey", on: "https://case.example")
        let upper = try testAccount("Casey", on: "https://case.example")
        let lowerToken = try uniqueToken()
        let upperToken = try uniqueToken()
        try await keyring.store(lowerToken, for: lower)
        try await keyring.store(upperToken, for: upper)

        #expect(try await keyring.token(for: lower) == lowerToken)
        #expect(try await keyring.token(for: upper) == upperToken)
    }

    @Test func concurrentStoresThroughSeparateKeyringsAllLand() async throws {
        let accounts = try (0..<8).map { try testAccount("parallel-\($0)", on: "https://parallel.example") }
        let tokens = try accounts.map { _ in try uniqueToken() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (account, token) in zip(accounts, tokens) {
                group.addTask { try await Keyring().store(token, for: account) }
            }
            try await group.waitForAll()
        }

        let listed = try await keyring.list().accounts.filter { $0.account.instance.host == "parallel.example" }
        #expect(listed.map(\.account) == accounts.sorted { $0.id < $1.id })
        for (account, token) in zip(accounts, tokens) {
            #expect(listed.first { $0.account == account }?.token == token)
        }
    }
}

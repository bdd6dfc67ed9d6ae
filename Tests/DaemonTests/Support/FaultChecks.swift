import Daemon
import Foundation
import Keyring
import PushCore
import TestSupport
import Testing

/// The three things every fault test asserts besides its own: the faulty account recovers and
/// shows what is new once, the other accounts never noticed, and nothing was shown twice.
extension Harness {
    /// Instance `index` polls on as if nothing happened: it has polled successfully, a row added
    /// now is shown once, as a notice of its own, and the account's state is `state`.
    func expectShowsNewRowsOnce(_ index: Int, from supervisor: Supervisor, state: AccountState = .ok) async throws {
        let account = instances[index].account
        // A successful poll has happened, so the next row is news rather than a first sight.
        try await desktop.waitForUpdates(1, for: account)
        let before = desktop.notices(for: account).count
        let id = try await instances[index].standin.addNotification(for: Harness.username)
        try await desktop.waitForNotices(before + 1, for: account)
        // Two polls more: the row was not shown a second time by either.
        try await waitForListRequests(listRequests(index).count + 2, on: index)
        #expect(desktop.notices(for: account).dropFirst(before).map(\.gist) == [.item(Int64(id))])
        #expect(try await status(of: index, from: supervisor).state == state)
        expectNothingShownTwice(index)
    }

    /// No inbox row of instance `index` was shown one by one more than once.
    func expectNothingShownTwice(_ index: Int) {
        let shown = desktop.notices(for: instances[index].account).compactMap { notice -> Int64? in
            if case .item(let item) = notice { item.id } else { nil }
        }
        #expect(shown.count == Set(shown).count, "shown more than once: \(shown)")
    }

    /// Instance `index`'s list requests that arrived between two times of the stand-in's clock.
    func listRequests(_ index: Int, between start: Double, and end: Double) async throws -> [Standin.LoggedRequest] {
        try await listRequests(index).filter { $0.time > start && $0.time < end }
    }

    /// The harness's keyring accounts and, besides them, those of `extra` instances: accounts
    /// a test stores itself, such as one on a host that does not resolve.
    func keyringAccounts(including extra: [GitbayInstance]) -> AccountSource {
        let ours = Set(instances.map(\.account.instance) + extra)
        return {
            let listing = try await Keyring().list()
            return AccountListing(accounts: listing.accounts.filter { ours.contains($0.account.instance) }, skipped: [])
        }
    }
}

/// An account of a test's own in the session keyring, deleted again however the test ends.
enum ExtraAccount {
    /// Stores `token` for user `cmc` on `instance`, runs `body`, deletes the item.
    static func with(
        instance url: String, token: String, _ body: (Account) async throws -> Void
    ) async throws {
        let account = try Account(instance: try GitbayInstance(parsing: url), username: Harness.username)
        // With secret-tool, as the harness's own accounts (Harness.storeInKeyring).
        try await SecretTool.store(instance: account.instance.url, user: account.username, token: token)
        do {
            try await body(account)
        } catch {
            try? await SecretTool.clear(instance: account.instance.url, user: account.username)
            throw error
        }
        try await SecretTool.clear(instance: account.instance.url, user: account.username)
    }
}

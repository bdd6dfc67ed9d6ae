import PushCore
import MainLoop

/// The gitbay accounts in the desktop keyring: Secret Service items of schema
/// `org.gitbay.Account` with attributes `instance` (the normalised URL) and `user`, the API
/// token as the secret. Anything that writes items of that shape, `secret-tool` included, adds
/// an account.
///
/// Items are found by reading every item of the schema and comparing the accounts they name,
/// not by exact attributes, so an item written with another spelling of the instance (a
/// trailing slash, `:443`, upper case) is found, replaced and deleted like one of ours. Only the
/// secrets a call needs are read: `list()` reads every token, `token(for:)` the account's
/// alone, and `accounts()`, `store` and `delete` none.
///
/// The Secret Service is spoken through libsecret's asynchronous calls on the main loop
/// (`KeyringSession`). A call waits for the user's answer to a prompt (an unlock, KeePassXC's
/// access dialog) as long as the caller lets it: `answerWithin`, or until its task is cancelled.
public final class Keyring: Sendable {
    private let limit: Duration?
    private let waitReport: KeyringWaitReport?
    private let timeline: Timeline

    /// - Parameters:
    ///   - limit: how long a call may go unanswered before it fails with `.timedOut` (a prompt
    ///     still up is dismissed); nil waits as long as the user takes.
    ///   - waitReport: told what a call waits for once it has waited a while in one step.
    ///   - timeline: the time both of those are counted on.
    public init(
        answerWithin limit: Duration? = nil, reportingWaits waitReport: KeyringWaitReport? = nil,
        timeline: Timeline = Timeline()
    ) {
        self.limit = limit
        self.waitReport = waitReport
        self.timeline = timeline
    }

    /// Stores `token` for `account`, replacing the token of any item that names the same
    /// account; `mint` records how gbnotify minted it, if it did.
    public func store(_ token: APIToken, for account: Account, mint: SSHMint? = nil) async throws(KeyringError) {
        let attributes = [KeyringAttribute.instance: account.instance.url, KeyringAttribute.user: account.username]
            .merging(mint?.attributes ?? [:]) { ours, _ in ours }
        try await withService { service throws(KeyringError) in
            let label = "gitbay token for \(account.displayName)"
            try await service.store(token.secret, label: label, attributes: attributes, schema: .account)
            var items = try await service.items(of: .account, readsSecret: { _ in false }).filter { $0.names(account) }
            if !items.contains(where: { $0.has(attributes) }), items.contains(where: { $0.includes(attributes) }) {
                // KeePassXC replaced an item whose attributes include ours in place, keeping the
                // record of the token before (its token-name): the items go, and the token is
                // stored afresh.
                for item in items { _ = try await service.delete(item.path) }
                try await service.store(token.secret, label: label, attributes: attributes, schema: .account)
                items = try await service.items(of: .account, readsSecret: { _ in false }).filter { $0.names(account) }
            }
            // The store replaced an item with exactly these attributes; one for the same account
            // under another spelling of the instance, or with another token's record, would live
            // on beside it.
            for item in items where !item.has(attributes) {
                _ = try await service.delete(item.path)
            }
        }
    }

    /// The token for `account`, or nil when the keyring holds none: the one `list()` shows.
    ///
    /// Only the account's own items are read: the search asks for its `user` attribute (a
    /// username is matched exactly, so no item of the account is missed; the instance may be
    /// spelled any way, so it is compared after), and of what it finds only the items that name
    /// the account give their secret. Other accounts' tokens never reach this process.
    public func token(for account: Account) async throws(KeyringError) -> APIToken? {
        try await withService { service throws(KeyringError) in
            let items = try await service.items(
                of: .account, matching: [KeyringAttribute.user: account.username], readsSecret: { $0.names(account) })
            return KeyringListing(reading: items.filter { $0.names(account) }).accounts.first { $0.account == account }?.token
        }
    }

    /// Every account the keyring's items name, sorted by `Account.id`, read from their
    /// attributes alone: no token is read. An account whose item holds no usable token is
    /// listed too; `token(for:)` says so.
    public func accounts() async throws(KeyringError) -> [Account] {
        try await withService { service throws(KeyringError) in
            let named = try await service.items(of: .account, readsSecret: { _ in false }).compactMap { item -> Account? in
                guard case .account(let account) = item.readAccount() else { return nil }
                return account
            }
            return Set(named).sorted { $0.id < $1.id }
        }
    }

    /// Every account in the keyring, and the items of the schema that are not usable accounts.
    public func list() async throws(KeyringError) -> KeyringListing {
        try await withService { service throws(KeyringError) in KeyringListing(reading: try await service.items(of: .account)) }
    }

    /// Deletes every item that names `account`; true when there was one.
    public func delete(_ account: Account) async throws(KeyringError) -> Bool {
        try await withService { service throws(KeyringError) in
            var deleted = false
            for item in try await service.items(of: .account, readsSecret: { _ in false }) where item.names(account) {
                if try await service.delete(item.path) { deleted = true }
            }
            return deleted
        }
    }

    /// Runs `body` in the keyring's turn, cancelling its libsecret calls when the caller's time
    /// runs out or its task is cancelled.
    func withService<Value: Sendable>(
        _ body: @escaping @Sendable @LoopActor (SecretServiceCalls) async throws(KeyringError) -> Value
    ) async throws(KeyringError) -> Value {
        let cancellation = Cancellation()
        let waits = WaitTracker(waitReport, timeline: timeline)
        let deadline = limit.map { limit in timeline.alarm(after: limit) { cancellation.cancel(because: .deadline) } }
        defer {
            deadline?.cancel()
            waits.finish()
        }
        let result = await withTaskCancellationHandler { () async -> Result<Value, KeyringError> in
            do throws(KeyringError) {
                return .success(try await KeyringSession.shared.run(cancellation: cancellation, waits: waits, body))
            } catch {
                return .failure(error)
            }
        } onCancel: {
            cancellation.cancel(because: .task)
        }
        return try result.get()
    }
}

/// The attribute names of the `org.gitbay.Account` schema.
enum KeyringAttribute {
    static let instance = "instance"
    static let user = "user"
}

import GitbayClient
import GitbaySSH
import Keyring
import PushCore
import StateStore

/// The account life cycle, shared by `gbnotifyctl` and the daemon: check a token, keep it in the
/// keyring, register this install, and undo all of it in the right order.
public struct AccountManager: Sendable {
    public let keyring: Keyring
    public let state: StateDirectory
    public let clientOptions: GitbayClient.Options
    /// Names this install in the instance's device list: `gbnotifyd on HOSTNAME`.
    public let deviceLabel: String

    public init(keyring: Keyring, state: StateDirectory, clientOptions: GitbayClient.Options, hostname: String) {
        self.keyring = keyring
        self.state = state
        self.clientOptions = clientOptions
        deviceLabel = GitbayCommand.deviceLabel(hostname: hostname)
    }

    /// Checks `token` with `whoami`, stores the account under the username the server reports
    /// (replacing an older token for it), and registers this install. Nothing is stored when the
    /// token or the instance is wrong; a registration failure still keeps the account, because
    /// polling works without it.
    /// `mint` records that gbnotify minted the token over SSH, so that `remove` revokes it.
    public func add(instance: GitbayInstance, token: APIToken, mint: SSHMint? = nil) async throws(AccountFailure) -> AddReport {
        let client = GitbayClient(instance: instance, token: token, options: clientOptions)
        let whoami: Whoami
        switch try await send(.whoami, with: client) {
        case .unauthorized:
            throw .tokenRejected(instance)
        case .notFound:
            throw .noAPI(instance)
        case let result:
            guard case .success = result else { throw .unexpected(instance, "\(result)") }
            do {
                whoami = try result.decode(Whoami.self)
            } catch {
                throw .unexpected(instance, "\(error)")
            }
        }
        let account: Account
        do {
            account = try Account(instance: instance, username: whoami.username)
        } catch {
            throw .unexpected(instance, "\(error)")
        }
        // A token gbnotify minted earlier for this account is replaced, and revoked below: it
        // would otherwise stay valid on the server with nobody knowing of it.
        let replaced = try? await keyring.list().accounts.first { $0.account == account }?.mint
        do {
            try await keyring.store(token, for: account, mint: mint)
        } catch {
            throw .keyring(error)
        }
        let registration = await register(account, with: client)
        var replacedRevocation: Revocation?
        if let replaced, replaced.tokenName != mint?.tokenName || replaced.remote != mint?.remote {
            replacedRevocation = await revoke(replaced)
        }
        return AddReport(account: account, registration: registration, replacedRevocation: replacedRevocation)
    }

    /// Registers the account's own device token with it (`device add` upserts, so repeating it
    /// is free) and records the outcome, whatever it is, for `account list` and `status`; only a
    /// call cut short by cancellation records nothing. The token is made on first use; an account
    /// an earlier version registered with its one shared install token first removes that row,
    /// where this account owns it (`moveOffInstallToken`).
    public func register(_ account: Account, with client: any GitbayTransport) async -> Registration {
        let registration: Registration
        do {
            let token = try state.deviceToken(for: account.id).token
            if let legacyID = try state.loadAccounts().state.accounts[account.id]?.legacyDeviceID {
                await moveOffInstallToken(legacyID, with: client)
                guard !Task.isCancelled else { return .failed("cancelled") }
                try state.updateAccounts { $0.accounts[account.id]?.legacyDeviceID = nil }
            }
            let result = try await client.send(.deviceAdd(label: deviceLabel), stdin: token.hex)
            registration = Registration(result)
        } catch {
            registration = .failed("\(error)")
        }
        // Cut short because the daemon is stopping or reloading: the answer says nothing about
        // the server, so the state keeps what it knew (the device id above all).
        guard !Task.isCancelled else { return registration }
        _ = try? state.updateAccounts { registration.apply(to: &$0.accounts[account.id, default: AccountRecord()]) }
        return registration
    }

    /// Removes the row an earlier version registered for its shared install token, when it is
    /// still this account's: the account's `device list` shows it under `id` with the install
    /// token's first characters. A row another account of the instance took over (`device add`
    /// hands a shared token to its newest caller) is not in this account's list and stays
    /// theirs; a row the server reaped is simply gone. A failure leaves a stale row, harmless
    /// and visible on the web.
    private func moveOffInstallToken(_ id: Int64, with client: any GitbayTransport) async {
        guard let installToken = try? state.legacyInstallToken(),
              let devices = try? await client.send(.deviceList).decode([Device].self),
              devices.contains(where: { $0.id == id && $0.token.hasPrefix(installToken.shortID) })
        else { return }
        _ = try? await client.send(.deviceRemove(id: id))
    }

    /// Deregisters this install (`device remove` with the stored id) while the token still
    /// exists, then deletes the token and the account's state. A failed deregistration does not
    /// keep the account: the stale device row is harmless and visible on the web. The token goes
    /// only where `allowsToken` allows (plain http to another machine does not, unless the
    /// config says so): otherwise the row stays and the account is still removed.
    public func remove(
        _ account: Account, allowsToken: (GitbayInstance) -> Bool
    ) async throws(AccountFailure) -> RemoveReport {
        let stored: StoredAccount?
        do {
            stored = try await keyring.list().accounts.first { $0.account == account }
        } catch {
            throw .keyring(error)
        }
        guard let stored else { throw .noSuchAccount(account) }
        let token = stored.token

        var deregistration = Deregistration.notRegistered
        if let deviceID = try? state.loadAccounts().state.accounts[account.id]?.deviceID, !allowsToken(account.instance) {
            deregistration = .failed(
                deviceID: deviceID,
                reason: "\(account.instance.url) is plain http to another machine, which would send the API token readable by anyone on the way")
        } else if let deviceID = try? state.loadAccounts().state.accounts[account.id]?.deviceID {
            let client = GitbayClient(instance: account.instance, token: token, options: clientOptions)
            do {
                switch try await client.send(.deviceRemove(id: deviceID)) {
                case .success, .notFound:
                    // notFound: the server already reaped the row, which is what we wanted.
                    deregistration = .removed(deviceID: deviceID)
                case let result:
                    deregistration = .failed(deviceID: deviceID, reason: "\(result)")
                }
            } catch {
                deregistration = .failed(deviceID: deviceID, reason: "\(error)")
            }
        }
        // The token is revoked after the device row went, which needed it, and before the item
        // that names it goes; a failure still removes the account, and says what to run.
        var revocation = Revocation.notMinted
        if let mint = stored.mint { revocation = await revoke(mint) }
        do {
            _ = try await keyring.delete(account)
        } catch {
            throw .keyring(error)
        }
        _ = try? state.updateAccounts { $0.accounts[account.id] = nil }
        return RemoveReport(account: account, deregistration: deregistration, revocation: revocation)
    }

    /// Every account in the keyring with what this install knows about its registration, and the
    /// keyring items that could not be read as accounts.
    public func list() async throws(AccountFailure) -> (accounts: [AccountSummary], skipped: [String]) {
        let listing: KeyringListing
        do {
            listing = try await keyring.list()
        } catch {
            throw .keyring(error)
        }
        let records = (try? state.loadAccounts().state.accounts) ?? [:]
        let summaries = listing.accounts
            .map { AccountSummary(account: $0.account, record: records[$0.account.id]) }
            .sorted { $0.account.id < $1.account.id }
        return (summaries, listing.skipped.map { "\($0)" })
    }

    private func send(_ command: GitbayCommand, with client: any GitbayTransport) async throws(AccountFailure) -> APIResult {
        do {
            return try await client.send(command)
        } catch {
            throw .unreachable(client.instance, "\(error)")
        }
    }
}

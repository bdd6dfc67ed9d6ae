import GitbaySSH
import PushCore

extension AccountManager {
    /// `account add URL --ssh`: mints a full token named `tokenName` over `ssh` with the user's
    /// key, and adds it as `add` does, after `whoami` with it at `instance` succeeded. Whatever
    /// goes wrong after the server may have minted it, the token is revoked again at once, so
    /// that nothing is left behind; the failure says which web address was tried.
    public func mint(instance: GitbayInstance, over ssh: GitbaySSH, tokenName: String) async throws(AccountFailure) -> AddReport {
        let minted: MintedToken
        do {
            minted = try await ssh.createToken(name: tokenName)
        } catch {
            switch error {
            case .notAnEnvelope, .tooLarge, .badToken, .timedOut, .killed:
                // The command may have run: a token of that name may exist.
                let revocation = await revoke(SSHMint(tokenName: tokenName, remote: ssh.remote), over: ssh)
                throw .minting(error, revocation: revocation)
            default:
                throw .minting(error, revocation: nil)
            }
        }
        let record = SSHMint(tokenName: minted.name, remote: ssh.remote)
        do {
            return try await add(instance: instance, token: minted.token, mint: record)
        } catch {
            throw .mintedTokenUnusable(instance, ssh.remote, error, revocation: await revoke(record, over: ssh))
        }
    }

    /// Revokes a token gbnotify minted; a token the server no longer has counts as revoked.
    func revoke(_ mint: SSHMint) async -> Revocation {
        await revoke(mint, over: GitbaySSH(remote: mint.remote))
    }

    private func revoke(_ mint: SSHMint, over ssh: GitbaySSH) async -> Revocation {
        do {
            try await ssh.revokeToken(name: mint.tokenName)
            return .revoked(tokenName: mint.tokenName)
        } catch {
            if case .notFound = error { return .revoked(tokenName: mint.tokenName) }
            return .failed(tokenName: mint.tokenName, reason: "\(error)", command: ssh.revokeCommandLine(name: mint.tokenName))
        }
    }
}

/// What became of revoking a token gbnotify minted.
public enum Revocation: Sendable, Equatable, CustomStringConvertible {
    /// The token was handed to gbnotify, not minted by it: the user's to revoke.
    case notMinted
    case revoked(tokenName: String)
    /// `command` is what the user runs by hand to revoke it.
    case failed(tokenName: String, reason: String, command: String)

    public var description: String {
        switch self {
        case .notMinted: "the token was not minted by gbnotify"
        case .revoked(let name): "token \"\(name.displaySafe)\" revoked"
        case .failed(let name, let reason, let command):
            "token \"\(name.displaySafe)\" could not be revoked (\(reason)); revoke it by hand: \(command)"
        }
    }
}

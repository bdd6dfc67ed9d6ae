import Keyring
import PushCore

/// Why an account command could not do what it was asked. Never carries a token.
public indirect enum AccountFailure: Error, CustomStringConvertible {
    case tokenRejected(GitbayInstance)
    case noAPI(GitbayInstance)
    case unreachable(GitbayInstance, String)
    case unexpected(GitbayInstance, String)
    case noSuchAccount(Account)
    case keyring(KeyringError)
    /// Minting over SSH failed; `revocation` says what became of a token the server may have
    /// minted all the same (nil: it cannot have).
    case minting(SSHFailure, revocation: Revocation?)
    /// A token was minted over SSH, but the instance at the web address did not take it.
    case mintedTokenUnusable(GitbayInstance, SSHRemote, AccountFailure, revocation: Revocation)

    public var description: String {
        switch self {
        case .tokenRejected(let instance):
            "\(instance.url) refused the token (401: invalid or expired); let gbnotifyctl mint a new one with your SSH key: "
                + "'gbnotifyctl account add \(instance.url) --ssh'. Nothing was stored."
        case .noAPI(let instance):
            "\(instance.url) has no gitbay API (404): it is not a gitbay instance, or its admin has not set "
                + "[api] enabled = true. Nothing was stored."
        case .unreachable(let instance, let why):
            "cannot reach \(instance.url): \(why). Nothing was stored."
        case .unexpected(let instance, let why):
            "\(instance.url) answered unexpectedly: \(why). Nothing was stored."
        case .noSuchAccount(let account):
            "there is no account \(account.displayName) in the keyring; 'gbnotifyctl account list' shows them"
        case .keyring(let error):
            "\(error)"
        case .minting(let failure, let revocation):
            "cannot mint a token over SSH: \(failure). Nothing was stored." + (revocation.map(Self.revocationWords) ?? "")
        case .mintedTokenUnusable(let instance, let remote, let failure, let revocation):
            "a token was minted at \(remote), but \(instance.url), the web address tried, did not take it: \(failure)"
                + " If that is not the instance's web address, give the right one as URL." + Self.revocationWords(revocation)
        }
    }

    private static func revocationWords(_ revocation: Revocation) -> String {
        switch revocation {
        case .notMinted: ""
        case .revoked: " The new token was revoked again."
        case .failed(_, let reason, let command): " Revoking the new token failed too (\(reason)); revoke it by hand: \(command)"
        }
    }
}

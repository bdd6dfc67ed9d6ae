import Keyring
import PushCore

/// Why an account command could not do what it was asked. Never carries a token.
public enum AccountFailure: Error, CustomStringConvertible {
    case tokenRejected(GitbayInstance)
    case noAPI(GitbayInstance)
    case unreachable(GitbayInstance, String)
    case unexpected(GitbayInstance, String)
    case noSuchAccount(Account)
    case keyring(KeyringError)

    public var description: String {
        switch self {
        case .tokenRejected(let instance):
            "\(instance.url) refused the token (401: invalid or expired); mint a new one with "
                + "'ssh git@\(instance.host) token create --name gbnotify --scope full'. Nothing was stored."
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
        }
    }
}

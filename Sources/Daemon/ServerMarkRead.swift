import GitbayClient
import Keyring
import PushCore

/// "Mark read" as the daemon does it: `notifications read ID...` with the account's token, read
/// from the keyring at the moment of the click (the token may have changed since the start).
public enum ServerMarkRead {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    public static func through(_ keyring: Keyring, options: GitbayClient.Options) -> DesktopPresenter.MarkRead {
        { account, ids in
            guard let token = try await keyring.token(for: account) else {
                throw Failure(description: "the account is no longer in the keyring")
            }
            let result = try await GitbayClient(instance: account.instance, token: token, options: options)
                .send(.notificationsRead(ids: ids))
            guard case .success = result else { throw Failure(description: "\(result)") }
        }
    }
}

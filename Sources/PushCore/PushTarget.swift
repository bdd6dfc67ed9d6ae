/// Where a clicked notice leads: the account it was sent to and, when its path is routable, the
/// item to open (otherwise the click opens that account's inbox).
public struct PushTarget: Sendable, Equatable {
    public let account: Account
    public let destination: NotificationDestination?

    public init(account: Account, destination: NotificationDestination?) {
        self.account = account
        self.destination = destination
    }

    /// The account whose normalised instance and exact username (gitbay usernames are
    /// case-sensitive) both match; nil when none does, and then nothing is opened. The same
    /// username on two instances is two accounts.
    public static func resolve(
        instance: GitbayInstance, user: String, path: String, among accounts: [Account]
    ) -> PushTarget? {
        guard let account = accounts.first(where: { $0.instance == instance && $0.username == user }) else {
            return nil
        }
        return PushTarget(account: account, destination: NotificationDestination(path: path))
    }

    public static func resolve(_ payload: PushPayload, among accounts: [Account]) -> PushTarget? {
        resolve(instance: payload.instance, user: payload.user, path: payload.path, among: accounts)
    }
}

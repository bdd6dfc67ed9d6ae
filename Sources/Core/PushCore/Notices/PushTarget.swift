/// Where a clicked notice leads: the account it was sent to and, when its path is routable, the
/// item to open (otherwise the click opens that account's inbox).
public struct PushTarget: Sendable, Equatable {
    public let account: Account
    public let destination: NotificationDestination?

    public init(account: Account, destination: NotificationDestination?) {
        self.account = account
        self.destination = destination
    }
}

/// Where a delivered payload goes among the daemon's accounts: a notice for one of them, or a
/// wake-up of one of them. Everything else is a `PayloadDrop`, and nothing happens.
public enum PayloadRoute: Sendable, Equatable {
    /// `badge` is the account's unread count when the payload carried one.
    case notice(PushedNotice, badge: Int?)
    case wakeUp(Account)

    /// The account is the one whose normalised instance and exact username match (see
    /// `PushTarget.resolve`); a notice must also name an item (`NotificationDestination`), so
    /// a click can never open anything but an issue, merge request or build of that instance.
    public static func route(_ bytes: some Collection<UInt8>, among accounts: [Account]) throws(PayloadDrop) -> PayloadRoute {
        let payload: DeliveredPayload
        do {
            payload = try DeliveredPayload(json: bytes)
        } catch {
            throw .unreadable(error)
        }
        switch payload {
        case .wakeUp(let instance, let user):
            guard let target = PushTarget.resolve(instance: instance, user: user, path: "", among: accounts) else {
                throw .noSuchAccount(user: user, instance: instance)
            }
            return .wakeUp(target.account)
        case .notice(let notice):
            guard let target = PushTarget.resolve(notice, among: accounts) else {
                throw .noSuchAccount(user: notice.user, instance: notice.instance)
            }
            guard let destination = target.destination else { throw .unroutablePath }
            return .notice(PushedNotice(account: target.account, destination: destination, text: notice.body), badge: notice.badge)
        }
    }
}

/// Why a delivered payload does nothing. The descriptions are one line each, for a debug line
/// and a `Deliver` caller; what they quote from the payload is cut short and made printable.
public enum PayloadDrop: Error, Equatable, CustomStringConvertible {
    case unreadable(PayloadError)
    case noSuchAccount(user: String, instance: GitbayInstance)
    /// The path is not `OWNER/REPO/(issues|mrs|builds)/N`.
    case unroutablePath

    public var description: String {
        switch self {
        case .unreadable(let error):
            "\(error)"
        case .noSuchAccount(let user, let instance):
            "no account here is \(user.controlCharactersAsSpaces.truncated(to: Account.maximumUsernameLength))"
                + " on \(instance.url.controlCharactersAsSpaces.truncated(to: 200))"
        case .unroutablePath:
            "the push payload's path is not of the form OWNER/REPO/(issues|mrs|builds)/N"
        }
    }
}

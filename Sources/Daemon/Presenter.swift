import PushCore

/// What one poll of one account means for the desktop, handed to the `Presenter`.
public struct AccountUpdate: Sendable, Equatable {
    public let account: Account
    /// New notices to show, in order: individual rows oldest first, or one summary.
    public let notices: [InboxCycle.Notice]
    /// The account's unread count after this poll (a `.needsDashboard` count is already
    /// resolved). The badge is the sum over accounts: a presenter keeps the latest count of
    /// each account and adds them up, so updates of different accounts can arrive in any order.
    public let unread: UnreadCount
    /// Inbox ids from `Presenter.onScreen` that are no longer unread, read elsewhere: withdraw
    /// their notifications.
    public let withdrawn: [Int64]

    public init(account: Account, notices: [InboxCycle.Notice], unread: UnreadCount, withdrawn: [Int64]) {
        self.account = account
        self.notices = notices
        self.unread = unread
        self.withdrawn = withdrawn
    }
}

/// The desktop side of the daemon: shows notices, keeps the badge, withdraws notifications.
/// The pollers call it; the desktop notifications issue implements it over D-Bus, `LogPresenter`
/// writes log lines, and tests record what they are given.
public protocol Presenter: Sendable {
    /// Called after a poll that brought new notices, a changed unread count or withdrawals.
    /// The poller persists the account's high-water mark only after this returns.
    func present(_ update: AccountUpdate) async

    /// Shows a notice that came as a payload (relay or `Deliver`); a payload's badge comes as
    /// an `AccountUpdate`. Returns false when it could not be shown (no notification server),
    /// so the account's next poll shows its row instead.
    func present(_ notice: DeliveredNotice) async -> Bool

    /// The inbox ids of `account`'s individual notifications still on screen, so a poll can
    /// tell which were read elsewhere (a delivered notice's once a poll has paired its row).
    func onScreen(for account: Account) async -> Set<Int64>

    /// The server rejected the account's token (401): its polling has stopped until the
    /// account gets a new token. Called once per rejected token, not once per poll.
    func tokenRejected(for account: Account) async

    /// The account left the keyring: withdraw its notifications and drop it from the badge.
    func forget(_ account: Account) async

    /// A reload read the config file again: what a click opens follows it from now on.
    func configChanged(_ config: Config) async
}

extension Presenter {
    /// A presenter that opens nothing has nothing to change.
    public func configChanged(_ config: Config) async {}
}

/// The presenter until the desktop side exists: one log line per notice, and one per change of
/// the unread count, at `notice` and `info` level.
public struct LogPresenter: Presenter {
    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public func present(_ update: AccountUpdate) async {
        let name = update.account.displayName
        for notice in update.notices {
            switch notice {
            case .item(let item):
                logger.notice("\(name): new notice \(item.id): \(item.repo): \(item.actor) \(item.summary)")
            case .summary(let count, let isAtLeast, _, let isFirstSight):
                logger.notice("\(name): summary: \(count)\(isAtLeast ? "+" : "") \(isFirstSight ? "unread" : "new")")
            }
        }
        if !update.withdrawn.isEmpty {
            logger.info("\(name): read elsewhere: \(update.withdrawn.map(String.init).joined(separator: ", "))")
        }
        logger.info("\(name): \(Self.text(update.unread)) unread")
    }

    public func present(_ notice: DeliveredNotice) async -> Bool {
        logger.notice("\(notice.account.displayName): delivered notice: \(notice.notice.destination.path): \(notice.notice.text.controlCharactersAsSpaces)")
        return true
    }

    /// Nothing is ever on screen.
    public func onScreen(for account: Account) async -> Set<Int64> { [] }

    public func tokenRejected(for account: Account) async {
        logger.error("""
            \(account.displayName): the server rejected the API token; polling stopped. Add the \
            account again with a new token: gbnotifyctl account add \(account.instance.url)
            """)
    }

    public func forget(_ account: Account) async {
        logger.info("\(account.displayName): no longer in the keyring; stopped polling it")
    }

    private static func text(_ unread: UnreadCount) -> String {
        switch unread {
        case .exact(let count): "\(count)"
        case .needsDashboard(let floor), .atLeast(let floor): "\(floor)+"
        }
    }
}

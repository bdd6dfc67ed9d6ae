import DBus
import PushCore

/// The presenter of a desktop session: each notice a freedesktop notification, the unread
/// total a launcher badge, clicks opened, "Mark read" sent to the server.
///
/// Notifications belong to the notification server that showed them: when its owner changes
/// (a restart, another server) our ids are forgotten and its capabilities asked again. With no
/// server on the bus, notices wait (bounded) and come out when one appears.
public actor DesktopPresenter: Presenter {
    public struct Options: Sendable {
        /// `open-with`, `terminal` and `terminal-command`, as the config said at start; a
        /// reload replaces it (`configChanged`).
        public var config: Config
        /// The program a URL is handed to when no OpenURI portal takes it.
        public var browser: [String]
        /// The daemon's environment, inherited by what a click opens.
        public var environment: [String: String]

        public init(config: Config, environment: [String: String], browser: [String] = ClickLaunch.defaultBrowser) {
            self.config = config
            self.environment = environment
            self.browser = browser
        }
    }

    /// Marks inbox rows of an account read on its server (`notifications read ID...`).
    public typealias MarkRead = @Sendable (Account, [Int64]) async throws -> Void

    /// What one of our notifications shows, so a click knows what to do.
    private enum Subject: Sendable {
        /// The notices of one repository (see `NoticeGroup`).
        case group(NoticeGroup)
        case summary(count: Int, isAtLeast: Bool, isUnread: Bool)
        case tokenRejected
        /// A notice that came as a payload, shown on its own (Delivery.swift).
        case delivered(DeliveredNotice)
    }

    private struct Shown: Sendable {
        let account: Account
        let subject: Subject
    }

    private let server: NotificationServer
    private let badge: LauncherBadge
    private let portal: OpenURIPortal
    private let launcher: Launcher
    private var options: Options
    private let markRead: MarkRead
    private let logger: Logger

    /// The notification server's unique name; nil while there is none.
    private var serverOwner: String?
    /// Asked once per server owner.
    private var capabilities: NotificationCapabilities?
    /// Our notifications on the current server, by its ids.
    private var shown: [UInt32: Shown] = [:]
    /// Activation tokens that came before the click they belong to.
    private var activationTokens: [UInt32: String] = [:]
    private var waiting = WaitingNotices()
    private var tally = UnreadTally()
    /// Accounts that had their first update in this process.
    private var started: Set<Account> = []
    private var listeners: [Task<Void, Never>] = []

    private init(connection: DBusConnection, options: Options, markRead: @escaping MarkRead, logger: Logger) {
        server = NotificationServer(connection: connection)
        badge = LauncherBadge(connection: connection)
        portal = OpenURIPortal(connection: connection)
        launcher = Launcher(logger: logger, environment: options.environment)
        self.options = options
        self.markRead = markRead
        self.logger = logger
    }

    /// A presenter listening to the notification server and the dock on `connection`.
    public static func start(
        on connection: DBusConnection, options: Options, markRead: @escaping MarkRead, logger: Logger
    ) async throws -> DesktopPresenter {
        let presenter = DesktopPresenter(connection: connection, options: options, markRead: markRead, logger: logger)
        let signals = try await presenter.server.signals()
        let serverOwners = try await connection.watchNameOwner(NotificationServer.busName)
        let dockOwners = try await connection.watchNameOwner(LauncherBadge.dockName)
        await presenter.listen(signals: signals, serverOwners: serverOwners, dockOwners: dockOwners)
        // The first owner is known before anything is shown, so nothing waits needlessly.
        await presenter.serverOwnerChanged(try await connection.nameOwner(NotificationServer.busName))
        return presenter
    }

    /// The clean stop: our notifications are withdrawn and listening ends.
    public func stop() async {
        listeners.forEach { $0.cancel() }
        listeners = []
        for id in shown.keys.sorted() {
            await close(id)
        }
        shown = [:]
    }

    // MARK: - Presenter

    public func present(_ update: AccountUpdate) async {
        let account = update.account
        waiting.remove(update.withdrawn, for: account)
        await withdraw(update.withdrawn, of: account)
        // After the withdrawals: whoever watches the badge fall sees those notifications gone.
        setUnread(update.unread.badgeCount, for: account)
        var notices = update.notices
        // After a start nothing old is replayed: at most one summary of what is still unread.
        if started.insert(account).inserted, notices.isEmpty, update.unread.badgeCount > 0 {
            let isExact = if case .exact = update.unread { true } else { false }
            notices = [.summary(count: update.unread.badgeCount, isAtLeast: !isExact, newestID: nil, isFirstSight: true)]
        }
        var rows: [InboxItem] = []
        for notice in notices {
            switch notice {
            case .item(let item):
                rows.append(item)
            case .summary(let count, let isAtLeast, _, let isFirstSight):
                await show(.summary(count: count, isAtLeast: isAtLeast, isUnread: isFirstSight), for: account)
            }
        }
        await showGrouped(rows, for: account)
    }

    public func onScreen(for account: Account) async -> Set<Int64> {
        var ids = Set<Int64>()
        for entry in shown.values where entry.account == account {
            if case .group(let group) = entry.subject { ids.formUnion(group.inboxIDs) }
            if case .delivered(let notice) = entry.subject, let row = notice.row { ids.insert(row.id) }
        }
        return ids
    }

    public func tokenRejected(for account: Account) async {
        logger.error("""
            \(account.displayName): the server rejected the API token; polling stopped. Add the \
            account again with a new token: gbnotifyctl account add \(account.instance.url)
            """)
        await show(.tokenRejected, for: account)
    }

    public func configChanged(_ config: Config) async {
        options.config = config
    }

    public func forget(_ account: Account) async {
        waiting.forget(account)
        started.remove(account)
        if tally.remove(account) { sendBadge() }
        for (id, entry) in shown where entry.account == account {
            shown[id] = nil
            await close(id)
        }
    }

    // MARK: - Showing

    /// Each repository's rows join its notification on screen, replacing it in place, or
    /// start one of their own.
    private func showGrouped(_ rows: [InboxItem], for account: Account) async {
        for group in NoticeGroup.grouping(rows, of: account) {
            if let (id, onScreen) = shownGroup(group.key) {
                await show(.group(onScreen.adding(group.items)), for: account, replacing: id)
            } else {
                await show(.group(group), for: account)
            }
        }
    }

    private func shownGroup(_ key: NoticeGroup.Key) -> (id: UInt32, group: NoticeGroup)? {
        for (id, entry) in shown {
            if case .group(let group) = entry.subject, group.key == key { return (id, group) }
        }
        return nil
    }

    public func present(_ notice: DeliveredNotice) async -> Bool {
        await show(.delivered(notice), for: notice.account)
    }

    /// - Parameter replacing: our notification on screen that this one takes the place of.
    /// - Returns: whether it is on screen.
    @discardableResult
    private func show(_ subject: Subject, for account: Account, replacing: UInt32? = nil) async -> Bool {
        guard serverOwner != nil else {
            wait(subject, for: account)
            return false
        }
        let capabilities = await currentCapabilities()
        let content = switch subject {
        case .group(let group): NotificationContent.group(group, capabilities: capabilities)
        case .summary(let count, let isAtLeast, let isUnread):
            NotificationContent.summary(
                count: count, isAtLeast: isAtLeast, isUnread: isUnread, account: account, capabilities: capabilities)
        case .tokenRejected: NotificationContent.tokenRejected(account: account, capabilities: capabilities)
        case .delivered(let notice): NotificationContent.pushed(notice.notice, capabilities: capabilities)
        }
        // A server may refuse one notification (KDE refuses a repeat within a second): once
        // more after a second, then it is logged and dropped.
        for attempt in 1...2 {
            do {
                let id = try await server.notify(content, replacing: replacing ?? 0)
                if let replacing {
                    shown[replacing] = nil
                    activationTokens[replacing] = nil
                }
                shown[id] = Shown(account: account, subject: subject)
                logger.info("""
                    \(account.displayName): showing \(Self.describe(subject)) as notification \(id)\
                    \(replacing.map { " in place of \($0)" } ?? "")
                    """)
                return true
            } catch let error as DBusError where Self.meansNoServer(error) {
                logger.debug("Notify found no notification server: \(error)")
                wait(subject, for: account)
                return false
            } catch {
                guard attempt == 1 else {
                    logger.error("\(account.displayName): the notification server refused \(Self.describe(subject)) again: \(error); not shown")
                    return false
                }
                logger.warning("\(account.displayName): the notification server refused \(Self.describe(subject)): \(error); trying once more")
                try? await Task.sleep(for: .seconds(1))
            }
        }
        return false
    }

    /// Notices wait for a server; a token warning is in the log already, and a delivered
    /// notice's row comes with the poll its delivery starts.
    private func wait(_ subject: Subject, for account: Account) {
        logger.info("\(account.displayName): no notification server on the bus; \(Self.describe(subject)) waits for one")
        switch subject {
        case .group(let group):
            waiting.add(group.items.map(InboxCycle.Notice.item), for: account)
        case .summary(let count, let isAtLeast, let isUnread):
            waiting.add([.summary(count: count, isAtLeast: isAtLeast, newestID: nil, isFirstSight: isUnread)], for: account)
        case .tokenRejected, .delivered:
            break
        }
    }

    private func currentCapabilities() async -> NotificationCapabilities {
        if let capabilities { return capabilities }
        do {
            let asked = try await server.capabilities()
            logger.debug("the notification server \(serverOwner ?? "") does \(asked.bodyMarkup ? "" : "not ")read markup and \(asked.actions ? "shows" : "does not show") actions")
            capabilities = asked
            return asked
        } catch {
            logger.warning("the notification server did not tell its capabilities (\(error)); sending plain text without actions")
            return .plain
        }
    }

    /// Rows that are read: their groups shrink in place, and a group left empty is withdrawn.
    private func withdraw(_ inboxIDs: [Int64], of account: Account) async {
        guard !inboxIDs.isEmpty else { return }
        let gone = Set(inboxIDs)
        for (id, entry) in shown where entry.account == account {
            if case .delivered(let notice) = entry.subject, let row = notice.row, gone.contains(row.id) {
                logger.info("\(account.displayName): notice \(row.id) was read; withdrawing notification \(id)")
                shown[id] = nil
                await close(id)
                continue
            }
            guard case .group(let group) = entry.subject, !gone.isDisjoint(with: group.inboxIDs) else { continue }
            let read = group.inboxIDs.filter(gone.contains).map(String.init).joined(separator: ", ")
            if let left = group.removing(gone) {
                logger.info("\(account.displayName): notice \(read) was read; notification \(id) shrinks")
                await show(.group(left), for: account, replacing: id)
            } else {
                logger.info("\(account.displayName): notice \(read) was read; withdrawing notification \(id)")
                shown[id] = nil
                await close(id)
            }
        }
    }

    private func close(_ id: UInt32) async {
        do {
            try await server.close(id)
        } catch {
            // Already closed by the user or the server; nothing to withdraw.
            logger.debug("notification \(id) was not withdrawn: \(error)")
        }
    }

    private static func meansNoServer(_ error: DBusError) -> Bool {
        [DBusError.Name.serviceUnknown, DBusError.Name.nameHasNoOwner, "org.freedesktop.DBus.Error.NoServer"]
            .contains(error.name)
    }

    private static func describe(_ subject: Subject) -> String {
        switch subject {
        case .group(let group) where group.items.count == 1: "notice \(group.newest.id)"
        case .group(let group): "notice \(group.newest.id) in a group of \(group.items.count) of \(group.key.repo)"
        case .summary(let count, _, _): "a summary of \(count)"
        case .tokenRejected: "the rejected-token warning"
        case .delivered(let notice): "the delivered notice of \(notice.notice.destination.path)"
        }
    }

    // MARK: - Badge

    private func setUnread(_ count: Int, for account: Account) {
        if tally.set(count, for: account) { sendBadge() }
    }

    private func sendBadge() {
        do {
            try badge.show(tally.total)
        } catch {
            logger.warning("cannot update the launcher badge: \(error)")
        }
    }

    // MARK: - The bus

    private func listen(
        signals: AsyncStream<DBusSignal>, serverOwners: AsyncStream<String?>, dockOwners: AsyncStream<String?>
    ) {
        listeners = [
            Task {
                for await signal in signals {
                    if let event = NotificationServer.event(signal) { await self.handle(event, from: signal.sender) }
                }
            },
            Task {
                for await owner in serverOwners { await self.serverOwnerChanged(owner) }
            },
            Task {
                for await owner in dockOwners where owner != nil { self.dockAppeared() }
            },
        ]
    }

    private func serverOwnerChanged(_ owner: String?) async {
        guard owner != serverOwner else { return }
        serverOwner = owner
        capabilities = nil
        // The ids were the old server's; they mean nothing to a new one.
        shown = [:]
        activationTokens = [:]
        guard owner != nil, !waiting.isEmpty else { return }
        logger.info("a notification server appeared; showing the notices that waited for one")
        for (account, release) in waiting.release() {
            switch release {
            case .items(let items):
                await showGrouped(items, for: account)
            case .summary(let count, let isAtLeast, let isUnread):
                await show(.summary(count: count, isAtLeast: isAtLeast, isUnread: isUnread), for: account)
            }
        }
    }

    private func dockAppeared() {
        if tally.total > 0 { sendBadge() }
    }

    /// Only the server that showed our notifications speaks for them: anyone on the bus can
    /// send a signal that looks like its.
    private func handle(_ event: NotificationServer.Event, from sender: String) async {
        guard sender == serverOwner else { return }
        switch event {
        case .activationToken(let id, let token):
            guard shown[id] != nil else { return }
            activationTokens[id] = token
        case .closed(let id):
            shown[id] = nil
            activationTokens[id] = nil
        case .actionInvoked(let id, let key):
            guard let entry = shown[id] else { return }
            let token = activationTokens.removeValue(forKey: id)
            switch key {
            case NotificationContent.openAction:
                // Off the signal loop too: the portal may take a while to answer.
                Task { await self.open(entry, activationToken: token) }
            case NotificationContent.markReadAction:
                // Off the signal loop: the request may take a while.
                switch entry.subject {
                case .group(let group): Task { await self.markRead(group) }
                case .delivered(let notice): Task { await self.markRead(notice, notification: id) }
                case .summary, .tokenRejected: return
                }
            default:
                logger.debug("notification \(id): ignored unknown action")
            }
        }
    }

    // MARK: - Clicks

    private func open(_ entry: Shown, activationToken: String?) async {
        let target = switch entry.subject {
        case .group(let group): group.target
        case .summary: PushTarget(account: entry.account, destination: nil)
        case .tokenRejected: nil as PushTarget?
        case .delivered(let notice): notice.notice.target
        }
        guard let target else { return }
        await open(target, activationToken: activationToken)
    }

    /// Opens what a click on a notice of `target` opens: a URL through the OpenURI portal where
    /// there is one, else (and for a terminal) by launching a program. Returns what it did, for
    /// `gbnotifyctl open`.
    @discardableResult
    public func open(_ target: PushTarget, activationToken: String?) async -> String {
        let environment = options.environment
        let launch = ClickLaunch.forClick(
            target, config: options.config, activationToken: activationToken, browser: options.browser,
            programDirectory: Launcher.programDirectory, isInstalled: { Launcher.isInstalled($0, environment: environment) })
        if let url = launch.url {
            do {
                try await portal.open(url, activationToken: launch.environment["XDG_ACTIVATION_TOKEN"])
                logger.info("opened \(url) through the OpenURI portal")
                return "\(OpenURIPortal.interface).OpenURI \(url)"
            } catch let error as DBusError where OpenURIPortal.isAbsent(error) {
                logger.debug("no OpenURI portal on the session bus; opening with \(launch.argv[0])")
            } catch {
                logger.warning("the OpenURI portal did not open \(url) (\(error)); opening with \(launch.argv[0]) instead")
            }
        }
        launcher.launch(launch)
        return launch.argv.joined(separator: " ")
    }

    /// Shows `gbnotifyctl test`'s sample notification. Throws when there is no server, or it
    /// refused.
    public func showSample() async throws {
        guard serverOwner != nil else {
            throw DBusError(
                name: DesktopInterface.noServerError,
                message: "no notification server is on the session bus (\(NotificationServer.busName) has no owner)")
        }
        let id = try await server.notify(NotificationContent.sample(capabilities: await currentCapabilities()))
        logger.info("showing the sample notification as notification \(id)")
    }

    /// "Mark read" marks every row of the group; whatever joined it meanwhile stays on screen.
    private func markRead(_ group: NoticeGroup) async {
        let account = group.key.account
        let ids = group.inboxIDs
        let named = ids.map(String.init).joined(separator: ", ")
        do {
            try await markRead(account, ids)
        } catch {
            logger.warning("\(account.displayName): could not mark notice \(named) read: \(error)")
            return
        }
        logger.info("\(account.displayName): marked notice \(named) read")
        await withdraw(ids, of: account)
        if tally.lower(by: ids.count, for: account) { sendBadge() }
    }

    /// A delivered notice has no inbox id of its own: its row is the one a poll paired with it,
    /// or else the one found in the unread list now.
    private func markRead(_ notice: DeliveredNotice, notification id: UInt32) async {
        let account = notice.account
        guard let row = await notice.findRow() else {
            logger.warning("\(account.displayName): could not mark \(Self.describe(.delivered(notice))) read: no unread row of it on the server")
            return
        }
        do {
            try await markRead(account, [row.id])
        } catch {
            logger.warning("\(account.displayName): could not mark notice \(row.id) read: \(error)")
            return
        }
        logger.info("\(account.displayName): marked notice \(row.id) read")
        if shown.removeValue(forKey: id) != nil { await close(id) }
        if tally.lower(by: 1, for: account) { sendBadge() }
    }
}

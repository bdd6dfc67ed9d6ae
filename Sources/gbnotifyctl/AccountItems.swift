import GitbayClient
import Glibc
import Keyring
import PushCore
import Spawn
import TerminalView
import Threads

/// What `show` and `inbox` read and do: the keyring's accounts (its public listing, read once),
/// each account's items and inbox from its own instance with its own token, marking read
/// there, and opening the browser the way a click does.
actor AccountItems: ViewSource {
    private let keyring = Keyring()
    private let settings: ViewSettings
    private var stored: [StoredAccount]?

    init(settings: ViewSettings) {
        self.settings = settings
    }

    /// How many unread rows the inbox reads of each account: one page of the largest size.
    static let inboxRows = GitbayCommand.listLimitRange.upperBound
    /// How many unread pages `r` looks through for the item's rows.
    static let markReadPages = 10

    func accounts() async throws(ReadProblem) -> [Account] {
        try await storedAccounts().map(\.account).sorted { $0.reference < $1.reference }
    }

    func account(_ reference: String) async throws(ReadProblem) -> Account {
        let accounts = try await storedAccounts().map(\.account)
        do {
            return try AccountReference(parsing: reference).resolve(among: accounts)
        } catch {
            throw ReadProblem(.noAccount, "No such account", "\(error)", fix: "gbnotifyctl account list shows the accounts")
        }
    }

    func item(_ destination: NotificationDestination, of account: Account) async throws(ReadProblem) -> ItemDetails {
        let result = try await send(.show(destination), as: account)
        do {
            return try ItemDetails.decode(result, as: destination.kind)
        } catch {
            throw Self.problem(error, account)
        }
    }

    /// The item's data as the API gave it, for `show --json`.
    func itemJSON(_ destination: NotificationDestination, of account: Account) async throws(ReadProblem) -> [UInt8] {
        let result = try await send(.show(destination), as: account)
        do {
            return try result.dataJSON()
        } catch {
            throw Self.problem(error, account)
        }
    }

    func inbox(of account: Account) async throws(ReadProblem) -> InboxListing {
        let page = try await inboxPage(of: account, cursor: nil)
        return InboxListing(rows: page.items, hasMore: page.next != nil)
    }

    /// The inbox's data as the API gave it, for `inbox --json`.
    func inboxJSON(of account: Account) async throws(ReadProblem) -> [UInt8] {
        let result = try await send(.notificationsList(limit: Self.inboxRows, cursor: nil), as: account)
        do {
            return try result.dataJSON()
        } catch {
            throw Self.problem(error, account)
        }
    }

    func markRead(_ path: String, of account: Account) async throws(ReadProblem) -> Int {
        var ids: [Int64] = []
        var cursor: String?
        for _ in 0..<Self.markReadPages {
            let page = try await inboxPage(of: account, cursor: cursor)
            ids += page.items.filter { $0.path == path }.map(\.id)
            guard let next = page.next else { break }
            cursor = next
        }
        guard !ids.isEmpty else { return 0 }
        let result = try await send(.notificationsRead(ids: ids), as: account)
        do {
            return try result.decode(ReadResult.self).read
        } catch {
            throw Self.problem(error, account)
        }
    }

    /// Launches the browser with the URL built from the account's instance, as a click does,
    /// and waits for the launcher (`xdg-open`) to report.
    func open(_ target: PushTarget) async throws(ReadProblem) -> String {
        let launch = ClickLaunch.inBrowser(target, activationToken: nil)
        var environment = settings.environment
        // Whatever token started this terminal was spent on it.
        environment["XDG_ACTIVATION_TOKEN"] = nil
        environment["DESKTOP_STARTUP_ID"] = nil
        let program = launch.argv[0]
        let pid: pid_t
        do {
            // Its output would land in the middle of the view.
            pid = try Spawn.start(launch.argv, environment: environment, stdin: .devNull, stdout: .devNull, stderr: .devNull)
        } catch {
            throw Self.browserProblem(program, "cannot start it: \(error)")
        }
        let status = await Self.exitStatus(of: pid)
        guard status == 0 else { throw Self.browserProblem(program, "it exited with status \(status)") }
        return launch.url ?? ""
    }

    // MARK: - Requests

    private func storedAccounts() async throws(ReadProblem) -> [StoredAccount] {
        if let stored { return stored }
        do {
            let listing = try await keyring.list()
            stored = listing.accounts
            return listing.accounts
        } catch {
            throw ReadProblem(
                .noAccount, "Keyring unavailable", "cannot read the accounts: \(error)",
                fix: "unlock the keyring (gbnotifyctl doctor says more) and reload")
        }
    }

    private func inboxPage(of account: Account, cursor: String?) async throws(ReadProblem) -> InboxPage {
        let result = try await send(.notificationsList(limit: Self.inboxRows, cursor: cursor), as: account)
        do {
            return try result.decode(InboxPage.self)
        } catch {
            throw Self.problem(error, account)
        }
    }

    /// One request with the account's own token to its own instance, where the config lets a
    /// token go (plain http to another machine only with `allow-http`).
    func send(_ command: GitbayCommand, as account: Account) async throws(ReadProblem) -> APIResult {
        guard let token = try await storedAccounts().first(where: { $0.account == account })?.token else {
            throw ReadProblem(.noAccount, "No such account", "\(account.displayName) is no longer in the keyring")
        }
        guard settings.config.allowsToken(to: account.instance) else {
            throw ReadProblem.plainHTTPRefused(account, configPath: settings.configPath)
        }
        let client = GitbayClient(instance: account.instance, token: token, options: settings.clientOptions)
        do {
            return try await client.send(command)
        } catch {
            throw ReadProblem.unreachable(account, reason: "\(error)")
        }
    }

    static func problem(_ error: APIDecodingError, _ account: Account) -> ReadProblem {
        if case .notSuccess(let result) = error { return ReadProblem(result, account: account) }
        return .unexpected(account, error)
    }

    private static func browserProblem(_ program: String, _ what: String) -> ReadProblem {
        ReadProblem(
            .failed, "Cannot open the browser", "\(program): \(what)",
            fix: program == "xdg-open" ? "install xdg-utils (apt install xdg-utils) and set a default browser" : nil)
    }

    /// Waits for `pid` on a thread of its own: a browser launcher may take its time, and the
    /// threads that run Swift tasks may not block on it.
    private static func exitStatus(of pid: pid_t) async -> Int32 {
        await withCheckedContinuation { continuation in
            let started = startDetachedThread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                continuation.resume(returning: status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F))
            }
            // Launched all the same; it stays a zombie until gbnotifyctl exits.
            if !started { continuation.resume(returning: 0) }
        }
    }
}

/// What the view reads from the config file (`Setup.settings`), and the environment the browser
/// inherits.
struct ViewSettings: Sendable {
    let config: Config
    /// The file, as the fix for a refused plain-http account names it.
    let configPath: String
    let clientOptions: GitbayClient.Options
    /// The process's environment, which the browser inherits.
    let environment: [String: String]

    init(_ settings: ConfigSettings, environment: [String: String]) {
        self.environment = environment
        config = settings.config
        configPath = settings.pathWords
        // A dead instance costs seconds, not the minute a poller may wait.
        clientOptions = GitbayClient.Options(
            caFile: config.caFile, connectTimeout: .seconds(10), stallTimeout: .seconds(15), overallTimeout: .seconds(30))
    }
}

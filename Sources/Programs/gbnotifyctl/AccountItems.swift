import DBus
import GitbayClient
import Glibc
import Keyring
import Opener
import PushCore
import StateStore
import TerminalView
import MainLoop

/// What `show` and `inbox` read and do: the keyring's accounts (their names, read once, without
/// a token), each account's items and inbox from its own instance with its own token, marking
/// read there, and opening the browser the way a click does. A token is read from the keyring
/// when its account first sends a request, and only its own: `show` holds one token, never
/// every account's.
actor AccountItems: ViewSource {
    private let keyring = Keyring()
    private let settings: ViewSettings
    private var stored: [Account]?
    private var tokens: [Account: APIToken] = [:]

    init(settings: ViewSettings) {
        self.settings = settings
    }

    /// How many unread rows the inbox reads of each account: one page of the largest size.
    static let inboxRows = GitbayCommand.listLimitRange.upperBound
    /// How many unread pages `r` looks through for the item's rows.
    static let markReadPages = 10

    func accounts() async throws(ReadProblem) -> [Account] {
        try await storedAccounts().sorted { $0.reference < $1.reference }
    }

    func account(_ reference: String) async throws(ReadProblem) -> Account {
        let accounts = try await storedAccounts()
        do {
            return try AccountReference(parsing: reference).resolve(among: accounts)
        } catch {
            throw ReadProblem(
                .noAccount, Localized.text("No such account", note: "The headline of a problem: no account by that name."), "\(error)",
                fix: Localized.text("gbnotifyctl account list shows the accounts", note: "gbnotifyctl doctor: what to do. The command stays as it is."))
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
        // Drafts that cannot be read mark no row here; the item's own screen says why.
        let drafted = (try? Setup.stateDirectory().loadDrafts().record.paths(of: account)) ?? []
        return InboxListing(rows: page.items, hasMore: page.next != nil, drafted: drafted)
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

    /// Opens the item as a click does (`Opener`: the OpenURI portal where the system's runs,
    /// else the browser's launcher, whose report is waited for).
    func open(_ target: PushTarget) async throws(ReadProblem) -> String {
        let launch = ClickLaunch.inBrowser(target, activationToken: nil)
        var environment = settings.environment
        // Whatever token started this terminal was spent on it.
        environment["XDG_ACTIVATION_TOKEN"] = nil
        environment["DESKTOP_STARTUP_ID"] = nil
        let bus = try? await DBusConnection.connect()
        let outcome = await Opener(connection: bus, environment: environment, output: .devNull).open(launch)
        await bus?.close()
        switch outcome {
        case .portal(let url):
            return url
        case .started(let argv, let pid, _):
            // Reaped by the main loop's child watch: a browser launcher may take its time.
            let exit = await ChildWatch.exit(of: pid)
            guard exit == .exited(0) else { throw Self.browserProblem(argv[0], "it \(exit)") }
            return launch.url ?? ""
        case .failed(let program, let reason, _, _):
            throw Self.browserProblem(program, "cannot start it: \(reason)")
        }
    }

    // MARK: - Replies

    func draft(on destination: NotificationDestination, of account: Account) async throws(ReadProblem) -> DraftRecord.Draft? {
        do {
            return try Setup.stateDirectory().loadDrafts().record.draft(of: account, for: destination.path)
        } catch {
            throw ReadProblem(.failed, "Cannot read the kept drafts", "\(error)")
        }
    }

    /// The editor, as `gbnotifyctl reply` runs it.
    func compose(_ template: String) async -> ComposedReply {
        await ReplyEditor(environment: settings.environment).compose(template)
    }

    func reply(
        _ comment: CommentText, file: String, offered: Bool, on destination: NotificationDestination, of account: Account
    ) async -> ReplyOutcome {
        let state: StateDirectory
        let kept: DraftRecord.Draft?
        let client: GitbayClient
        do {
            state = try Setup.stateDirectory()
            kept = try state.loadDrafts().record.draft(of: account, for: destination.path)
            client = try await self.client(for: account)
        } catch {
            return ReplyOutcome(
                isPosted: false, lines: [ReplySending.notPosted(to: destination.shortName, "\(error)"), ReplySending.textIsStill(in: file)])
        }
        return await ReplySending(account: account, destination: destination, state: state)
            .send(comment, with: client, kept: kept, offered: offered, editorFile: file)
    }

    // MARK: - Requests

    private func storedAccounts() async throws(ReadProblem) -> [Account] {
        if let stored { return stored }
        do {
            let accounts = try await keyring.accounts()
            stored = accounts
            return accounts
        } catch {
            throw Self.keyringProblem(error)
        }
    }

    /// The account's token, read from the keyring the first time and kept.
    private func token(for account: Account) async throws(ReadProblem) -> APIToken {
        if let token = tokens[account] { return token }
        let token: APIToken?
        do {
            token = try await keyring.token(for: account)
        } catch {
            throw Self.keyringProblem(error)
        }
        guard let token else {
            throw ReadProblem(
                .noAccount, Localized.text("No such account", note: "The headline of a problem: no account by that name."),
                Localized.text(
                    "{account} has no usable token in the keyring", note: "A problem's detail. {account}: user@host.", ["account": account.displayName]),
                fix: Localized.text(
                    "{command} stores a new one", note: "What to do about a problem. {command}: the command (stays English).",
                    ["command": "gbnotifyctl account add \(account.instance.url)"]))
        }
        tokens[account] = token
        return token
    }

    private static func keyringProblem(_ error: KeyringError) -> ReadProblem {
        ReadProblem(
            .noAccount, Localized.text("Keyring unavailable", note: "The headline of a problem: the keyring cannot be read."),
            Localized.text("cannot read the accounts: {reason}", note: "A problem's detail. {reason}: the keyring's error, in English.", ["reason": "\(error)"]),
            fix: Localized.text("unlock the keyring (gbnotifyctl doctor says more) and reload", note: "What to do about a problem."))
    }

    private func inboxPage(of account: Account, cursor: String?) async throws(ReadProblem) -> InboxPage {
        let result = try await send(.notificationsList(limit: Self.inboxRows, cursor: cursor), as: account)
        do {
            return try result.decode(InboxPage.self)
        } catch {
            throw Self.problem(error, account)
        }
    }

    /// One request with the account's own token to its own instance (`client(for:)`).
    func send(_ command: GitbayCommand, as account: Account) async throws(ReadProblem) -> APIResult {
        let client = try await client(for: account)
        do {
            return try await client.send(command)
        } catch {
            throw ReadProblem.unreachable(account, reason: "\(error)")
        }
    }

    /// A client with the account's own token for its own instance, where the config lets a token
    /// go (plain http to another machine only with `allow-http`).
    func client(for account: Account) async throws(ReadProblem) -> GitbayClient {
        guard settings.config.allowsToken(to: account.instance) else {
            throw ReadProblem.plainHTTPRefused(account, configPath: settings.configPath)
        }
        return GitbayClient(instance: account.instance, token: try await token(for: account), options: settings.clientOptions)
    }

    static func problem(_ error: APIDecodingError, _ account: Account) -> ReadProblem {
        if case .notSuccess(let result) = error { return ReadProblem(result, account: account) }
        return .unexpected(account, error)
    }

    private static func browserProblem(_ program: String, _ what: String) -> ReadProblem {
        ReadProblem(
            .failed, Localized.text("Cannot open the browser", note: "The headline of a problem."), "\(program): \(what)",
            fix: Opener.advice(for: program))
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

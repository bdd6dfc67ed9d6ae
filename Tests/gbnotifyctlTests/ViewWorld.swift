import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport

/// What the view tests share: one tmux server, one stand-in whose user `cmc` is an account in
/// the session's keyring, an `xdg-open` stub that records what the browser would open, and
/// accounts that cannot be read (a revoked token, an instance that is down). The keyring holds
/// other suites' accounts too, so the view is always given its account.
final class ViewWorld: Sendable {
    let tmux: Tmux
    let standin: Standin
    /// `cmc@127.0.0.1:PORT`, the main account.
    let account: String
    /// The `xdg-open` on the view's `PATH`.
    let browser: OpenerStub
    let directory: URL
    /// An account whose token the stand-in revoked.
    let revokedAccount: String
    /// An account whose instance does not listen: a port held bound, so that no stand-in of
    /// another suite takes it (one did, and its end cleared every account of its instance from
    /// the keyring, this one too).
    let downAccount: String
    let downURL: String
    let downPort: Int
    private let heldPort: BoundButNotListeningPort
    /// Keyring items to delete at the end: (instance, user).
    private let stored: Mutex<[(String, String)]>

    static func start() async throws -> ViewWorld {
        try #require(PrivateSession.isInsideDesktopSession,
                     "run the view tests inside scripts/desktop-session, which gives them a keyring of their own")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gbnotify-view-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("bin"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("config"), withIntermediateDirectories: true)
        let browser = try OpenerStub(at: directory.appendingPathComponent("bin/xdg-open").path)
        let tmux = try await Tmux.start()
        let standin = try await Standin.start()
        let token = try await standin.addUserWithToken("cmc")
        try await SecretTool.store(instance: standin.url, user: "cmc", token: token)
        let revoked = try await standin.addUserWithToken("rex")
        try await SecretTool.store(instance: standin.url, user: "rex", token: revoked)
        try await standin.revokeToken(revoked)
        // Never reached: any token of the right form will do.
        let down = try BoundButNotListeningPort()
        let downURL = "http://127.0.0.1:\(down.number)"
        try await SecretTool.store(instance: downURL, user: "cmc", token: token)
        let host = String(standin.url.dropFirst("http://".count))
        return ViewWorld(
            tmux: tmux, standin: standin, account: "cmc@\(host)", browser: browser, directory: directory,
            revokedAccount: "rex@\(host)", heldPort: down, downURL: downURL,
            stored: [(standin.url, "cmc"), (standin.url, "rex"), (downURL, "cmc")])
    }

    private init(
        tmux: Tmux, standin: Standin, account: String, browser: OpenerStub, directory: URL, revokedAccount: String,
        heldPort: BoundButNotListeningPort, downURL: String, stored: [(String, String)]
    ) {
        self.tmux = tmux
        self.standin = standin
        self.account = account
        self.browser = browser
        self.directory = directory
        self.revokedAccount = revokedAccount
        self.heldPort = heldPort
        downAccount = "cmc@127.0.0.1:\(heldPort.number)"
        self.downURL = downURL
        downPort = heldPort.number
        self.stored = Mutex(stored)
    }

    func stop() async {
        await tmux.stop()
        await standin.stop()
        browser.close()
        for (instance, user) in stored.withLock({ $0 }) { try? await SecretTool.clear(instance: instance, user: user) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The view's environment: the stub browser first on `PATH`, a config directory of its own
    /// (no file: every default), colours unless `noColor` is set.
    func environment(noColor: String = "") -> [String: String] {
        [
            "PATH": "\(directory.path)/bin:\(ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")",
            "XDG_CONFIG_HOME": directory.appendingPathComponent("config").path,
            "NO_COLOR": noColor,
        ]
    }

    /// The view's environment over this process's, for running it without a terminal.
    func processEnvironment() -> [String: String] {
        ProcessInfo.processInfo.environment.merging(environment()) { $1 }
    }

    /// `gbnotifyctl show ACCOUNT PATH` in a terminal of its own.
    func show(_ path: String, account: String? = nil, columns: Int = 100, rows: Int = 30) async throws -> Pane {
        try await tmux.run([Ctl.executable, "show", account ?? self.account, path], environment: environment(), columns: columns, rows: rows)
    }

    /// A user of the stand-in with an empty inbox, as an account in the keyring (until the
    /// suite ends).
    func freshAccount() async throws -> FreshAccount {
        let user = "u\(UUID().uuidString.prefix(8).lowercased())"
        try await SecretTool.store(instance: standin.url, user: user, token: try await standin.addUserWithToken(user))
        stored.withLock { $0.append((standin.url, user)) }
        return FreshAccount(standin: standin, user: user, name: "\(user)@\(standin.url.dropFirst("http://".count))")
    }

    struct FreshAccount: Sendable {
        let standin: Standin
        let user: String
        /// `USER@HOST:PORT`.
        let name: String
    }

    /// The process id of the view in `pane`: the child of the shell around it.
    func viewPID(_ pane: Pane) async throws -> pid_t {
        let shell = try await pane.shellPID()
        let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
        return try #require(children.split(separator: " ").first.flatMap { pid_t($0) }, "no view under the shell \(shell)")
    }

    // MARK: - Items, as gitbay-api.md gives them

    static func issue(number: Int, comments: Int = 0) -> String {
        let extra = (1...max(comments, 1)).prefix(comments).map { index in
            #"{"author":"bob","body":"comment \#(index) of \#(comments)","body_format":"md","created_at":"2026-09-20T10:00:00.000Z","id":\#(1000 + index)}"#
        }
        return """
            {"assignees":["alba"],"author":"cmc","body":"Running `issue list` in a repository with no commits panics.\\n\\nSeen on v1.32.4.",\
            "body_format":"md","comments":[{"author":"alba","body":"Reproduced on main.","body_format":"md",\
            "created_at":"2026-09-19T10:00:00.000Z","id":17,"reactions":[{"count":1,"me":false,"reaction":"heart"}]},\
            {"author":"system","body":"alba added the label bug","created_at":"2026-09-19T11:00:00.000Z","id":18}\
            \(extra.isEmpty ? "" : "," + extra.joined(separator: ","))],\
            "created_at":"2026-09-18T12:00:00.000Z","labels":["bug"],"milestone":"v1.33","number":\(number),\
            "reactions":[{"count":3,"me":true,"reaction":"+1"}],"state":"open","title":"Crash on an empty repository"}
            """
    }

    static let mergeRequest = """
        {"author":"alba","body":"Fixes #12.","body_format":"md",\
        "checks":[{"context":"ci/test","duration":"1m12s","state":"success","updated_at":"2026-09-20T10:00:00.000Z","url":""},\
        {"context":"ci/lint","duration":"21s","state":"failure","updated_at":"2026-09-20T10:00:00.000Z","url":""}],\
        "checks_combined":"failure","commits":[{"sha":"4f1c2a9e8b7d6c5b","subject":"Share the branch lookup"}],\
        "created_at":"2026-09-20T07:00:00.000Z","draft":true,\
        "gates":{"approvals":[],"approvals_required":1,"changes_requested":["noor"],"checks":"failure","checks_missing":[],\
        "checks_required":true,"codeowners_required":false,"draft":true,"fast_forward":true,"open_threads":0,\
        "owners_outstanding":[],"resolved_required":false,"unmet":["1 approval needed","changes requested by noor"]},\
        "head_sha":"4f1c2a9e8b7d6c5b","number":31,"review_requests":["krz"],\
        "reviews":[{"counts":false,"created_at":"2026-09-20T08:00:00.000Z","reviewer":"cmc","stale":true,"verdict":"approve"},\
        {"counts":true,"created_at":"2026-09-20T09:00:00.000Z","reviewer":"noor","stale":false,"verdict":"request_changes"}],\
        "source":"fix-empty-repo","state":"open","target_ref":"main","title":"Look up the default branch once per request",\
        "unresolved_threads":1}
        """

    static let build = """
        {"created_at":"2026-09-20T11:00:00.000Z","duration_s":72,"failed_reason":"exit 1","failed_step":2,\
        "finished_at":"2026-09-20T11:01:12.000Z","job":"test","number":88,"ref":"main",\
        "sha":"0123456789abcdef0123456789abcdef01234567","status":"failure",\
        "steps":["go vet ./...","go test ./...","go build"]}
        """
}

/// One `ViewWorld` around a whole suite (which should be `.serialized`).
struct SharedViewWorld: SuiteTrait, TestScoping {
    @TaskLocal static var current: ViewWorld?

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let world = try await ViewWorld.start()
        do {
            try await Self.$current.withValue(world) { try await function() }
        } catch {
            await world.stop()
            throw error
        }
        await world.stop()
    }
}

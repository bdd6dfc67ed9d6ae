import DBus
import Foundation
import Glibc
import PushCore
import TestSupport
import Testing

/// The real gbnotifyd on a real shell, GNOME Shell 43 or Plasma 5.27 (or on dunst, for what it
/// does after a kill -9): one desktop session for a whole suite (`@Suite(.serialized, .shell(.plasma))`: the shells take seconds to start here),
/// a gitbay stand-in whose user cmc is in that session's keyring, and in each test a gbnotifyd of
/// its own (`ShellDesktop.run`), with a fresh home and inbox.
///
/// Plasma's session has gbnotify's desktop entry and icon installed (its data directory, in the
/// daemon's `XDG_DATA_DIRS` too), as a package installs them: the badge needs the entry. GNOME's
/// has neither, as a build tree that is not installed (`make demo`): there the `desktop-entry`
/// hint resolves to nothing and the notification's own `app_icon` must give it an icon.
final class ShellDesktop: Sendable {
    let session: DesktopSession
    let standin: Standin
    /// cmc's token on the stand-in, stored in the session's keyring.
    let token: String
    let account: Account
    /// gbnotify's desktop entry and icon (Plasma), or empty (GNOME).
    let dataDirectory: String

    @TaskLocal static var current: ShellDesktop?

    var server: DesktopSession.Server { session.server }

    fileprivate init(session: DesktopSession, standin: Standin, token: String, dataDirectory: String) throws {
        self.session = session
        self.standin = standin
        self.token = token
        self.dataDirectory = dataDirectory
        account = try Account(instance: GitbayInstance(parsing: standin.url), username: "cmc")
    }

    /// The suite's desktop; fails the test outside a suite with `.shell(...)`.
    static func shared(sourceLocation: SourceLocation = #_sourceLocation) throws -> ShellDesktop {
        try #require(current, "not inside a suite with .shell(...)", sourceLocation: sourceLocation)
    }

    /// Stores an account of `standin` in the session's keyring, as `secret-tool` users do.
    func storeInKeyring(_ standin: Standin, token: String) async throws {
        let stored = try await session.run(
            ["secret-tool", "store", "--label=gitbay test", "xdg:schema", "org.gitbay.Account", "instance", standin.url,
             "user", "cmc"],
            stdin: token)
        try #require(stored.status == 0, "secret-tool store: \(stored.stderr)")
    }

    func removeFromKeyring(_ standin: Standin) async throws {
        let cleared = try await session.run(
            ["secret-tool", "clear", "xdg:schema", "org.gitbay.Account", "instance", standin.url, "user", "cmc"])
        try #require(cleared.status == 0, "secret-tool clear: \(cleared.stderr)")
    }

    // MARK: - One test

    /// Runs `body` with a gbnotifyd of its own on this desktop, its first (empty) poll done, so
    /// every row added afterwards is new. The stand-in starts empty (cmc with the same token),
    /// and whatever the shell still holds of an earlier test is dropped first.
    ///
    /// - Parameter plasmaPopups: how long Plasma shows a popup before it expires to its history:
    ///   `.long` (a minute, a user's setting) unless a test is about Plasma's default 5 s, which a
    ///   busy machine could otherwise let pass in the middle of a test.
    func run(
        config: String = "poll-interval = 30\n", plasmaPopups: PlasmaPopups = .long, _ body: (ShellRun) async throws -> Void
    ) async throws {
        if server == .plasma { try await setPlasmaPopupTimeout(plasmaPopups) }
        try await standin.reset()
        try await standin.addUser("cmc")
        _ = try await standin.addToken(for: "cmc", token: token)
        // Every start registers (a write): more than a few a minute are past gitbay's limits.
        try await standin.configure(.init(writeBurst: 1000, writesPerMinute: 1000))
        switch server {
        case .gnomeShell: try await GnomeShell(session).clear()
        default: break
        }
        let run = try ShellRun(desktop: self, config: config)
        do {
            let daemon = try run.start()
            try await daemon.waitForLine(containing: "\(account.displayName): 200 ok")
            try await body(run)
        } catch {
            await run.finish()
            throw error
        }
        await run.finish()
    }

    // MARK: - Scenarios both shells run

    /// Two accounts with the same repository and text: two notifications, each body's first
    /// line naming its account (with one account there is no such line: see the shells' first
    /// tests).
    func expectEachNotificationToSayItsAccount() async throws {
        let other = try await Standin.start()
        do {
            try await other.addUser("cmc")
            try await storeInKeyring(other, token: try await other.addToken(for: "cmc"))
            let otherAccount = try Account(instance: GitbayInstance(parsing: other.url), username: "cmc")
            try await run { run in
                // The keyring is a live source: the new account polls within seconds.
                try await run.daemon.waitForLine(containing: "\(otherAccount.displayName): 200 ok")
                for standin in [run.standin, other] {
                    try await standin.addNotification(
                        for: "cmc", repo: "krz/gitbay", kind: "issue", actor: "eve", summary: "opened issue #12",
                        path: "krz/gitbay/issues/12")
                }
                run.daemon.send(SIGHUP)
                try await run.daemon.waitForLine(containing: "\(run.name): showing notice")
                try await run.daemon.waitForLine(containing: "\(otherAccount.displayName): showing notice")
                let bodies = try await run.ours().map(\.body)
                #expect(Set(bodies) == Set([run.account, otherAccount].map { "\($0.displayName)\neve opened issue #12" }))
            }
        } catch {
            try? await removeFromKeyring(other)
            await other.stop()
            throw error
        }
        try await removeFromKeyring(other)
        await other.stop()
    }

    // MARK: - Plasma

    enum PlasmaPopups: Sendable {
        /// Plasma's own 5 s.
        case standard
        /// A minute: Plasma's setting "Hide after", as a user may choose it.
        case long
    }

    /// Plasma's popup timeout (`plasmanotifyrc`), written as its settings page writes it and
    /// announced as KConfig announces a change (`org.kde.kconfig.notify.ConfigChanged`, which
    /// plasmashell's config watcher hears; Debian 12's kwriteconfig5 cannot send it yet);
    /// returns once plasmashell has heard it (see `settle()`).
    func setPlasmaPopupTimeout(_ popups: PlasmaPopups) async throws {
        var environment = session.environment
        environment["XDG_CONFIG_HOME"] = "\(session.directory)/home/.config"
        let write = ["kwriteconfig5", "--file", "plasmanotifyrc", "--group", "Notifications", "--key", "PopupTimeout"]
        let written = try await Program.run(write + (popups == .long ? ["60000"] : ["--delete", ""]), environment: environment)
        try #require(written.status == 0, "kwriteconfig5: \(written.stderr)")
        try await session.withConnection { connection in
            let announced = try await connection.signals(
                matching: DBusMatchRule(path: "/plasmanotifyrc", interface: "org.kde.kconfig.notify", member: "ConfigChanged"))
            let sent = try await Program.run(
                ["gdbus", "emit", "--session", "--object-path", "/plasmanotifyrc", "--signal",
                 "org.kde.kconfig.notify.ConfigChanged", "{'Notifications': [b'PopupTimeout']}"],
                environment: environment)
            try #require(sent.status == 0, "gdbus emit: \(sent.stderr)")
            // Heard here, it was queued for plasmashell too: settle() then comes after it.
            try await withDeadline(.seconds(30), "the ConfigChanged signal") {
                for await _ in announced { return }
            }
        }
        try await settle()
    }

    /// Returns once plasmashell has handled every message sent to it before this call, the
    /// signals of other senders that reached this process first included: the bus queues a
    /// signal to all its receivers at once, and plasmashell answers its messages in order.
    func settle() async throws {
        _ = try await session.withConnection { connection in
            try await connection.call(
                destination: NotificationsInterface.name, path: NotificationsInterface.path,
                interface: NotificationsInterface.name, member: "GetCapabilities")
        }
    }

    /// The process that owns `org.freedesktop.Notifications` (plasmashell; GNOME's helper).
    func serverProcess() async throws -> pid_t {
        try await session.withConnection { connection in
            let owner = try #require(try await connection.nameOwner(NotificationsInterface.name))
            let reply = try await connection.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "GetConnectionUnixProcessID", arguments: [.string(owner)])
            return pid_t(try #require(reply.first?.uint32Value))
        }
    }

    // MARK: - The shell's view

    /// One of gbnotifyd's notifications as the shell holds it.
    struct Shown: Sendable, Equatable, CustomStringConvertible {
        let id: UInt32
        let title: String
        /// As rendered: markup applied.
        let body: String
        /// The notification's own icon (`app_icon`) as the shell resolved it.
        let icon: String?
        /// Plasma: its popup timed out and it went to the history. GNOME keeps no such state.
        let expired: Bool

        var description: String { "\(id) \"\(title)\" \"\(body.replacing("\n", with: "\\n"))\"\(expired ? " expired" : "")" }

        /// How many unread notices it stands for: a summary's count ("13 more unread on ..."),
        /// or a group's listed lines plus its "and N more" (the account's line aside).
        func notices(accountLine: Bool = false) -> Int {
            if let match = title.firstMatch(of: #/^(\d+)\+? (?:more unread|unread|new) on /#) { return Int(match.1) ?? 0 }
            let lines = body.split(separator: "\n").dropFirst(accountLine ? 1 : 0)
            return lines.reduce(0) { count, line in
                if let more = line.firstMatch(of: #/^and (\d+) more$/#) { return count + (Int(more.1) ?? 0) }
                return count + 1
            }
        }
    }

    /// gbnotifyd's notifications (app name `gitbay`) the shell holds now, oldest first: GNOME's
    /// message tray, or Plasma's model (its history included, `expired`).
    func ours() async throws -> [Shown] {
        switch server {
        case .gnomeShell:
            Self.ours(in: try await GnomeShell(session).notifications())
        case .plasma:
            try await PlasmaShell(session).notifications().compactMap { held in
                // Plasma shows the desktop entry's name where it resolved; the entry is ours.
                guard held.desktopEntry == NotificationContent.desktopEntry || held.appName == NotificationContent.appName
                else { return nil }
                return Shown(id: held.id, title: held.title, body: held.body, icon: held.icon, expired: held.expired)
            }
        default:
            throw ShellFailure(description: "no view of \(server) here")
        }
    }

    /// gbnotifyd's notifications among what GNOME's message tray holds.
    static func ours(in held: [GnomeShell.Notification]) -> [Shown] {
        held.compactMap { held in
            guard held.appName == NotificationContent.appName, let id = held.id else { return nil }
            return Shown(id: id, title: held.title, body: held.body, icon: held.icon, expired: false)
        }
    }

    /// Nothing on the session's bus serves the OpenURI portal, nor could be started to: a click
    /// opens through `xdg-open` (the browser stub).
    func expectNoOpenURIPortal(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let portal = "org.freedesktop.portal.Desktop"
        let (owned, activatable) = try await session.withConnection { connection in
            (try await connection.nameHasOwner(portal), try await connection.activatableNames().contains(portal))
        }
        #expect(!owned && !activatable, sourceLocation: sourceLocation)
    }

    /// What a click on the notification's body runs, through the shell's own code.
    func click(_ id: UInt32) async throws {
        switch server {
        case .gnomeShell: try await GnomeShell(session).activate(id)
        default: try await PlasmaShell(session).activate(id)
        }
    }

    /// The shell's "Mark read" button, pressed through its own handler. (GNOME 43 has buttons
    /// on the banner only: the notification must be the one on it.)
    func pressMarkRead(on id: UInt32) async throws {
        switch server {
        case .gnomeShell:
            let gnome = GnomeShell(session)
            try await gnome.waitForBanner { $0.id == id && $0.isShown }
            try await gnome.pressButton("Mark read", on: id)
        default:
            try await PlasmaShell(session).invokeAction(NotificationContent.markReadAction, on: id)
        }
    }
}

/// One gbnotifyd (and the ones that follow it after a kill) on a `ShellDesktop`: a home of its
/// own, no system bus, and a browser stub as `xdg-open` first on its `PATH` (no OpenURI portal
/// can be on the session's bus: only the shell's own services are activatable there).
final class ShellRun: Sendable {
    let desktop: ShellDesktop
    let home: DaemonHome
    let browser: OpenerStub
    let environment: [String: String]
    private let daemons = Observed<[RunningDaemon]>([])

    fileprivate init(desktop: ShellDesktop, config: String) throws {
        self.desktop = desktop
        home = try DaemonHome()
        try home.writeConfig(config)
        let bin = home.directory.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        browser = try OpenerStub(at: bin.appendingPathComponent("xdg-open").path)
        var environment = desktop.session.environment.merging(SystemBusStandin.noSystemBus) { $1 }
        for name in ["XDG_CONFIG_HOME", "XDG_STATE_HOME", "NOTIFY_SOCKET"] { environment[name] = home.environment[name] }
        environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        if !desktop.dataDirectory.isEmpty {
            environment["XDG_DATA_DIRS"] = desktop.dataDirectory + ":" + (environment["XDG_DATA_DIRS"] ?? "/usr/local/share:/usr/share")
        }
        self.environment = environment
    }

    var standin: Standin { desktop.standin }
    var account: Account { desktop.account }
    /// How the daemon names the account in its log.
    var name: String { account.displayName }
    /// The daemon started last.
    var daemon: RunningDaemon { daemons.value.last! }

    /// Starts a gbnotifyd (after an earlier one was killed, say).
    @discardableResult
    func start() throws -> RunningDaemon {
        let daemon = try RunningDaemon(environment: environment)
        daemons.update { $0.append(daemon) }
        return daemon
    }

    /// Adds an inbox row of `repo`, and has the daemon poll at once (SIGHUP); returns its id once
    /// it is on screen, and the server's id of the notification showing it.
    @discardableResult
    func show(
        repo: String = "krz/gitbay", actor: String = "eve", summary: String = "opened issue #12", number: Int = 12,
        kind: String = "issue"
    ) async throws -> (row: Int, notification: UInt32) {
        let noun = kind == "mr" ? "mrs" : kind == "build" ? "builds" : "issues"
        let row = try await standin.addNotification(
            for: "cmc", repo: repo, kind: kind, actor: actor, summary: summary, path: "\(repo)/\(noun)/\(number)")
        daemon.send(SIGHUP)
        return (row, try await shownAs(row: row))
    }

    /// The server id of the notification that shows the row `row`, once the daemon logged it.
    func shownAs(row: Int) async throws -> UInt32 {
        let lines = try await daemon.waitForLine(containing: "showing notice \(row) ")
        let line = try #require(lines.last { $0.contains("showing notice \(row) ") })
        let id = try #require(line.firstMatch(of: #/ as notification (\d+)/#).flatMap { UInt32($0.1) }, "\(line)")
        return id
    }

    /// gbnotifyd's notifications the shell holds now, of this run's daemons only (Plasma keeps
    /// an earlier test's expired ones in its history), oldest first.
    func ours() async throws -> [ShellDesktop.Shown] {
        let ids = Set(daemons.value.flatMap { $0.lines(containing: " as notification ") }.compactMap {
            $0.firstMatch(of: #/ as notification (\d+)/#).flatMap { UInt32($0.1) }
        })
        return try await desktop.ours().filter { ids.contains($0.id) }
    }

    /// The one notification of ours titled `title` that is open (not in Plasma's history).
    func open(titled title: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> ShellDesktop.Shown {
        let found = try await ours().filter { $0.title == title && !$0.expired }
        try #require(found.count == 1, "notifications titled \(title): \(found)", sourceLocation: sourceLocation)
        return found[0]
    }

    /// The URL of an item of the account, as a click opens it.
    func url(_ path: String) -> String { "\(account.instance.url)/\(path)" }

    /// Waits until the daemon has handled every click it heard on notification `id` and the
    /// shell's closing that follows one (so that a second click of one, say GNOME's echo, would
    /// have been logged by now), and returns how many clicks it served: "Open" and "Mark read".
    func clicksServed(on id: UInt32) async throws -> Int {
        try await waitUntilGone(id)
        return daemon.lines.value.count {
            $0.hasSuffix(": notification \(id) was clicked") || $0.hasSuffix(": \"Mark read\" on notification \(id)")
        }
    }

    /// Waits until the daemon no longer has notification `id` open: the shell closed it, or the
    /// daemon withdrew it (after "Mark read", whichever comes first).
    func waitUntilGone(_ id: UInt32) async throws {
        try await waitForLine("notification \(id) closed or withdrawn") { line in
            line.contains("notification \(id) was closed by the server") || line.hasSuffix("withdrew notification \(id)")
        }
    }

    /// Waits for a log line that ends with `text` (where a number ends the line, "notification
    /// 1" must not match "notification 12").
    func waitForLine(endingWith text: String) async throws {
        try await waitForLine("a line ending with \"\(text)\"") { $0.hasSuffix(text) }
    }

    private func waitForLine(_ what: String, where matches: @escaping @Sendable (String) -> Bool) async throws {
        do {
            try await daemon.lines.wait(for: "gbnotifyd's log: \(what)") { $0.contains(where: matches) }
        } catch {
            Issue.record("gbnotifyd's log so far:\n\(daemon.lines.value.joined(separator: "\n"))")
            throw error
        }
    }

    /// The stand-in's `notifications read` requests, as argv.
    func markReadRequests() async throws -> [[String]] {
        try await standin.requests().compactMap { $0.argv }.filter { $0.starts(with: ["notifications", "read"]) }
    }

    fileprivate func finish() async {
        for daemon in daemons.value where daemon.exit.value == nil {
            daemon.send(SIGTERM)
            _ = try? await daemon.waitForExit()
        }
        browser.close()
        home.remove()
    }
}

/// One `DesktopSession` of GNOME Shell or Plasma around a whole suite, with the stand-in and
/// its account in the session's keyring (see `ShellDesktop`).
struct ShellSuite: SuiteTrait, TestScoping {
    let server: DesktopSession.Server

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let data = FileManager.default.temporaryDirectory.appending(path: "gbnotify-shell-data-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        if server == .plasma {
            // As `make install` lays them out: the entry (for the badge and the desktop-entry
            // hint) and the icon in the hicolor theme.
            let packaging = URL(fileURLWithPath: Standin.packageRoot).appending(path: "packaging")
            let icon = data.appending(path: AppIcon.themePath)
            try FileManager.default.createDirectory(at: data.appending(path: "applications"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: icon.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: packaging.appending(path: "gbnotify.desktop"), to: data.appending(path: "applications/gbnotify.desktop"))
            try FileManager.default.copyItem(at: packaging.appending(path: "gbnotify.svg"), to: icon)
        }
        let session = try await DesktopSession.start(server, dataDirectory: server == .plasma ? data.path : nil)
        let standin: Standin
        do {
            standin = try await Standin.start()
        } catch {
            await session.stop()
            throw error
        }
        do {
            try await standin.addUser("cmc")
            let token = try await standin.addToken(for: "cmc")
            let desktop = try ShellDesktop(
                session: session, standin: standin, token: token, dataDirectory: server == .plasma ? data.path : "")
            try await desktop.storeInKeyring(standin, token: token)
            try await ShellDesktop.$current.withValue(desktop) { try await function() }
        } catch {
            await standin.stop()
            await session.stop()
            throw error
        }
        await standin.stop()
        await session.stop()
    }
}

extension Trait where Self == ShellSuite {
    /// The suite runs on one session of `server` (`.gnomeShell` or `.plasma`).
    static func shell(_ server: DesktopSession.Server) -> Self {
        ShellSuite(server: server)
    }
}

struct ShellFailure: Error, CustomStringConvertible {
    let description: String
}

/// The launcher badge for gbnotify's desktop entry: every `com.canonical.Unity.LauncherEntry`
/// `Update` gbnotifyd sends, as (count, count-visible), and what Plasma's task manager made of
/// them.
final class BadgeWatch: Sendable {
    let updates = Observed<[(count: Int64, visible: Bool)]>([])
    private let desktop: ShellDesktop
    private let connection: DBusConnection
    private let listening: Task<Void, Never>

    init(on desktop: ShellDesktop) async throws {
        self.desktop = desktop
        connection = try await desktop.session.connect()
        let stream = try await connection.signals(
            matching: DBusMatchRule(interface: "com.canonical.Unity.LauncherEntry", member: "Update"))
        let updates = updates
        listening = Task {
            for await update in stream where update.arguments.first?.stringValue == "application://gbnotify.desktop" {
                let properties = update.arguments.last?.vardictValue ?? [:]
                guard let count = properties["count"]?.int64Value, let visible = properties["count-visible"]?.boolValue
                else { continue }
                updates.update { $0.append((count, visible)) }
            }
        }
    }

    /// Waits until the last update sent says `count` (shown when above 0), then returns what
    /// Plasma's task manager holds once it has handled it.
    @discardableResult
    func plasma(showing count: Int64) async throws -> PlasmaShell.Badge {
        try await updates.wait(for: "a badge of \(count)") { $0.last.map { $0.count == count && $0.visible == (count > 0) } == true }
        try await desktop.settle()
        return try await PlasmaShell(desktop.session).badge(for: NotificationContent.desktopEntry)
    }

    func close() async {
        listening.cancel()
        await connection.close()
    }
}

/// What `dbus-monitor` sees of the notification server's interface on a session's bus: every
/// method call to it and every signal of it, whoever it is sent to (GNOME's helper and dunst
/// send theirs to the caller of Notify alone).
final class BusMonitor: Sendable {
    struct Message: Sendable, Equatable {
        let isSignal: Bool
        let sender: String
        /// nil for a broadcast.
        let destination: String?
        let member: String
        /// The leading uint32 arguments: a signal's notification id (and NotificationClosed's
        /// reason); none for Notify, whose first argument is a string.
        let numbers: [UInt32]

        var firstUInt32: UInt32? { numbers.first }
    }

    private let process: RunningDaemon

    init(on session: DesktopSession) async throws {
        let interface = NotificationsInterface.name
        // Its lines on standard error, where RunningDaemon reads them.
        process = try RunningDaemon(
            argv: ["sh", "-c", "exec dbus-monitor --session \"$0\" \"$1\" >&2",
                   "type='method_call',interface='\(interface)'", "type='signal',interface='\(interface)'"],
            environment: session.environment)
        // It gives up its bus name once it monitors.
        try await process.lines.wait(for: "dbus-monitor to monitor") { $0.contains { $0.hasSuffix("member=NameLost") } }
    }

    var messages: [Message] { Self.parse(process.lines.value) }

    /// The messages once `condition` holds.
    @discardableResult
    func wait(for what: String, until condition: @escaping @Sendable ([Message]) -> Bool) async throws -> [Message] {
        Self.parse(try await process.lines.wait(for: what) { condition(Self.parse($0)) })
    }

    func stop() async {
        process.send(SIGTERM)
        _ = try? await process.waitForExit()
    }

    /// dbus-monitor's default format: a line per message ("signal time=... sender=:1.10 ->
    /// destination=:1.14 serial=24 path=...; interface=...; member=ActionInvoked"), then its
    /// arguments, indented, one a line ("   uint32 7"). A message counts only once a line that
    /// is not a number follows it, or its numbers are all there (NotificationClosed's two):
    /// until then its arguments may still be on their way.
    private static func parse(_ lines: [String]) -> [Message] {
        var messages: [Message] = []
        for (index, line) in lines.enumerated() {
            guard let head = line.firstMatch(
                of: #/^(signal|method call) time=\S+ sender=(\S+) -> destination=(\S+) .* member=(\S+)$/#)
            else { continue }
            let following = lines[(index + 1)...]
            let numbers = following.prefix { $0.firstMatch(of: #/^ +uint32 \d+$/#) != nil }
            guard numbers.count < following.count || (head.4 == "NotificationClosed" && numbers.count == 2) else { break }
            let destination = String(head.3)
            messages.append(Message(
                isSignal: head.1 == "signal", sender: String(head.2),
                destination: destination.hasPrefix("(null") ? nil : destination, member: String(head.4),
                numbers: numbers.compactMap { UInt32($0.split(separator: " ").last ?? "") }))
        }
        return messages
    }
}
